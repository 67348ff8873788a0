"""Questions a tool puts to the user, through the host's answerer (``Location.answerer``).

The answerer receives every question of one call at once and returns the chosen labels
per question, in order. Returning ``None`` dismisses the whole set (as does raising
``QuestionDismissed``); a Location without an answerer dismisses every question.
Dismissal is a decline signal: it travels past leaf code to the session boundary.

Answers are not restricted to the option labels, so a host may offer a free-text
"other" answer; a question with ``multiple=False`` gets at most one answer.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, TypeAlias

from tooldeck._public import public
from tooldeck.errors import QuestionDismissed, ReplyError

Answers: TypeAlias = list[list[str]]
"""The chosen labels, one list per question, in the order asked."""


@public
@dataclass(frozen=True, slots=True)
class Option:
    """One choice: the label the user picks and what it means."""

    label: str
    description: str = ""


@public
@dataclass(frozen=True, slots=True)
class Question:
    """One question: full text, a short header for UIs, its options, single or multiple."""

    question: str
    header: str
    options: tuple[Option, ...] = ()
    multiple: bool = False

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Question:
        """From ``{question, header, options: [{label, description}], multiple}``."""
        options = tuple(
            Option(option["label"], option.get("description", ""))
            for option in data.get("options", ())
        )
        return cls(data["question"], data["header"], options, bool(data.get("multiple")))


@public
@dataclass(frozen=True, slots=True)
class QuestionRequest:
    """What the answerer sees: the questions, and the call that asks them."""

    questions: tuple[Question, ...]
    source: Mapping[str, Any]
    session_id: str = ""


@public
class Answerer(Protocol):
    """The host's question UI; sync or async. ``None`` means dismissed."""

    def __call__(self, request: QuestionRequest) -> Answers | Awaitable[Answers | None] | None: ...


@public
class QuestionService:
    """Questions to the user for one Location (``Location.question``, which builds it).

    ``answerer`` returns the Location's answerer when a question needs it, so one
    replaced while the Location is open answers the next question.
    """

    def __init__(self, answerer: Callable[[], Answerer | None]) -> None:
        self._answerer = answerer

    def gate(self, source: Mapping[str, Any], *, session_id: str = "") -> QuestionGate:
        """This service bound to one call's source and session (``ctx.question``)."""
        return QuestionGate(self, source, session_id)

    async def ask(
        self,
        questions: Sequence[Question | Mapping[str, Any]],
        *,
        source: Mapping[str, Any],
        session_id: str = "",
    ) -> Answers:
        """The chosen labels per question; raises ``QuestionDismissed`` when dismissed."""
        asked = tuple(q if isinstance(q, Question) else Question.from_mapping(q) for q in questions)
        if not asked:
            return []
        answerer = self._answerer()
        if answerer is None:
            raise QuestionDismissed("no answerer: questions are dismissed")
        request = QuestionRequest(asked, MappingProxyType(dict(source)), session_id)
        reply = answerer(request)
        if inspect.isawaitable(reply):
            reply = await reply
        if reply is None:
            raise QuestionDismissed("the user dismissed the question")
        return _checked(asked, reply)


def _checked(questions: tuple[Question, ...], reply: object) -> Answers:
    """The answerer's reply as fresh lists, or an error saying what it got wrong."""
    if isinstance(reply, str) or not isinstance(reply, Sequence) or len(reply) != len(questions):
        raise ReplyError(
            f"answerer returned {reply!r}; expected a list of {len(questions)} label lists"
        )
    return [_labels(question, chosen) for question, chosen in zip(questions, reply, strict=True)]


def _labels(question: Question, chosen: object) -> list[str]:
    if isinstance(chosen, str) or not isinstance(chosen, Sequence):
        raise ReplyError(
            f"answerer returned {chosen!r} for {question.header!r}; expected a list of labels"
        )
    labels = list(chosen)
    if not all(isinstance(label, str) for label in labels):
        raise ReplyError(f"answerer returned non-text labels for {question.header!r}")
    if len(labels) > 1 and not question.multiple:
        raise ReplyError(
            f"answerer chose {len(labels)} labels for single-choice question {question.header!r}"
        )
    return labels


@public
@dataclass(frozen=True, slots=True)
class QuestionGate:
    """A ``QuestionService`` bound to one call's canonical source and session."""

    service: QuestionService
    source: Mapping[str, Any]
    session_id: str = ""

    async def ask(self, questions: Sequence[Question | Mapping[str, Any]]) -> Answers:
        """``QuestionService.ask`` with this gate's source and session."""
        return await self.service.ask(questions, source=self.source, session_id=self.session_id)
