"""The vocabulary of a program's conversation with the sandbox: plain values.

``sandbox.SandboxSession.conversation`` yields the steps (``Wait``, then ``Done``) and is
sent their answers (``Settle``); each host function the program calls comes as a
``Call``, answered ``Defer`` or ``Raise``. A program that cannot run or does not finish
raises ``SandboxFailure``. The runner reads and builds these, and ``workers.py`` hands
them between threads, without calling into the sandbox: only ``sandbox.py`` translates
them to and from monty's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, TypeAlias

FailureKind: TypeAlias = Literal[
    "syntax", "typing", "runtime", "timeout", "memory", "printed", "suspensions", "crashed"
]


class SandboxFailure(Exception):
    """A program that could not run or did not finish; ``text`` is for the model."""

    def __init__(self, kind: FailureKind, text: str, printed: str = "") -> None:
        super().__init__(text)
        self.kind = kind
        self.text = text
        self.printed = printed


class Call(NamedTuple):
    """The program called a host function (``owner`` ``None``) or a method of the
    ``Namespace`` value whose id is ``owner``."""

    id: int
    name: str
    owner: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class Wait(NamedTuple):
    """The program awaits deferred calls; ``call_ids`` are every call still unanswered, in
    the order the program made them."""

    call_ids: list[int]


class Done(NamedTuple):
    """The program finished: its last expression's value, what it printed, and the type
    checker's warnings (the program ran despite them)."""

    output: Any
    printed: str
    warnings: str


Step: TypeAlias = Wait | Done


class Defer(NamedTuple):
    """Answer a ``Call`` with a future: its value comes later, with the ``Wait``'s ``Settle``."""


class Raise(NamedTuple):
    """Answer a ``Call`` by raising ``exc_type(message)`` at the call site (catchable)."""

    exc_type: str
    message: str


class Settled(NamedTuple):
    """The result of one deferred call: a value, or an exception to raise inside."""

    value: Any = None
    exc_type: str | None = None
    message: str = ""


class Settle(NamedTuple):
    """Answer a ``Wait``: the result of every call it names."""

    results: Mapping[int, Settled]


CallAnswer: TypeAlias = Defer | Raise
