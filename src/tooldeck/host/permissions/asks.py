"""How asks are answered in this task: deferred or awaited (``OnAsk``), and answers
given ahead.

Both are context variables, so they follow one call through the tasks it starts (code
mode's nested calls) and never leak into a concurrent call. ``run_tool_call(on_ask=...)``
sets ``asks_deferred``; a resumed call runs inside ``answers_in_place``, whose replies
answer the asks they match (same action, resources among those answered) without
reaching the asker.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Literal, TypeAlias

from tooldeck.host.permissions.request import Reply

OnAsk: TypeAlias = Literal["ask", "defer"]
"""What a permission ask does: ``ask`` awaits the asker; ``defer`` ends the call
``pending`` (``PermissionDeferred``), to be answered later with ``host.resume``."""

_on_ask: contextvars.ContextVar[OnAsk | None] = contextvars.ContextVar(
    "tooldeck_on_ask", default=None
)
_answers: contextvars.ContextVar[tuple[tuple[str, frozenset[str], Reply], ...]] = (
    contextvars.ContextVar("tooldeck_answers", default=())
)


def deferring(default: OnAsk) -> bool:
    """Whether an ask here is deferred: this task's ``on_ask``, else ``default`` (the
    Location's)."""
    return (_on_ask.get() or default) == "defer"


def set_on_ask(on_ask: OnAsk) -> contextvars.Token[OnAsk | None]:
    """``asks_deferred`` without the context manager, for ``run_tool_call(on_ask=...)``,
    where the generator's cost was half a call's (``restore_on_ask`` undoes it)."""
    return _on_ask.set(on_ask)


def restore_on_ask(token: contextvars.Token[OnAsk | None]) -> None:
    """Undo ``set_on_ask``."""
    _on_ask.reset(token)


@contextlib.contextmanager
def asks_deferred(on_ask: OnAsk) -> Iterator[None]:
    """Within the block (this task, and the tasks it starts), asks do what ``on_ask``
    says, whatever the Location's default."""
    token = _on_ask.set(on_ask)
    try:
        yield
    finally:
        _on_ask.reset(token)


Answer: TypeAlias = tuple[str, tuple[str, ...], Reply]
"""An answer given ahead of its ask: ``(action, resources, reply)``."""


@contextlib.contextmanager
def answers_in_place(answers: Sequence[Answer]) -> Iterator[None]:
    """Within the block, an ask for an answer's action on some of its resources gets its
    reply without reaching the asker: how a resumed call meets the answers to its
    questions."""
    added = tuple((action, frozenset(resources), reply) for action, resources, reply in answers)
    token = _answers.set((*_answers.get(), *added))
    try:
        yield
    finally:
        _answers.reset(token)


def answers_given() -> tuple[Answer, ...]:
    """The answers in place here (a call deferred again carries them to its next resume)."""
    return tuple((a, tuple(sorted(r)), reply) for a, r, reply in _answers.get())


def answer_in_place(action: str, asked: tuple[str, ...]) -> Reply | None:
    for answered_action, answered, reply in _answers.get():
        if answered_action == action and answered.issuperset(asked):
            return reply
    return None
