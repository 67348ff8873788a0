"""The synonym table: every group says why it exists, and normalizes to usable terms."""

from __future__ import annotations

from tooldeck.host.search.synonyms import ACTIONS, GROUPS, LOOKUP, member_terms, table
from tooldeck.host.search.terms import term


def test_every_group_has_members_and_a_reason():
    for members, why in GROUPS:
        listed = [m.strip() for m in members.split(",")]
        assert len(listed) >= 2 and all(listed), members
        assert len(set(listed)) == len(listed), f"repeated member in {members!r}"
        assert why.strip() and len(why) <= 100, why


def test_every_group_has_a_one_word_member_to_search_for():
    assert all(table().members), "a group of phrases only would find nothing"


def test_members_are_normalized_like_queries():
    assert member_terms("Pull Requests") == ("pullrequest",)
    assert member_terms("how many") == ("how", "many")  # a phrase keeps its stop words
    assert member_terms("undo payment") == ("undo", "pay")


def test_words_and_phrases_know_their_groups():
    synonyms = table()
    create = next(i for i, (m, _) in enumerate(GROUPS) if m.startswith("create,"))
    assert create in synonyms.groups["send"] and create in synonyms.actions
    assert synonyms.phrases[("how", "many")]
    assert ("money", "back") in synonyms.starts["money"]
    assert len(synonyms.actions) == len(ACTIONS)
    assert len(synonyms.lookup) == len(LOOKUP)


def test_a_word_in_two_groups_is_in_both():
    synonyms = table()
    assert len(synonyms.groups[term("pause")]) == 2  # updating playback, and playback itself
