"""``terms``: identifiers split, joins, stop words, stems, compounds."""

from __future__ import annotations

from tooldeck.host.search.terms import compound_parts, joined, tokens, unframed, words


def test_identifiers_come_apart():
    assert tokens("listPullRequests") == ["list", "pull", "requests"]
    assert tokens("HTTPServer") == ["http", "server"]
    assert tokens("github_create_issue.v2") == ["github", "create", "issue", "v2"]
    assert tokens("send-as-alias") == ["send", "as", "alias"]


def test_letters_and_digits_stay_whole_and_long_letters_also_stand_alone():
    assert tokens("aws_s3") == ["aws", "s3"]
    assert tokens("oauth2 token") == ["oauth2", "oauth", "token"]
    assert tokens("at 3pm") == ["at", "3pm"]  # never "3", which would match s3's tools


def test_two_token_spellings_of_one_word_are_joined():
    assert joined(["who", "is", "on", "call"]) == ["who", "is", "oncall"]
    assert joined(["open", "pull", "requests"]) == ["open", "pullrequest"]
    assert joined(["to", "do", "list"]) == ["todo", "list"]
    assert words("oncall_shift") == words("on-call shift") == ["oncall", "shift"]


def test_words_drop_stop_words_and_single_letters_and_stem():
    assert words("Find the issues of my repositories") == ["find", "issu", "repository"]
    assert words("what's on my agenda") == ["agenda"]
    assert words("send an email to someone") == ["send", "email"]
    assert words("listPullRequests") == ["list", "pullrequest"]


def test_compounds_split_where_both_halves_are_known():
    known = {"web", "fetch", "play", "back"}
    assert compound_parts("webfetch", known) == ("web", "fetch")
    assert compound_parts("playback", known) == ("play", "back")
    assert compound_parts("webhook", known) is None  # "hook" unknown
    assert compound_parts("s3bucket", known) is None
    assert compound_parts("webs", known) is None  # too short to be two words


def test_frames_of_a_request_go_and_their_words_only_together():
    assert unframed(tokens("show me how to rename a branch")) == ["rename", "a", "branch"]
    assert unframed(tokens("is there a way to cancel an order")) == ["cancel", "an", "order"]
    assert unframed(tokens("I'd like to be able to see invoices")) == ["see", "invoices"]
    # "show me" alone asks to see: it stays.
    assert unframed(tokens("show me my invoices")) == ["show", "me", "my", "invoices"]
