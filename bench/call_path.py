"""How many tooldeck modules one call visits, and how often it re-enters one it left.

    .venv/bin/python bench/call_path.py            # this tree
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
host calling the next public function of the turn).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

import tooldeck
from tooldeck import Location, ToolCall, ToolService, run_tool_call, tool
from tooldeck.providers import calls_from, results_for, run_tool_calls

ROOT = str(Path(tooldeck.__file__).parent)


def _module(frame: FrameType) -> str | None:
    filename = frame.f_code.co_filename
    if not filename.startswith(ROOT):
        return None
    return "tooldeck" + filename[len(ROOT) : -3].replace("/", ".").removesuffix(".__init__")


class Tracer:
    """Collects the modules entered and the cross-module calls into one already entered."""

    def __init__(self) -> None:
        self.modules: list[str] = []
        self.reentries: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = _module(frame)
        if callee is None:
            return
        caller = frame.f_back
        while caller is not None and _module(caller) is None:
            caller = caller.f_back  # through the event loop or a library, to tooldeck
        came_from = _module(caller) if caller is not None else None
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


def traced(run: Any) -> dict[str, Any]:
    run()  # warm: caches a first call fills are not part of the path
    tracer = Tracer()
    sys.setprofile(tracer)
    try:
        run()
    finally:
        sys.setprofile(None)
    return tracer.report()


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
