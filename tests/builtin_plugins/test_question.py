from __future__ import annotations

import pytest

from tooldeck._tool import TextPart
from tooldeck.host.boundary.outcome import DISMISSED_TEXT
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.location.questions import Option, Question
from tooldeck.host.permissions.request import Reject

DB = {
    "question": "Which database should the service use?",
    "header": "Database",
    "options": [
        {"label": "Postgres", "description": "Relational, already deployed"},
        {"label": "SQLite", "description": "A file next to the app"},
    ],
}
FEATURES = {
    "question": "Which features ship first?",
    "header": "Features",
    "options": [{"label": "Auth"}, {"label": "Billing"}, {"label": "Search"}],
    "multiple": True,
}


def text(outcome) -> str:
    return "\n".join(p.text for p in outcome.content if isinstance(p, TextPart))


@pytest.fixture
def question(builtins):
    return builtins.load("question")


def with_rule(builtins, root, tmp_path, asker, answerer, effect):
    rule = PermissionRule(action="question", resource="*", effect=effect)
    location = Location(
        root,
        config=Config(permission=(rule,)),
        data_dir=tmp_path / "d2",
        asker=asker,
        answerer=answerer,
    )
    return type(builtins)(location).load("question")


async def test_answers_come_back_as_text_and_output(question, answerer, asker):
    answerer.answers = [["Postgres"]]
    outcome = await question.call("question", questions=[DB])
    assert outcome.status == "completed"
    assert text(outcome) == (
        'The user answered:\n"Which database should the service use?" → Postgres'
    )
    assert outcome.output == {
        "answers": [
            {
                "question": "Which database should the service use?",
                "header": "Database",
                "answers": ["Postgres"],
            }
        ]
    }
    assert asker.requests == []


async def test_the_answerer_sees_every_question_with_its_options_at_once(question, answerer):
    answerer.answers = [["SQLite"], ["Auth", "Search"]]
    outcome = await question.call("question", questions=[DB, FEATURES])
    [request] = answerer.requests
    assert request.questions == (
        Question(
            "Which database should the service use?",
            "Database",
            (
                Option("Postgres", "Relational, already deployed"),
                Option("SQLite", "A file next to the app"),
            ),
            False,
        ),
        Question(
            "Which features ship first?",
            "Features",
            (Option("Auth"), Option("Billing"), Option("Search")),
            True,
        ),
    )
    assert request.source == {"type": "tool", "message_id": "m1", "id": "call_1"}
    assert text(outcome).splitlines()[1:] == [
        '"Which database should the service use?" → SQLite',
        '"Which features ship first?" → Auth, Search',
    ]
    assert outcome.output["answers"][1]["answers"] == ["Auth", "Search"]


async def test_free_answers_and_empty_answers_are_reported(question, answerer):
    free = {"question": "Anything else?", "header": "Notes"}
    answerer.answers = [["Use UTC everywhere"], []]
    outcome = await question.call("question", questions=[free, FEATURES])
    assert text(outcome).splitlines()[1:] == [
        '"Anything else?" → Use UTC everywhere',
        '"Which features ship first?" → (no answer)',
    ]


async def test_dismissal_declines_the_call(question, answerer):
    answerer.answers = None
    outcome = await question.call("question", questions=[DB])
    assert outcome.status == "declined"
    assert text(outcome) == DISMISSED_TEXT
    assert outcome.output is None


async def test_at_least_one_question_is_required(question, answerer):
    outcome = await question.call("question", questions=[])
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert answerer.requests == []


async def test_a_deny_rule_fails_before_asking(builtins, root, tmp_path, asker, answerer):
    denied = with_rule(builtins, root, tmp_path, asker, answerer, "deny")
    outcome = await denied.call("question", questions=[DB])
    assert outcome.status == "failed" and outcome.error.type == "permission.rejected"
    assert answerer.requests == []


async def test_an_ask_rule_asks_first(builtins, root, tmp_path, asker, answerer):
    asking = with_rule(builtins, root, tmp_path, asker, answerer, "ask")
    answerer.answers = [["Postgres"]]
    assert (await asking.call("question", questions=[DB])).status == "completed"
    [request] = asker.requests
    assert (request.action, request.resources) == ("question", ("*",))
    assert request.metadata["headers"] == ["Database"]


async def test_reject_declines_and_feedback_fails_with_it(
    builtins, root, tmp_path, asker, answerer
):
    asking = with_rule(builtins, root, tmp_path, asker, answerer, "ask")
    asker.replies["question"] = "reject"
    assert (await asking.call("question", questions=[DB])).status == "declined"
    asker.replies["question"] = Reject("just pick Postgres")
    corrected = await asking.call("question", questions=[DB])
    assert corrected.status == "failed" and "just pick Postgres" in corrected.error.message
    assert answerer.requests == []


def test_question_is_a_native_tool_with_its_own_action(question):
    tool = question.service.snapshot().get("question")
    assert tool is not None and tool.codemode is False and tool.permission == "question"
