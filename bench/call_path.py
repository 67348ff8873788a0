"""How many tooldeck modules one call visits, and how often it re-enters one it left.

    .venv/bin/python bench/call_path.py            # this tree
    .venv/bin/python bench/call_path.py -v         # and which modules, which re-entries
    .venv/bin/python bench/call_path.py --write    # and its section of RESULTS.md
    PYTHONPATH=/other/tree/src .venv/bin/python bench/call_path.py   # another tree

A structural measure, not a timing: a reader tracing a call opens every module it
visits, and each re-entry is a jump back to a file already read. Three paths are traced
(warm: each runs once untraced first, so first-use caches are filled):

* a provider turn, once per wire format (``openai``, ``openai-responses``,
  ``anthropic``, ``gemini``, ``mcp``): ``calls_from`` -> ``run_tool_calls`` ->
  ``results_for`` for one tool call of a ``tool(fn)`` tool, in the reply each
  provider sends (the OpenAI APIs' arguments as JSON text, the others' as an object);
* a code-mode program with one nested call: ``run_tool_call(snapshot, execute)``;
* a served call: one ``tools/call`` of a ``tool(fn)`` tool through the catalog server of
  ``tooldeck mcp serve``, from the SDK's own client connected in memory (one session, as
  over stdio; no principal, telemetry off). Only the server's side is tooldeck's, so only
  it is counted: from the SDK handing the request over to the result handed back.

Counted with ``sys.setprofile``: every Python function call whose code lives under the
``tooldeck`` package. A *module* is the file of the called function. A *re-entry* is a
call from one module into another module that an earlier cross-module call already
entered (returning to a caller is not counted: that is the caller resuming; nor is the
host calling the next public function of the turn). Two more rules, since the profiler
reports more than calls and sees less than the path:

* **A coroutine or generator resuming is not a call.** ``sys.setprofile`` fires a
  ``call`` event each time a suspended frame resumes: when an awaited future completes,
  every coroutine in the awaiting chain (``run_tool_call`` -> ... -> the runner ->
  the awaited step) "calls" the next one again, and a ``with`` block's
  ``@contextmanager`` generator is "called" again at its exit. A reader reads
  ``await step`` once and opens no file when it resumes, so a frame the tracer has
  already seen start is skipped. (So code mode's sandbox conversation, one generator,
  counts once per program: each later step resumes it where the reader left it.)
* **A function handed to a thread pool is called by whoever handed it over.** Code mode
  runs every sandbox step on the sandbox's own threads (``codemode/workers.py``), which
  a per-thread profiler never sees; ``ThreadPoolExecutor.submit`` is wrapped while
  tracing so the function runs traced, as a call from the module that submitted it
  (the reader follows ``submit(self._drive)`` into the thread that steps ``sandbox.py``'s
  conversation).

``as_before`` reports the same run counted as this script first did (resumes counted,
threads unseen). On the tree the two rules were added to (771c8ca), the code-mode program
measured 17 modules and 59 re-entries that way; 33 of the 59 were resumes, and the
sandbox steps on threads added 6, so 17 and 39 by the rules above. ``--write`` puts
both countings, before and now, in the call-path section of ``RESULTS.md``.
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
from tooldeck import (
    Host,
    Location,
    ToolCall,
    ToolEditor,
    ToolService,
    hookimpl,
    run_tool_call,
    tool,
)
from tooldeck.providers import Format, calls_from, results_for, run_tool_calls

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
    with tracing() as report:
        run()
    return report


@contextlib.contextmanager
def tracing() -> Iterator[dict[str, Any]]:
    """Trace the block; the report is filled in when it ends."""
    tracer = Tracer()
    report: dict[str, Any] = {}
    with _following_threads(tracer):
        sys.setprofile(tracer)
        try:
            yield report
        finally:
            sys.setprofile(None)
    report.update(tracer.now.report())
    before = tracer.before.report()
    report["as_before"] = {"modules": before["modules"], "reentries": before["reentries"]}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _location() -> Location:
    return Location(tempfile.mkdtemp(), data_dir=tempfile.mkdtemp())


REPLIES: dict[Format, Any] = {
    "openai": {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
            }
        ],
    },
    "openai-responses": {
        "output": [
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "add",
                "arguments": '{"a": 1, "b": 2}',
            }
        ]
    },
    "anthropic": {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "c1", "name": "add", "input": {"a": 1, "b": 2}}],
    },
    "gemini": {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}}],
                }
            }
        ]
    },
    "mcp": {"name": "add", "arguments": {"a": 1, "b": 2}},
}
"""One ``add`` call as each provider's reply carries it (its JSON; Gemini's without an id)."""


def provider_turn(fmt: Format) -> dict[str, Any]:
    service = ToolService(_location())
    service.transform(lambda editor: editor.add(tool(add)), source="bench")
    snapshot = service.snapshot()
    reply = REPLIES[fmt]

    def run() -> None:
        calls = calls_from(fmt, reply)
        turn = asyncio.run(run_tool_calls(snapshot, calls))
        assert turn.outcomes[0].status == "completed", turn
        results_for(fmt, zip(calls, turn.outcomes, strict=True))

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


class _Adder:
    @hookimpl
    def tool_transform(self, editor: ToolEditor) -> None:
        editor.add(tool(add).replace(codemode=False))


def served_call() -> dict[str, Any]:
    from mcp import Client
    from tooldeck.mcp.serve.asking import ElicitingAsker
    from tooldeck.mcp.serve.server import CatalogServer
    from tooldeck.mcp.serve.watch import Serving

    asker = ElicitingAsker()
    root, data = tempfile.mkdtemp(), tempfile.mkdtemp()
    with Host.open(root, plugins=[_Adder()], asker=asker, data_dir=data, trust=True) as host:
        server = CatalogServer(Serving(lambda: host), asker)

        async def scenario() -> dict[str, Any]:
            async with Client(server.server, mode="legacy") as client:
                await client.call_tool("add", {"a": 1, "b": 2})  # warm
                with tracing() as report:
                    result = await client.call_tool("add", {"a": 1, "b": 2})
                assert not result.is_error, result
                return report

        return asyncio.run(scenario())


FORMATS: tuple[Format, ...] = ("openai", "openai-responses", "anthropic", "gemini", "mcp")

TARGETS = {
    **{f"provider turn ({fmt})": (8, 3) for fmt in FORMATS},
    "code-mode program": (8, 6),
    "served call": (14, None),
}
"""Issue 20's targets, for every format and a served call since issue 33:
(modules, re-entries)."""

BEFORE = {
    "provider turn (openai)": {"modules": 8, "reentries": 3, "as_before": (8, 3)},
    "provider turn (openai-responses)": {"modules": 8, "reentries": 3, "as_before": (8, 3)},
    "provider turn (anthropic)": {"modules": 9, "reentries": 3, "as_before": (9, 3)},
    "provider turn (gemini)": {"modules": 9, "reentries": 3, "as_before": (9, 3)},
    "provider turn (mcp)": {"modules": 9, "reentries": 3, "as_before": (9, 3)},
    "code-mode program": {"modules": 17, "reentries": 39, "as_before": (17, 59)},
    "served call": {"modules": 22, "reentries": 7, "as_before": (22, 10)},
}
"""The tree the two counting rules were added to (771c8ca), for the RESULTS.md section
(its provider turns traced by this script for every format: the Anthropic, Gemini and
MCP turns visited ``host.schema.strict`` too, OpenAI's strict-mode cleanup); the served
call's: 68f1678, before its client's view was kept (each call took its snapshot through
``Host``, the principals and the service)."""

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SECTION = "## Call path"


def markdown(found: dict[str, dict[str, Any]]) -> str:
    """The RESULTS.md section: each path before and now, by both countings."""
    lines = [
        f"{SECTION} — modules and re-entries of one call (`bench/call_path.py`)",
        "",
        f"_Python {sys.version.split()[0]} · structural, not a timing: counted as the "
        "script's docstring says (a resumed coroutine is not a call; what the sandbox "
        "threads run is called by whoever handed it over). `as first counted`: resumes "
        "counted, threads unseen. Before: 771c8ca._",
        "",
        "| path | target (modules, re-entries) | before | now | as first counted: before → now | |",
        "|---|---|---|---|---|---|",
    ]
    for path, report in found.items():
        modules, reentries = TARGETS[path]
        old = BEFORE[path]
        met = report["modules"] <= modules and (
            reentries is None or report["reentries"] <= reentries
        )
        first = report["as_before"]
        wanted = f"≤ {modules}, ≤ {reentries}" if reentries is not None else f"≤ {modules}, —"
        lines.append(
            f"| {path} | {wanted} | {old['modules']}, {old['reentries']} "
            f"| **{report['modules']}, {report['reentries']}** | {old['as_before'][0]}, "
            f"{old['as_before'][1]} → {first['modules']}, {first['reentries']} "
            f"| {'✓' if met else '✗'} |"
        )
    lines.append("")
    for path, report in found.items():
        visited = ", ".join(m.removeprefix("tooldeck.") for m in report["visited"])
        lines.append(f"- {path} visits {visited}.")
        if report["reentered"]:
            back = ", ".join(
                r.replace("tooldeck.", "").replace(" -> ", " → ") for r in report["reentered"]
            )
            lines.append(f"  Re-entries: {back}.")
    lines += ["", *WHY_NOT_EIGHT]
    return "\n".join(lines) + "\n"


WHY_NOT_EIGHT = [
    "The program's modules stay above 8: its one nested `tool(fn)` call visits the six host",
    "modules the provider turn visits besides `providers/` (boundary, snapshot, call path,",
    "the function's arguments, the output check, content), which leaves code mode two.",
    "Code mode has five jobs on this path, one module each: the runner answers the",
    "program's steps, `sandbox` holds the monty conversation, `workers` steps it off the",
    "loop within the worker slots, `nested` makes one nested call, `values` turns the",
    "program's value into the result. Eight would mean merging three of them (the runner",
    "and `nested` alone would be ~460 lines, over the 400 STYLE allows), so they stay apart.",
    "",
    "The seventh re-entry (`codemode.sandbox -> codemode.runner`) is the price of W5: the",
    "conversation answers each nested `Call` through the runner's `_call` on the sandbox",
    "thread instead of handing it to the loop, which halves the thread crossings per nested",
    "call (`DECISIONS.md`, code mode); handing it over gives 6 re-entries and W5 2.84x.",
]


def write(section: str) -> None:
    """Replace (or append) the call-path section of RESULTS.md."""
    text = RESULTS.read_text(encoding="utf-8")
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    RESULTS.write_text(text, encoding="utf-8")


def main() -> None:
    found = {f"provider turn ({fmt})": provider_turn(fmt) for fmt in FORMATS}
    found["code-mode program"] = codemode_program()
    found["served call"] = served_call()
    if "--write" in sys.argv:
        write(markdown(found))
    if "-v" not in sys.argv:
        for report in found.values():
            del report["visited"], report["reentered"]
    print(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
