"""``parse``: a query as concepts (words, synonyms, phrases, an implied lookup)."""

from __future__ import annotations

from tooldeck.host.search.query import POSSESSIVE_WEIGHT, parse
from tooldeck.host.search.synonyms import SYNONYM_WEIGHT
from tooldeck.host.search.terms import term


def terms(concept):
    return dict(concept.alternatives)


def test_a_word_searches_for_itself_and_its_synonyms():
    (send, email) = parse("send an email", known=set()).concepts
    assert terms(send)["send"] == 1.0 and terms(send)["creat"] == SYNONYM_WEIGHT
    assert terms(email)["email"] == 1.0 and terms(email)["messag"] == SYNONYM_WEIGHT


def test_a_phrase_stands_for_its_group_and_its_words_are_not_searched_alone():
    read = parse("undo a payment", known=set())
    assert read.words == ("undo a payment",)
    found = {t for c in read.concepts for t, _ in c.alternatives}
    assert "refund" in found and "creat" in found
    assert "undo" not in found and "pay" not in found


def test_a_phrase_keeps_its_own_words_where_its_group_lists_them():
    (message,) = [c for c in parse("a direct message", set()).concepts if not c.implied]
    assert terms(message)["messag"] == 1.0


def test_words_of_one_group_are_one_concept():
    read = parse("create a new page", known=set())
    assert len(read.concepts) == 2
    create = read.concepts[0]
    assert create.sources == {0, 1} and terms(create)["new"] == 1.0


def test_a_word_in_two_groups_gives_a_concept_for_each_and_counts_itself_once():
    concepts = parse("pause", known=set()).concepts
    assert len(concepts) == 2
    assert sum(1 for c in concepts if terms(c).get("paus") == 1.0) == 1


def test_questions_and_requests_without_an_action_imply_a_lookup():
    assert parse("storm warnings near me", set()).concepts[-1].implied
    assert parse("what did I change", set()).concepts[-1].implied
    assert not any(c.implied for c in parse("delete the storm warnings", set()).concepts)


def test_a_noun_used_as_a_verb_asks_to_make_one():
    *_, implied = parse("pin a message", set()).concepts
    assert implied.implied and terms(implied)[term("create")] == SYNONYM_WEIGHT
    assert term("get") not in terms(implied)
    # No determiner after the first word: a thing named, a lookup.
    assert term("get") in terms(parse("storm warnings", set()).concepts[-1])
    # A question asks to see, whatever follows its first word.
    assert term("get") in terms(parse("is the site down", set()).concepts[-1])


def test_unknown_compounds_split_and_known_ones_join():
    read = parse("my todolist", known={"todo", "list"})
    assert [c.alternatives[0][0] for c in read.concepts if not c.implied][:2] == ["todo", "list"]
    read = parse("when does the sun rise", known={term("sunrise")})
    assert read.words == ("sun rise",)
    assert read.concepts[0].alternatives[0] == (term("sunrise"), 1.0)


def test_a_possessive_counts_less_than_what_it_owns():
    _, customer, order = parse("cancel a customer's order", set()).concepts[:3]
    assert customer.weight == POSSESSIVE_WEIGHT and order.weight == 1.0


def test_a_query_of_stop_words_has_no_concepts():
    assert parse("what is it", set()).concepts == ()
    assert parse("", set()).concepts == ()


def test_a_request_names_one_action_its_first():
    read = parse("set up a database for my reading list", set())
    acting = [c for c in read.concepts if c.action]
    assert [terms(c)[term("setup")] for c in acting] == [1.0]
    # "reading" and "list" are still searched, as what the request is about.
    assert {term("read"), term("list")} <= {t for c in read.concepts for t in terms(c)}


def test_a_word_in_two_action_groups_is_both_actions():
    acting = [c for c in parse("close the ticket", set()).concepts if c.action]
    assert len(acting) == 2


def test_an_implied_action_is_an_action():
    *_, implied = parse("storm warnings near me", set()).concepts
    assert implied.implied and implied.action


def test_the_action_is_the_requests_own_verb_not_its_frame():
    (action,) = [c for c in parse("show me how to archive a channel", set()).concepts if c.action]
    assert terms(action)[term("archive")] == 1.0
    (action,) = [c for c in parse("help me find a way to send an sms", set()).concepts if c.action]
    assert terms(action)[term("send")] == 1.0
