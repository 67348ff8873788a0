"""How many tooldeck modules one call visits, and how often it re-enters one it left.

    .venv/bin/python bench/call_path.py            # this tree
    .venv/bin/python bench/call_path.py -v         # and which modules, which re-entries
    PYTHONPATH=/other/tree/src .venv/bin/python bench/call_path.py   # another tree

A structural measure, not a timing: a reader tracing a call opens every module it
visits, and each re-entry is a jump back to a file already read. Two paths are traced
(warm: each runs once untraced first, so first-use caches are filled):

* a provider turn: ``calls_from`` -> ``run_tool_calls`` -> ``results_for`` for one
  OpenAI tool call of a ``tool(fn)`` tool;
* a code-mode program with one nested call: ``run_tool_call(snapshot, execute)``.

Counted with ``sys.setprofile``: every Python function call whose code lives under the
``tooldeck`` package. A *module* is the file of the called function. A *re-entry* is a
call from one module into another module that an earlier cross-module call already
entered (returning to a caller is not counted: that is the caller resuming; nor is the
host calling the next public function of the turn). Two more rules, since the profiler
reports more than calls and sees less than the path:

* **A coroutine or generator resuming is not a call.** ``sys.setprofile`` fires a
  ``call`` event each time a suspended frame resumes: when an awaited future completes,
  every coroutine in the awaiting chain (``run_tool_call`` -> ... -> the runner ->
  ``ProgramWorker.run``) "calls" the next one again, and a ``with`` block's
  ``@contextmanager`` generator is "called" again at its exit. A reader reads
  ``await worker.run(step)`` once and opens no file when it resumes, so a frame the
  tracer has already seen start is skipped.
* **A function handed to a thread pool is called by whoever handed it over.** Code mode
  runs every sandbox step on the sandbox's own threads (``codemode/workers.py``), which
  a per-thread profiler never sees; ``ThreadPoolExecutor.submit`` is wrapped while
  tracing so the function runs traced, as a call from the module that submitted it
  (the reader follows ``threads.submit(session.start, code)`` into ``sandbox.py``).

``as_before`` reports the same run counted as this script first did (resumes counted,
threads unseen): on the tree the rules were added to (issue 20), the code-mode program
measured 17 modules and 59 re-entries that way, and 17 and 45 with both rules (33
without resumes, +12 for the sandbox steps on threads); see ``RESULTS.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any

import tooldeck
from tooldeck import Location, ToolCall, ToolService, run_tool_call, tool
from tooldeck.providers import calls_from, results_for, run_tool_calls

ROOT = str(Path(tooldeck.__file__).parent)
SUSPENDABLE = (
    inspect.CO_COROUTINE
    | inspect.CO_GENERATOR
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)


def _module(frame: FrameType) -> str | None:
    filename = frame.f_code.co_filename
    if not filename.startswith(ROOT):
        return None
    return "tooldeck" + filename[len(ROOT) : -3].replace("/", ".").removesuffix(".__init__")


def _caller_module(frame: FrameType | None) -> str | None:
    """The tooldeck module of the nearest tooldeck frame at or above ``frame``."""
    while frame is not None:
        module = _module(frame)
        if module is not None:
            return module
        frame = frame.f_back  # through the event loop or a library, to tooldeck
    return None


class Tally:
    """The modules entered, in order, and the cross-module calls into one already entered."""

    def __init__(self) -> None:
        self.modules: list[str] = []
        self.reentries: list[str] = []

    def enter(self, came_from: str | None, callee: str) -> None:
        if came_from == callee:
            return
        if callee not in self.modules:
            self.modules.append(callee)
        elif came_from is not None:  # the host calling in again is its loop, not the path
            self.reentries.append(f"{came_from} -> {callee}")

    def report(self) -> dict[str, Any]:
        return {
            "modules": len(self.modules),
            "reentries": len(self.reentries),
            "visited": self.modules,
            "reentered": self.reentries,
        }


class Tracer:
    """A profile function keeping two tallies: the rules above, and the first rules."""

    def __init__(self) -> None:
        self.now = Tally()
        self.before = Tally()  # resumes counted, threads unseen
        self._started: set[FrameType] = set()  # held, so no frame id is reused meanwhile
        self._lock = threading.Lock()
        self._local = threading.local()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = _module(frame)
        if callee is None:
            return
        with self._lock:
            resumed = False
            if frame.f_code.co_flags & SUSPENDABLE:
                resumed = frame in self._started
                self._started.add(frame)
            came_from = _caller_module(frame.f_back)
            handed_by = getattr(self._local, "handed_by", None)
            if handed_by is None:
                self.before.enter(came_from, callee)
            if not resumed:
                self.now.enter(came_from or handed_by, callee)

    def handed(self, fn: Callable[..., Any], handed_by: str | None) -> Callable[..., Any]:
        """``fn`` run traced on a pool thread, as a call from ``handed_by``."""

        def run(*args: Any, **kwargs: Any) -> Any:
            self._local.handed_by = handed_by
            sys.setprofile(self)
            try:
                return fn(*args, **kwargs)
            finally:
                sys.setprofile(None)
                self._local.handed_by = None

        return run


@contextlib.contextmanager
def _following_threads(tracer: Tracer) -> Iterator[None]:
    """While tracing, what a thread pool runs is traced too, as the submitter's call."""
    submit = ThreadPoolExecutor.submit

    def traced_submit(
        self: ThreadPoolExecutor, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> Any:
        handed_by = _caller_module(sys._getframe(1))
        return submit(self, tracer.handed(fn, handed_by), *args, **kwargs)

    ThreadPoolExecutor.submit = traced_submit  # type: ignore[method-assign]
    try:
        yield
    finally:
        ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]


def traced(run: Callable[[], None]) -> dict[str, Any]:
    run()  # warm: caches a first call fills are not part of the path
    tracer = Tracer()
    with _following_threads(tracer):
        sys.setprofile(tracer)
        try:
            run()
        finally:
            sys.setprofile(None)
    report = tracer.now.report()
    before = tracer.before.report()
    report["as_before"] = {"modules": before["modules"], "reentries": before["reentries"]}
    return report


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _location() -> Location:
    return Location(tempfile.mkdtemp(), data_dir=tempfile.mkdtemp())


def provider_turn() -> dict[str, Any]:
    service = ToolService(_location())
    service.transform(lambda editor: editor.add(tool(add)), source="bench")
    snapshot = service.snapshot()
    reply = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
            }
        ],
    }

    def run() -> None:
        calls = calls_from("openai", reply)
        turn = asyncio.run(run_tool_calls(snapshot, calls))
        results_for("openai", zip(calls, turn.outcomes, strict=True))

    return traced(run)


def codemode_program() -> dict[str, Any]:
    from tooldeck.codemode import CodeMode

    provider = CodeMode()
    try:
        service = ToolService(_location(), codemode=provider)
        service.transform(
            lambda editor: editor.add(tool(add).replace(codemode=True)), source="bench"
        )
        snapshot = service.snapshot()
        code = "await tools.add(a=1, b=2)"
        call = ToolCall("c1", "execute", {"code": code})

        def run() -> None:
            outcome = asyncio.run(run_tool_call(snapshot, call))
            assert outcome.status == "completed", outcome

        return traced(run)
    finally:
        provider.close()


def main() -> None:
    verbose = "-v" in sys.argv
    found = {"provider turn": provider_turn(), "code-mode program": codemode_program()}
    if not verbose:
        for report in found.values():
            del report["visited"], report["reentered"]
    print(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
