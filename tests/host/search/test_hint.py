"""Weak results (``Ranked.weak``) and what a search says about them (``hint``)."""

from __future__ import annotations

from tooldeck.host.registry.editor import NamespaceEntry
from tooldeck.host.search import hint as hints
from tooldeck.host.search.hint import hint
from tooldeck.host.search.ranking import ToolIndex

from .test_ranking import make, services


def index_of(entries, spaces):
    return ToolIndex.of(entries, {k: NamespaceEntry(v, "test") for k, v in spaces.items()})


def test_a_good_match_is_not_weak():
    index = index_of(*services())
    assert not index.rank("create a refund", 5).weak
    assert not index.rank("list github issues", 5).weak


def test_nothing_found_is_weak():
    ranked = index_of(*services()).rank("translate this poem", 5)
    assert ranked.positions == [] and ranked.weak


def test_a_word_tools_are_named_for_but_no_tool_answers_makes_it_weak():
    entries = [make("shell", "Run a command; pass --no-pager to git."), make("greet", "Say hello.")]
    index = ToolIndex.of(entries, {})
    ranked = index.rank("who is on call this week", 5)
    assert ranked.weak  # "pager" is an on-call word, but a flag is not a rota


def test_values_the_person_will_pass_do_not_make_it_weak():
    index = ToolIndex.of([make("greet", "Greet someone by name.")], {})
    ranked = index.rank("greet Ada", 5)
    assert ranked.positions == [0] and not ranked.weak


def test_a_third_of_an_answer_is_weak_and_says_what_is_missing():
    entries, spaces = services()
    ranked = index_of(entries, spaces).rank("refund forecast folder", 5)
    assert ranked.weak and len(ranked.unmatched) == 2


def test_words_nobody_knows_are_values_not_questions():
    entries, spaces = services()
    ranked = index_of(entries, spaces).rank("translate a github issue into french poetry", 5)
    assert not ranked.weak and ranked.unmatched == []


def test_the_hint_lists_namespaces_matching_first_with_a_suggested_query():
    entries, spaces = services()
    entries.append(make("ping", "Ping."))
    index = index_of(entries, spaces)
    query = "charge refunds twice a fortnight"
    found = hint(index, index.rank(query, 5), query)
    names = [s.name for s in found.namespaces]
    assert names[0] == "stripe"
    assert sorted(names[1:]) == names[1:] and len(names) == len(spaces)
    assert found.namespaces[0].tools == 12
    assert found.namespaces[0].description == "Stripe payments: customers, charges and refunds."
    assert found.loose == 1
    assert found.suggestion.startswith("stripe ") and "refunds" in found.suggestion
    text = found.text(found=True)
    assert "- stripe: Stripe payments: customers, charges and refunds. (12 tools)" in text
    assert f'Try "{found.suggestion}"' in text and "1 tool without a namespace." in text
    assert found.data()["namespaces"][0] == {
        "name": "stripe",
        "description": "Stripe payments: customers, charges and refunds.",
        "tools": 12,
    }


def test_with_nothing_matched_the_hint_lists_namespaces_by_name_and_suggests_no_words():
    index = index_of(*services())
    query = "translate this poem"
    found = hint(index, index.rank(query, 5), query)
    names = [s.name for s in found.namespaces]
    assert names == sorted(names) and found.suggestion == ""
    assert "Try a namespace's name" in found.text(found=False)


def test_a_hint_lists_a_first_sentence_and_a_bounded_number_of_namespaces(monkeypatch):
    monkeypatch.setattr(hints, "MAX_NAMESPACES", 2)
    entries = [make(f"t{n}", namespace=f"ns{n}") for n in range(4)]
    spaces = {f"ns{n}": f"Space {n}. More words nobody needs here." for n in range(4)}
    index = index_of(entries, spaces)
    found = hint(index, index.rank("nothing", 5), "nothing")
    assert [s.description for s in found.namespaces] == ["Space 0.", "Space 1."]
    assert found.more == 2 and "- and 2 more namespaces" in found.text(found=False)
