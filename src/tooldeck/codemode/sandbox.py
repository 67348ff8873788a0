"""The one module that talks to pydantic-monty: a warm worker pool and a session driver.

monty's API changed completely between 0.0.x and 1.x, so everything else in code mode
speaks this module's small vocabulary instead: a ``SandboxPool`` hands out one fresh
``SandboxSession`` per program; ``session.start(code)`` returns the first ``Step``;
each step is answered (``answer``, ``defer``, ``fail``, ``settle``) and returns the
next one, until ``Done``. Every monty exception is translated here into
``SandboxFailure`` with a ``kind`` the runner can act on.

The sync ``Monty`` pool is used on purpose: ``AsyncMonty`` aborts the host process at
interpreter exit in about half of all runs (pydantic-monty 1.4). Nothing here imports
monty at module import: ``SandboxPool.start`` does, on the first program.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple, TypeAlias

from tooldeck.codemode.workers import WorkerSlots

FailureKind: TypeAlias = Literal[
    "syntax", "typing", "runtime", "timeout", "memory", "printed", "suspensions", "crashed"
]

PRINT_LIMIT = 1 << 20
"""Bytes of ``print`` output one program may produce before it is stopped."""

SCRIPT_NAME = "program.py"

_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (error|warning|info)\[([\w-]+)\]", re.MULTILINE)


class Limits(NamedTuple):
    """What one program may use; ``suspensions`` bounds every host round trip."""

    timeout_s: float
    memory_bytes: int
    suspensions: int


class SandboxFailure(Exception):
    """A program that could not run or did not finish; ``text`` is for the model."""

    def __init__(self, kind: FailureKind, text: str, printed: str = "") -> None:
        super().__init__(text)
        self.kind = kind
        self.text = text
        self.printed = printed


class SandboxUnavailable(Exception):
    """The sandbox cannot start here (monty missing, or its worker cannot be spawned)."""


class Namespace:
    """A host object standing for one ``tools.<namespace>`` level inside the sandbox.

    Its class name is what ``type(tools.acme)`` shows in a program; its ``repr`` is what
    a program returning ``tools`` shows the model (never a host memory address).
    """

    def __repr__(self) -> str:
        return "<tools namespace: call its functions, e.g. await tools.<name>(...)>"


class SandboxPool:
    """A warm pool of ``monty`` worker processes; thread-safe; ``close()`` is idempotent."""

    def __init__(self, *, request_timeout: float | None, max_processes: int) -> None:
        self._request_timeout = request_timeout
        self._max_processes = max_processes
        self._pool: Any = None
        self._monty: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self.slots = WorkerSlots(max_processes)
        """Who holds a worker, and the threads programs' steps run on (``workers.py``)."""

    def start(self) -> None:
        """Import monty and spawn the first worker (no-op once started)."""
        with self._lock:
            if self._pool is not None:
                return
            if self._closed:
                raise SandboxUnavailable("the sandbox was closed with its Location")
            try:
                import pydantic_monty
            except ImportError as exc:
                raise SandboxUnavailable(f"pydantic-monty cannot be imported: {exc}") from exc
            pool = pydantic_monty.Monty(
                request_timeout=self._request_timeout, max_processes=self._max_processes
            )
            try:
                pool.__enter__()
            except Exception as exc:  # no worker binary, cannot spawn: code mode is off
                raise SandboxUnavailable(f"the monty worker cannot start: {exc}") from exc
            self._monty, self._pool = pydantic_monty, pool

    @property
    def started(self) -> bool:
        """Whether ``start`` has run (monty imported, the first worker spawned)."""
        return self._pool is not None

    @property
    def busy(self) -> bool:
        """True when every worker is checked out, so a new checkout would wait for one."""
        return self.slots.busy

    def session(
        self, limits: Limits, *, stubs: str | None, values: Mapping[str, Any]
    ) -> SandboxSession:
        """A fresh session (enter it with ``with``); ``stubs`` turns type checking on."""
        self.start()
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the sandbox was closed with its Location")
            checkout = self._pool.checkout(
                script_name=SCRIPT_NAME,
                limits={
                    "max_feed_duration_secs": limits.timeout_s,
                    "max_memory": limits.memory_bytes,
                    "max_suspensions": limits.suspensions,
                },
                type_check=stubs is not None,
                type_check_stubs=stubs,
                type_check_format="concise",
            )
        return SandboxSession(self, checkout, limits, values)

    def namespace(self, attributes: Mapping[str, Any]) -> Any:
        """A sandbox value for a ``Namespace`` whose attributes are ``attributes``.

        The attributes cross with the value (no round trip per ``tools.a.b``); method
        calls on it come back as ``Call`` steps naming the method and this value's id.
        """
        self.start()
        holder = Namespace()
        holder.__dict__.update(attributes)
        return self._monty.ClassInstance(holder, eager_attrs=list(attributes))

    def value_id(self, value: Any) -> Any:
        """The id ``Call.owner``/``Lookup.owner`` report for a ``namespace`` value."""
        return value.id

    def close(self) -> None:
        """Stop every worker. Sessions still running fail with ``crashed``."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        self.slots.close()
        if pool is not None:
            pool.__exit__(None, None, None)


class SandboxSession:
    """One program's worker: ``with session:``, then ``start(code)`` and answer steps."""

    def __init__(
        self, pool: SandboxPool, checkout: Any, limits: Limits, values: Mapping[str, Any]
    ) -> None:
        self._pool = pool
        self._checkout = checkout
        self._limits = limits
        self._values = values
        self._printed: Any = None
        self._pid: int | None = None

    def __enter__(self) -> SandboxSession:
        """Take a worker (blocks until one is free: call it off the event loop)."""
        self._checkout.__enter__()
        self._pid = self._checkout.worker_pid
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pid = None
        self._checkout.__exit__(None, None, None)

    def kill(self) -> None:
        """Stop the program now: kill its worker, so the step in flight fails with
        ``crashed`` at once (the pool replaces the worker). Safe from any thread."""
        pid = self._pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    @property
    def printed(self) -> str:
        """Everything the program printed so far."""
        return "" if self._printed is None else str(self._printed.output)

    def start(self, code: str, *, skip_type_check: bool = False) -> Step:
        """Parse, type-check (when the session has stubs) and run up to the first step.

        Raises ``SandboxFailure("typing")`` only for type *errors*; warnings alone are
        reported on the returned step (``warnings``) and the program runs.
        """
        monty = self._pool._monty
        self._printed = monty.CollectString(max_bytes=PRINT_LIMIT)
        try:
            snap = self._checkout.feed_start(
                code, print_callback=self._printed, skip_type_check=skip_type_check
            )
        except monty.MontyTypingError as exc:
            text = exc.display()
            errors = {m.group(2) for m in _DIAGNOSTIC.finditer(text) if m.group(1) == "error"}
            if errors:
                kind: FailureKind = "syntax" if errors == {"invalid-syntax"} else "typing"
                raise SandboxFailure(kind, text) from None
            step = self.start(code, skip_type_check=True)
            step.warnings = text.strip()
            return step
        except monty.MontyError as exc:
            raise self._failure(exc) from None
        return self._step(snap)

    # -- steps -------------------------------------------------------------------------------
    def _step(self, snap: Any) -> Step:
        monty = self._pool._monty
        kind = type(snap)
        if kind is monty.FunctionSnapshot:
            return Call(self, snap)
        if kind is monty.FutureSnapshot:
            return Wait(self, snap)
        if kind is monty.NameLookupSnapshot:
            return Lookup(self, snap)
        return Done(self, snap.output)

    def _resume(self, snap: Any, *args: Any, **kwargs: Any) -> Step:
        try:
            return self._step(snap.resume(*args, **kwargs))
        except self._pool._monty.MontyError as exc:
            raise self._failure(exc) from None

    def _failure(self, exc: Exception) -> SandboxFailure:
        """Translate a monty error into a ``SandboxFailure`` (the one translation point)."""
        monty = self._pool._monty
        printed = self.printed
        if isinstance(exc, monty.MontySyntaxError):
            return SandboxFailure("syntax", exc.display("traceback"), printed)
        if isinstance(exc, monty.MontyTypingError):
            return SandboxFailure("typing", exc.display(), printed)
        if isinstance(exc, monty.MontyCrashedError):
            kind: FailureKind = "timeout" if exc.timed_out else "crashed"
            return SandboxFailure(kind, str(exc), printed)
        if isinstance(exc, monty.MontyRuntimeError):
            return SandboxFailure(self._runtime_kind(exc), exc.display("traceback"), printed)
        return SandboxFailure("crashed", f"{type(exc).__name__}: {exc}", printed)

    def _runtime_kind(self, exc: Any) -> FailureKind:
        message = exc.display("type-msg")
        if message.startswith("TimeoutError: feed time limit exceeded"):
            return "timeout"
        if message.startswith("RuntimeError: suspension limit"):
            return "suspensions"
        if message.startswith("MemoryError: memory limit exceeded"):
            # The print collector reports its cap as a memory error of its own size.
            if len(self.printed) >= PRINT_LIMIT - 4096 or f"> {PRINT_LIMIT} bytes" in message:
                return "printed"
            return "memory"
        return "runtime"


class Lookup:
    """The program read a global name (``tools``, ``search``) that it did not define."""

    __slots__ = ("_session", "_snap", "warnings")
    kind = "lookup"

    def __init__(self, session: SandboxSession, snap: Any) -> None:
        self._session = session
        self._snap = snap
        self.warnings = ""

    @property
    def name(self) -> str:
        return str(self._snap.variable_name)

    def answer(self) -> Step:
        """Bind the name to the session's value for it, or raise ``NameError`` inside."""
        value = self._session._values.get(self.name)
        if value is None:
            return self._session._resume(self._snap)
        return self._session._resume(self._snap, value=value)


class Call:
    """The program called a host function or a ``Namespace`` method."""

    __slots__ = ("_session", "_snap", "warnings")
    kind = "call"

    def __init__(self, session: SandboxSession, snap: Any) -> None:
        self._session = session
        self._snap = snap
        self.warnings = ""

    @property
    def id(self) -> int:
        return int(self._snap.call_id)

    @property
    def name(self) -> str:
        return str(self._snap.function_name)

    @property
    def owner(self) -> Any:
        """The id of the ``Namespace`` value whose method this is (``None`` for functions)."""
        return self._snap.object_id

    @property
    def args(self) -> Sequence[Any]:
        return tuple(self._snap.args)

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self._snap.kwargs)

    @property
    def is_os(self) -> bool:
        """A file, directory or clock call: refused, the sandbox reaches only the tools."""
        return bool(self._snap.is_os_function)

    def defer(self) -> Step:
        """Answer with a future: the value comes later, through ``Wait.settle``."""
        return self._session._resume(self._snap, {"future": ...})

    def fail(self, exc_type: str, message: str) -> Step:
        """Raise ``exc_type(message)`` at the call site (the program may catch it)."""
        return self._session._resume(self._snap, {"exc_type": exc_type, "message": message})

    def refuse_os(self) -> Step:
        """Let the sandbox apply its own refusal (a ``PermissionError`` inside)."""
        try:
            return self._session._step(self._snap.resume_not_handled())
        except self._session._pool._monty.MontyError as exc:
            raise self._session._failure(exc) from None


class Settled(NamedTuple):
    """The result of one deferred call: a value, or an exception to raise inside."""

    value: Any = None
    exc_type: str | None = None
    message: str = ""


class Wait:
    """The program awaits deferred calls; ``call_ids`` are every call still unanswered."""

    __slots__ = ("_session", "_snap", "warnings")
    kind = "wait"

    def __init__(self, session: SandboxSession, snap: Any) -> None:
        self._session = session
        self._snap = snap
        self.warnings = ""

    @property
    def call_ids(self) -> list[int]:
        return list(self._snap.pending_call_ids)

    def settle(self, results: Mapping[int, Settled]) -> Step:
        answers = {
            call_id: (
                {"return_value": r.value}
                if r.exc_type is None
                else {"exc_type": r.exc_type, "message": r.message}
            )
            for call_id, r in results.items()
        }
        return self._session._resume(self._snap, answers)


class Done:
    """The program finished; ``output`` is its last expression's value."""

    __slots__ = ("_session", "output", "warnings")
    kind = "done"

    def __init__(self, session: SandboxSession, output: Any) -> None:
        self._session = session
        self.output = output
        self.warnings = ""


Step: TypeAlias = Lookup | Call | Wait | Done
