"""Scripted stand-ins for the user: a permission asker and a question answerer.

A host's asker is a prompt and its answerer a question UI; a test needs both to answer
from a script and to remember what they were asked. These are plain callables of the
``Asker`` and ``Answerer`` shapes, so they plug into ``Location``/``Host.open`` as is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from tooldeck.host.permissions.request import PermissionRequest, Reject
from tooldeck.host.permissions.wildcard import match

if TYPE_CHECKING:
    from tooldeck.host.location.questions import Answers, Question, QuestionRequest
    from tooldeck.host.permissions.request import Reply

__all__ = ["AnswerScript", "ReplyScript", "ScriptedAnswerer", "ScriptedAsker"]

ReplyScript: TypeAlias = str | Reject | Callable[[PermissionRequest], Any]
"""``"once"`` (alias ``"allow"``), ``"always"``, ``"reject"``, ``Reject(feedback)``, or a
callable that receives the request and returns one of those."""

AnswerScript: TypeAlias = "list[str] | tuple[str, ...] | str | Callable[[Question], Any] | None"
"""The labels chosen for one question: a list, one label as a str, ``None`` (dismiss the
whole set), or a callable that receives the ``Question`` and returns one of those."""

_REPLIES = ("once", "allow", "always", "reject")
# Most restrictive first: a request is approved only as far as its strictest resource.
_RANK = {"reject": 0, "once": 1, "always": 2}


def _checked_reply(reply: object) -> None:
    """Refuse a misspelt reply when it is scripted, not when a tool first asks."""
    if isinstance(reply, str) and reply not in _REPLIES:
        raise ValueError(
            f"unknown reply {reply!r}; expected one of {', '.join(_REPLIES)}, "
            "Reject(feedback) or a callable"
        )
    if not isinstance(reply, str | Reject) and not callable(reply):
        raise TypeError(f"reply {reply!r} is not a str, Reject(feedback) or a callable")


@dataclass(eq=False)
class ScriptedAsker:
    """A permission asker that replies from a script and records every request.

    ``replies`` maps an action to its reply; ``default`` answers every other action
    (``"once"``: allow, without saving anything). ``on(action, reply, resource=pattern)``
    adds a reply for the resources matching a permission pattern (``*``, ``?``, ``**/``,
    ``"git push *"``); the most recently added matching pattern wins.

    A request can carry several resources. Each is answered on its own (resource rule,
    else the action's reply, else ``default``) and the strictest answer is the reply:
    any rejection rejects the request (the first one, in resource order); otherwise any
    ``"once"`` beats ``"always"``. So a request is never approved more widely than its
    most restricted resource.
    """

    replies: dict[str, ReplyScript] = field(default_factory=dict)
    default: ReplyScript = "once"
    requests: list[PermissionRequest] = field(default_factory=list)
    rules: list[tuple[str, str, ReplyScript]] = field(default_factory=list)
    """``(action, resource pattern, reply)`` added by ``on(..., resource=...)``."""

    def __post_init__(self) -> None:
        for reply in (*self.replies.values(), self.default, *(r for *_, r in self.rules)):
            _checked_reply(reply)

    def on(self, action: str, reply: ReplyScript, *, resource: str | None = None) -> ScriptedAsker:
        """Script ``reply`` for ``action`` (only its resources matching ``resource``)."""
        _checked_reply(reply)
        if resource is None:
            self.replies[action] = reply
        else:
            self.rules.append((action, resource, reply))
        return self

    def asked(self, action: str | None = None) -> list[PermissionRequest]:
        """The requests so far, in order; only those for ``action`` when given."""
        return [r for r in self.requests if action is None or r.action == action]

    def __call__(self, request: PermissionRequest) -> Reply:
        self.requests.append(request)
        scripts = [self._script(request.action, r) for r in request.resources or ("*",)]
        replies = [_resolve(script, request) for script in _unique(scripts)]
        return min(replies, key=_strictness)

    def _script(self, action: str, resource: str) -> ReplyScript:
        for rule_action, pattern, reply in reversed(self.rules):
            if rule_action == action and match(pattern, resource):
                return reply
        return self.replies.get(action, self.default)


def _unique(scripts: list[ReplyScript]) -> list[ReplyScript]:
    """Each distinct script once, in first-seen order (a callable is asked once)."""
    seen: list[ReplyScript] = []
    for script in scripts:
        if not any(script is other for other in seen):
            seen.append(script)
    return seen


def _resolve(script: ReplyScript, request: PermissionRequest) -> Reply:
    reply = script(request) if callable(script) else script
    _checked_reply(reply)
    if callable(reply):
        raise TypeError(f"a reply callable returned another callable: {reply!r}")
    return "once" if reply == "allow" else reply  # type: ignore[return-value]  # checked


def _strictness(reply: Reply) -> int:
    return _RANK["reject" if isinstance(reply, Reject) else reply]


@dataclass(eq=False)
class ScriptedAnswerer:
    """A question answerer that answers from a script and records every request.

    ``answers``, when set, is returned whole for every request (one label list per
    question). Otherwise each question is looked up in ``by_question`` by its header,
    then by its full text, else ``default``. Any question whose answer is ``None``
    dismisses the whole set, as a user closing the dialog would; the default ``None``
    therefore dismisses everything that was not scripted.
    """

    answers: Answers | None = None
    by_question: dict[str, AnswerScript] = field(default_factory=dict)
    default: AnswerScript = None
    requests: list[QuestionRequest] = field(default_factory=list)

    def on(self, question: str, answer: AnswerScript) -> ScriptedAnswerer:
        """Script ``answer`` for the question with this header (or full text)."""
        self.by_question[question] = answer
        return self

    @property
    def questions(self) -> list[Question]:
        """Every question asked so far, in order, across requests."""
        return [q for request in self.requests for q in request.questions]

    def __call__(self, request: QuestionRequest) -> Answers | None:
        self.requests.append(request)
        if self.answers is not None:
            return self.answers
        chosen = [self._answer(question) for question in request.questions]
        if any(labels is None for labels in chosen):
            return None
        return [labels for labels in chosen if labels is not None]

    def _answer(self, question: Question) -> list[str] | None:
        script = _lookup(self.by_question, question, self.default)
        answer = script(question) if callable(script) else script
        if answer is None:
            return None
        return [answer] if isinstance(answer, str) else list(answer)


def _lookup(
    scripts: Mapping[str, AnswerScript], question: Question, default: AnswerScript
) -> AnswerScript:
    if question.header in scripts:
        return scripts[question.header]
    return scripts.get(question.question, default)
