"""``ScriptedAsker`` and ``ScriptedAnswerer``: scripts, strictness, records."""

from __future__ import annotations

import pytest

from tooldeck import PermissionCorrected, PermissionDeclined, QuestionDismissed, Reject
from tooldeck.host.location.location import Location
from tooldeck.host.location.questions import Question, QuestionRequest
from tooldeck.host.permissions.request import PermissionRequest
from tooldeck.testing import ScriptedAnswerer, ScriptedAsker


def request(action, *resources):
    return PermissionRequest(action, resources, resources, {}, {})


def questions(*pairs):
    return QuestionRequest(tuple(Question(text, header) for header, text in pairs), {})


# -- ScriptedAsker ---------------------------------------------------------------------------
def test_the_default_reply_is_once_and_every_request_is_recorded():
    asker = ScriptedAsker()
    assert asker(request("shell", "ls")) == "once"
    assert asker(request("edit", "a.txt")) == "once"
    assert [r.action for r in asker.requests] == ["shell", "edit"]
    assert [r.resources for r in asker.asked("edit")] == [("a.txt",)]


def test_replies_per_action_and_allow_is_once():
    asker = ScriptedAsker({"shell": "reject", "edit": "allow"}, default="always")
    assert asker(request("shell", "ls")) == "reject"
    assert asker(request("edit", "a")) == "once"
    assert asker(request("webfetch", "u")) == "always"


def test_resource_patterns_refine_an_action_and_the_latest_pattern_wins():
    asker = ScriptedAsker().on("shell", "reject", resource="git push *")
    asker.on("shell", Reject("no force"), resource="git push --force *")
    assert asker(request("shell", "git status")) == "once"
    assert asker(request("shell", "git push origin")) == "reject"
    assert asker(request("shell", "git push --force origin")) == Reject("no force")
    assert asker(request("edit", "git push x")) == "once"  # other actions untouched


def test_a_request_is_answered_by_its_strictest_resource():
    asker = ScriptedAsker(default="always").on("edit", "once", resource="src/**")
    asker.on("edit", Reject("not the secrets"), resource="secrets/*")
    assert asker(request("edit", "a.txt", "b.txt")) == "always"
    assert asker(request("edit", "a.txt", "src/x/a.py")) == "once"
    assert asker(request("edit", "src/a.py", "secrets/k", "a.txt")) == Reject("not the secrets")


def test_callable_replies_receive_the_request_once():
    seen = []

    def decide(req):
        seen.append(req)
        return "reject" if "rm" in req.resources[0] else "allow"

    asker = ScriptedAsker({"shell": decide})
    assert asker(request("shell", "rm -rf /", "ls")) == "reject"
    assert asker(request("shell", "ls")) == "once"
    assert len(seen) == 2


@pytest.mark.parametrize("reply", ["yes", "Once", 3])
def test_a_misspelt_reply_is_refused_when_scripted(reply):
    with pytest.raises((ValueError, TypeError), match="reply"):
        ScriptedAsker().on("shell", reply)
    with pytest.raises((ValueError, TypeError), match="reply"):
        ScriptedAsker(default=reply)


async def test_it_drives_a_real_permission_service(tmp_path):
    asker = ScriptedAsker({"edit": Reject("use docs/")}).on("shell", "reject", resource="rm *")
    location = Location(tmp_path, data_dir=tmp_path / "data", asker=asker)
    permission = location.permission.gate({"type": "tool"})
    await permission.assert_("shell", ["ls"])
    with pytest.raises(PermissionDeclined):
        await permission.assert_("shell", ["rm -rf build"])
    with pytest.raises(PermissionCorrected, match="use docs/"):
        await permission.assert_("edit", ["a.txt"])
    assert [(r.action, r.resources) for r in asker.requests] == [
        ("shell", ("ls",)),
        ("shell", ("rm -rf build",)),
        ("edit", ("a.txt",)),
    ]


async def test_always_saves_the_approval(tmp_path):
    asker = ScriptedAsker({"shell": "always"})
    location = Location(tmp_path, data_dir=tmp_path / "data", asker=asker)
    permission = location.permission.gate({"type": "tool"})
    await permission.assert_("shell", ["make"])
    await permission.assert_("shell", ["make"])
    assert len(asker.asked("shell")) == 1


# -- ScriptedAnswerer ------------------------------------------------------------------------
def test_by_default_every_question_set_is_dismissed_and_recorded():
    answerer = ScriptedAnswerer()
    assert answerer(questions(("DB", "Which database?"))) is None
    assert [q.header for q in answerer.questions] == ["DB"]


def test_answers_by_header_then_full_text_then_default():
    answerer = ScriptedAnswerer(default=["Skip"]).on("DB", "Postgres")
    answerer.on("Which features?", ["Auth", "Search"])
    reply = answerer(
        questions(("DB", "Which database?"), ("Feat", "Which features?"), ("Tz", "Time zone?"))
    )
    assert reply == [["Postgres"], ["Auth", "Search"], ["Skip"]]


def test_one_unanswered_question_dismisses_the_whole_set():
    answerer = ScriptedAnswerer().on("DB", ["Postgres"])
    assert answerer(questions(("DB", "Which database?"), ("Tz", "Time zone?"))) is None


def test_callables_and_a_whole_reply():
    first = ScriptedAnswerer(default=lambda q: [q.question.upper()])
    assert first(questions(("DB", "which?"))) == [["WHICH?"]]
    whole = ScriptedAnswerer(answers=[["a"], ["b"]], default=["ignored"])
    assert whole(questions(("1", "one"), ("2", "two"))) == [["a"], ["b"]]


async def test_it_drives_a_real_question_service(tmp_path):
    answerer = ScriptedAnswerer().on("DB", "SQLite")
    location = Location(tmp_path, data_dir=tmp_path / "data", answerer=answerer)
    gate = location.question.gate({"type": "tool"})
    assert await gate.ask([{"question": "Which database?", "header": "DB"}]) == [["SQLite"]]
    with pytest.raises(QuestionDismissed):
        await gate.ask([{"question": "Time zone?", "header": "Tz"}])
