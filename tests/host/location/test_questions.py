from __future__ import annotations

import asyncio

import pytest

from tooldeck import Location, ToolContext
from tooldeck.errors import QuestionDismissed, ReplyError
from tooldeck.host.location.questions import Option, Question, QuestionRequest

SOURCE = {"type": "tool", "message_id": "m1", "id": "call_1"}

COLOR = Question(
    question="Which colour should the button be?",
    header="Colour",
    options=(Option("Red", "warm"), Option("Blue", "calm")),
)
EXTRAS = Question(
    question="Which extras?", header="Extras", options=(Option("Tests"),), multiple=True
)


def make(tmp_path, answerer=None):
    return Location(tmp_path, data_dir=tmp_path / "data", answerer=answerer)


class Answers:
    def __init__(self, reply):
        self.reply = reply
        self.requests: list[QuestionRequest] = []

    def __call__(self, request):
        self.requests.append(request)
        return self.reply


class AsyncAnswers(Answers):
    async def __call__(self, request):
        await asyncio.sleep(0)
        return Answers.__call__(self, request)


@pytest.mark.parametrize("answerer_type", [Answers, AsyncAnswers])
async def test_the_answerer_picks_labels_per_question(tmp_path, answerer_type):
    answerer = answerer_type([["Blue"], ["Tests", "my own extra"]])
    location = make(tmp_path, answerer)
    answers = await location.question.ask([COLOR, EXTRAS], source=SOURCE, session_id="s1")
    assert answers == [["Blue"], ["Tests", "my own extra"]]
    [request] = answerer.requests
    assert request.questions == (COLOR, EXTRAS)
    assert dict(request.source) == SOURCE
    assert request.session_id == "s1"


async def test_tool_context_asks_with_the_canonical_source(tmp_path):
    answerer = Answers([["Red"]])
    location = make(tmp_path, answerer)
    ctx = ToolContext(location=location, session_id="s2", message_id="m3", call_id="c4")
    assert await ctx.question.ask([COLOR]) == [["Red"]]
    [request] = answerer.requests
    assert dict(request.source) == {"type": "tool", "message_id": "m3", "id": "c4"}
    assert request.session_id == "s2"


async def test_questions_may_be_plain_mappings(tmp_path):
    answerer = Answers([["Red"]])
    location = make(tmp_path, answerer)
    spelled = {
        "question": COLOR.question,
        "header": "Colour",
        "options": [
            {"label": "Red", "description": "warm"},
            {"label": "Blue", "description": "calm"},
        ],
    }
    await location.question.ask([spelled], source=SOURCE)
    assert answerer.requests[0].questions == (COLOR,)


@pytest.mark.parametrize("answerer_type", [Answers, AsyncAnswers])
async def test_none_dismisses_past_except_exception(tmp_path, answerer_type):
    location = make(tmp_path, answerer_type(None))
    with pytest.raises(QuestionDismissed):
        try:
            await location.question.ask([COLOR], source=SOURCE)
        except Exception:  # a leaf's blanket must not swallow the dismissal
            pytest.fail("QuestionDismissed was caught as an Exception")


async def test_an_answerer_may_raise_the_dismissal_itself(tmp_path):
    def answerer(request):
        raise QuestionDismissed("closed the dialog")

    with pytest.raises(QuestionDismissed, match="closed the dialog"):
        await make(tmp_path, answerer).question.ask([COLOR], source=SOURCE)


async def test_without_an_answerer_questions_are_dismissed(tmp_path):
    with pytest.raises(QuestionDismissed):
        await make(tmp_path).question.ask([COLOR], source=SOURCE)


async def test_no_questions_asks_nobody(tmp_path):
    answerer = Answers(None)
    assert await make(tmp_path, answerer).question.ask([], source=SOURCE) == []
    assert answerer.requests == []


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ([["Red"], ["Tests"]], "expected a list of 1 label lists"),
        ("Red", "expected a list of 1 label lists"),
        (["Red"], "expected a list of labels"),
        ([[1]], "non-text labels"),
        ([["Red", "Blue"]], "2 labels for single-choice question 'Colour'"),
    ],
)
async def test_a_malformed_reply_says_what_was_expected(tmp_path, reply, message):
    with pytest.raises(ReplyError, match=message):
        await make(tmp_path, Answers(reply)).question.ask([COLOR], source=SOURCE)


async def test_an_empty_answer_is_allowed(tmp_path):
    assert await make(tmp_path, Answers([[]])).question.ask([COLOR], source=SOURCE) == [[]]
