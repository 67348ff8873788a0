"""The one module that talks to pydantic-monty: a warm worker pool and a session driver.

monty's API changed completely between 0.0.x and 1.x, so everything else in code mode
speaks a small vocabulary of its own instead (``conversation.py``): a ``SandboxSession``
(one per program, on a warm ``SandboxPool``) runs the program as one ``conversation``
generator: each host function the program calls is a ``Call`` answered on the spot by
the caller's ``answer_call`` (``Defer`` or ``Raise``: bookkeeping, no waiting), and the
conversation yields each ``Wait`` the host must ``Settle`` and ends with ``Done``. The
conversation reads as one function, top to bottom; translating its steps and answers to
and from monty's is this module's alone. Every monty exception is translated here into
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
from collections.abc import Callable, Generator, Mapping
from typing import Any, NamedTuple

from tooldeck.codemode.conversation import (
    Call,
    CallAnswer,
    Defer,
    Done,
    FailureKind,
    Raise,
    SandboxFailure,
    Settle,
    Settled,
    Step,
    Wait,
)
from tooldeck.codemode.workers import WorkerSlots

PRINT_LIMIT = 1 << 20
"""Bytes of ``print`` output one program may produce before it is stopped."""

SCRIPT_NAME = "program.py"

_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (error|warning|info)\[([\w-]+)\]", re.MULTILINE)


class Limits(NamedTuple):
    """What one program may use; ``suspensions`` bounds every host round trip."""

    timeout_s: float
    memory_bytes: int
    suspensions: int


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
        self.started = False
        """Whether ``start`` has run (monty imported, the first worker spawned) and the pool
        is not closed since."""
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
            self.started = True

    @property
    def busy(self) -> bool:
        """True when every worker is checked out, so a new checkout would wait for one."""
        return self.slots.busy

    def checkout(self, limits: Limits, stubs: str | None) -> Any:
        """A fresh monty session (``with`` it to take a worker: blocks until one is free);
        ``stubs`` turns type checking on."""
        self.start()
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the sandbox was closed with its Location")
            return self._pool.checkout(
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
        """The id a ``Call`` names as its ``owner`` for a method of a ``namespace`` value."""
        return value.id

    def close(self) -> None:
        """Stop every worker. Sessions still running fail with ``crashed``."""
        with self._lock:
            self._closed = True
            self.started = False
            pool, self._pool = self._pool, None
        self.slots.close()
        if pool is not None:
            pool.__exit__(None, None, None)


class SandboxSession:
    """One program's worker and its conversation with the host (``conversation``)."""

    def __init__(
        self, pool: SandboxPool, limits: Limits, *, stubs: str | None, values: Mapping[str, Any]
    ) -> None:
        self._pool = pool
        self._limits = limits
        self._stubs = stubs
        self._values = values
        self._printed: Any = None
        self._pid: int | None = None
        self.started = False
        """Whether the conversation began (taking its worker, then running the program)."""

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

    def conversation(
        self,
        code: str,
        answer_call: Callable[[Call], CallAnswer],
        settle_here: Callable[[list[int]], Settle | None] = lambda call_ids: None,
    ) -> Generator[Step, Settle, None]:
        """The whole program as one conversation: take a worker, parse, type-check (when
        the session has stubs) and run ``code``, yielding each ``Wait`` and being sent its
        ``Settle``, until the ``Done`` it yields last.

        Each ``Call`` is answered by ``answer_call`` right here, on the thread driving the
        conversation: a nested call then costs the host one round trip (its ``Wait``),
        not two (``bench/DECISIONS.md``). ``settle_here(call_ids)`` is asked first for
        each wait, on that thread too: a ``Settle`` it returns answers the wait without
        the host, ``None`` yields the ``Wait``.

        Every step blocks on the worker: drive it off the event loop (``workers.py``).
        Name lookups and file or clock calls are answered here, without the host: the
        values are the session's, and the sandbox refuses the others itself. Closing the
        generator gives the worker back. Raises ``SandboxFailure`` for a program that
        could not run or did not finish (``typing`` only for type *errors*; warnings
        alone come with ``Done``).
        """
        self.started = True
        checkout = self._pool.checkout(self._limits, self._stubs)
        checkout.__enter__()
        self._pid = checkout.worker_pid
        try:
            snap, warnings = self._start(checkout, code)
            monty = self._pool._monty
            while True:
                kind = type(snap)
                if kind is monty.NameLookupSnapshot:
                    snap = self._resume(snap.resume, **self._bound(snap.variable_name))
                elif kind is monty.FunctionSnapshot and snap.is_os_function:
                    snap = self._resume(snap.resume_not_handled)
                elif kind is monty.FunctionSnapshot:
                    call = Call(
                        int(snap.call_id),
                        str(snap.function_name),
                        snap.object_id,
                        tuple(snap.args),
                        dict(snap.kwargs),
                    )
                    snap = self._resume(snap.resume, _call_answer(answer_call(call)))
                elif kind is monty.FutureSnapshot:
                    call_ids = sorted(snap.pending_call_ids)  # monty's order varies
                    answer = settle_here(call_ids)
                    if answer is None:
                        answer = yield Wait(call_ids)
                    assert type(answer) is Settle
                    snap = self._resume(snap.resume, _settled(answer.results))
                else:
                    yield Done(snap.output, self.printed, warnings)
                    return
        finally:
            self._pid = None
            checkout.__exit__(None, None, None)

    def _start(self, checkout: Any, code: str) -> tuple[Any, str]:
        """The first snapshot, and the type checker's warnings when it found no errors."""
        monty = self._pool._monty
        self._printed = monty.CollectString(max_bytes=PRINT_LIMIT)
        try:
            return checkout.feed_start(code, print_callback=self._printed), ""
        except monty.MontyTypingError as exc:
            text = exc.display()
            errors = {m.group(2) for m in _DIAGNOSTIC.finditer(text) if m.group(1) == "error"}
            if errors:
                kind: FailureKind = "syntax" if errors == {"invalid-syntax"} else "typing"
                raise SandboxFailure(kind, text) from None
            self._printed = monty.CollectString(max_bytes=PRINT_LIMIT)
            warnings = text.strip()
        except monty.MontyError as exc:
            raise self._failure(exc) from None
        try:
            snap = checkout.feed_start(code, print_callback=self._printed, skip_type_check=True)
        except monty.MontyError as exc:
            raise self._failure(exc) from None
        return snap, warnings

    def _bound(self, name: str) -> dict[str, Any]:
        """How a name lookup resumes: bound to the session's value, or ``NameError``."""
        value = self._values.get(name)
        return {} if value is None else {"value": value}

    def _resume(self, resume: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return resume(*args, **kwargs)
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


def _call_answer(answer: CallAnswer) -> dict[str, Any]:
    if type(answer) is Defer:
        return {"future": ...}
    assert type(answer) is Raise
    return {"exc_type": answer.exc_type, "message": answer.message}


def _settled(results: Mapping[int, Settled]) -> dict[int, dict[str, Any]]:
    return {
        call_id: (
            {"return_value": r.value}
            if r.exc_type is None
            else {"exc_type": r.exc_type, "message": r.message}
        )
        for call_id, r in results.items()
    }
