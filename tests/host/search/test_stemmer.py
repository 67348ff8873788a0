"""``stem``: the forms of one word meet, unrelated words stay apart."""

from __future__ import annotations

import pytest

from tooldeck.host.search.stemmer import stem

MEET = [
    "create creates created creating creation",
    "update updates updated updating",
    "share shares shared sharing",
    "run runs running",
    "add adds added adding",
    "set sets setting settings",
    "use uses used using",
    "query queries querying",
    "match matches matching",
    "status statuses",
    "address addresses",
    "pay pays paid payment payments",
    "attach attached attachment attachments",
    "notify notified notification notifications",
    "verify verified verification",
    "delete deleted deletion",
    "cancel cancels cancelled canceled cancellation",
    "remove removed removal",
    "comment comments commented",
    "week weekly",
    "organize organization organizations",
    "invite invited invitation invitations",
    "copy copies copied copying",
    "issue issues issued",
    "repository repositories",
    "refund refunds refunded",
    "recur recurring recurrence",
    "react reacted reaction reactions",
    "summarize summarise summarized summarised",
    "analyze analyse analyzed",
    "organization organisation",
    "perform performance",
]


@pytest.mark.parametrize("forms", MEET)
def test_the_forms_of_a_word_meet(forms):
    stems = {stem(w) for w in forms.split()}
    assert len(stems) == 1, stems


@pytest.mark.parametrize(
    "a, b",
    [
        ("news", "new"),
        ("note", "not"),
        ("comment", "com"),
        ("file", "fill"),
        ("subscription", "subscribe"),  # a thing tools hold, and an action
        ("station", "state"),
        ("replication", "reply"),
        ("sentence", "sent"),
        ("instance", "install"),
    ],
)
def test_unrelated_words_stay_apart(a, b):
    assert stem(a) != stem(b)


def test_short_words_and_words_with_digits_are_kept():
    for word in ("run", "git", "s3", "v2", "oauth2", "8601", "ab"):
        assert stem(word) == word
