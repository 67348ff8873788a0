"""W7 sessions: a Location with 1,000 tools and sessions that each add one tool.

    .venv/bin/python bench/w7_sessions.py [--reps 11] [--sessions 10000] [--out FILE]

The Location's catalog is W1's (100 plugins x 10 tools, one pydantic model per tool,
built by the shared W1 fixture and registered as in ``tooldeck_adapters.w1_tooldeck``).
Each session registers one transform adding one tool of its own (a pydantic input model
shared by every session, an executor bound to the session). It measures, per rep
(median and min over reps):

  location first snapshot     a fresh service with the 100 registrations (fresh Tool
                              objects, untimed): the first service.snapshot(), i.e. the
                              replay of every transform and the snapshot's construction
  session first snapshot      on that Location (its snapshot taken), a fresh session with
                              its one registration (untimed): the first
                              service.snapshot(session=id)
  session open+first          the same, timing service.session(id) and scope.transform too
  session after a change      a Location change (its own snapshot taken, untimed), then
                              the next service.snapshot(session=id) of a session opened
                              before it
  host variants               the same two firsts through Host.snapshot (the Location's
                              permission policy applied; the Host also has the built-ins)

then timeit-style, per call: an unchanged service.snapshot(session=id) and
host.snapshot(session=id), and the same for the Location. Memory (tracemalloc, GC
collected before each reading): --sessions open sessions, each with its one tool and
its first snapshot taken, then also with definitions_for("openai") rendered; bytes per
session beyond its own tool (a Tool with its executor and record, measured alone); and
what is left after closing them all.

Targets (issue 14): session first snapshot <= 5% of the Location's first snapshot; an
unchanged session snapshot <= 2 us; a few KB per open session beyond its own tools;
closing frees it. Raw JSON goes to ``$BENCH_RESULTS/raw/w7.json``.
"""

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from functools import partial

HERE = os.path.dirname(os.path.abspath(__file__))


def shared_bench():
    """``../shared/bench`` of the repository, also from a work tree nested deeper."""
    folder = HERE
    while os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        candidate = os.path.join(folder, "shared", "bench")
        if os.path.isfile(os.path.join(candidate, "w1_catalog.py")):
            return candidate
    raise SystemExit("cannot find shared/bench (the W1 fixture) above " + HERE)


sys.path.insert(0, shared_bench())
sys.path.insert(0, HERE)

import micro  # noqa: E402  (the W1 catalog as Tools, and its registration)
from pydantic import BaseModel  # noqa: E402

import tooldeck  # noqa: E402
from tooldeck import Host, Location, Tool, ToolResult  # noqa: E402


class NoteInput(BaseModel):
    text: str
    urgent: bool = False


def session_tool(session_id):
    """The one tool a session adds: its own executor, the shared input model."""
    notes = []

    def execute(inp, ctx):
        notes.append(inp.text)
        return ToolResult(f"{len(notes)} notes in {session_id}")

    return Tool(
        name="session_note",
        description=f"Keep a note for {session_id}.",
        input=NoteInput,
        execute=execute,
        codemode=False,
    )


def adder(tool):
    return lambda editor: editor.add(tool)


def clock():
    return time.perf_counter()


def timed(fn):
    gc.disable()
    try:
        t0 = clock()
        fn()
        return clock() - t0
    finally:
        gc.enable()


def stats(samples):
    return {"median": statistics.median(samples), "min": min(samples), "samples": samples}


def open_and_snapshot(service, session_id, tool):
    scope = service.session(session_id)
    scope.transform(adder(tool), source="host")
    service.snapshot(session=session_id)


def firsts(reps, data_dir):
    rows = {
        k: []
        for k in (
            "location first snapshot",
            "session first snapshot",
            "session open+first",
            "session after a change",
            "host location first snapshot",
            "host session first snapshot",
        )
    }
    for rep in range(reps):
        plugins = micro.w1_tools()  # fresh Tool objects: nothing derived yet
        service = micro.build_service(plugins, Location(tempfile.mkdtemp(), data_dir=data_dir))
        rows["location first snapshot"].append(timed(service.snapshot))
        for i in range(20):  # many sessions per rep: each one's first snapshot
            scope = service.session(f"r{rep}-{i}")
            scope.transform(adder(session_tool(scope.id)), source="host")
            rows["session first snapshot"].append(
                timed(partial(service.snapshot, session=scope.id))
            )
        rows["session open+first"].append(
            timed(partial(open_and_snapshot, service, f"open-{rep}", session_tool("x")))
        )
        service.transform(adder(session_tool("location")), source="late")
        service.snapshot()  # the Location's own snapshot after the change (shared)
        rows["session after a change"].append(timed(partial(service.snapshot, session=f"r{rep}-0")))

        plugins = micro.w1_tools()
        root = tempfile.mkdtemp(prefix="tooldeck-w7-")
        host = Host.open(
            root, plugins=[micro.OnePlugin([t for _, ts in plugins for t in ts])], data_dir=data_dir
        )
        host.service._snapshots.clear()  # Host.open took none; make sure of it
        rows["host location first snapshot"].append(timed(host.snapshot))
        for i in range(20):
            scope = host.session(f"h{i}")
            scope.transform(adder(session_tool(scope.id)), source="host")
            rows["host session first snapshot"].append(
                timed(partial(host.snapshot, session=scope.id))
            )
        host.close()
    return {k: stats(v) for k, v in rows.items()}


def steady(repeat, data_dir):
    plugins = micro.w1_tools()
    service = micro.build_service(plugins, Location(tempfile.mkdtemp(), data_dir=data_dir))
    scope = service.session("steady")
    scope.transform(adder(session_tool("steady")), source="host")
    assert len(service.snapshot(session="steady").definitions_for("openai")) == 1001
    assert service.snapshot(session="steady") is service.snapshot(session="steady")
    root = tempfile.mkdtemp(prefix="tooldeck-w7-")
    host = Host.open(
        root, plugins=[micro.OnePlugin([t for _, ts in plugins for t in ts])], data_dir=data_dir
    )
    host.session("steady").transform(adder(session_tool("steady")), source="host")
    assert host.snapshot(session="steady") is host.snapshot(session="steady")
    cases = {
        "service.snapshot() unchanged": service.snapshot,
        "service.snapshot(session=id) unchanged": lambda: service.snapshot(session="steady"),
        "host.snapshot() unchanged": host.snapshot,
        "host.snapshot(session=id) unchanged": lambda: host.snapshot(session="steady"),
    }
    results = {name: micro.measure(fn, repeat) for name, fn in cases.items()}
    host.close()
    return results


def traced(fn):
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    kept = fn()
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before, kept


def memory(count, data_dir):
    plugins = micro.w1_tools()
    service = micro.build_service(plugins, Location(tempfile.mkdtemp(), data_dir=data_dir))
    service.snapshot().definitions_for("openai")
    # Warm what every session shares once: the input model's schema and validator, the
    # record path, the layered snapshot module.
    warm = service.session("warm")
    warm.transform(adder(session_tool("warm")), source="host")
    service.snapshot(session="warm").definitions_for("openai")
    warm.close()
    ids = [f"session-{i:05d}" for i in range(count)]  # built before tracing
    tracemalloc.start()
    try:

        def tools_alone():
            tools = [session_tool(i) for i in ids]
            for t in tools:
                tooldeck_record(t)
            return tools

        tool_bytes, tools = traced(tools_alone)
        del tools

        def open_sessions():
            for session_id in ids:
                service.session(session_id).transform(
                    adder(session_tool(session_id)), source="host"
                )
                service.snapshot(session=session_id)
            return None

        open_bytes, _ = traced(open_sessions)

        def render():
            for session_id in ids:
                service.snapshot(session=session_id).definitions_for("openai")

        render_bytes, _ = traced(render)
        closed_bytes, _ = traced(service.close_sessions)
    finally:
        tracemalloc.stop()
    per_tool = tool_bytes / count
    return {
        "sessions": count,
        "own tool bytes (Tool + executor + record)": per_tool,
        "bytes per open session incl. its tool and first snapshot": open_bytes / count,
        "bytes per open session beyond its own tool": open_bytes / count - per_tool,
        "bytes per session for definitions_for(openai)": render_bytes / count,
        "bytes left per session after closing all": (open_bytes + render_bytes + closed_bytes)
        / count,
    }


def tooldeck_record(tool):
    # What the registry derives for a tool on its first add; measured with the tool.
    from tooldeck.host.registry.record import record_of

    record_of(tool)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--out")
    a = ap.parse_args()
    data_dir = tempfile.mkdtemp(prefix="tooldeck-w7-data-")

    first = firsts(a.reps, data_dir)
    location = first["location first snapshot"]["median"]
    for name, r in first.items():
        ratio = r["median"] / location
        print(
            f"{name:32s} median {r['median'] * 1e6:9.1f} µs  min {r['min'] * 1e6:9.1f} µs"
            f"  ({ratio:6.1%} of the Location's first)",
            flush=True,
        )
    host_ratio = (
        first["host session first snapshot"]["median"]
        / first["host location first snapshot"]["median"]
    )
    print(f"{'host session / host location':32s} {host_ratio:6.1%}", flush=True)

    unchanged = steady(a.repeat, data_dir)
    for name, r in unchanged.items():
        print(
            f"{name:45s} median {r['median'] * 1e6:7.3f} µs  min {r['min'] * 1e6:7.3f} µs",
            flush=True,
        )

    mem = memory(a.sessions, data_dir)
    for name, value in mem.items():
        shown = f"{value:,.0f}" if isinstance(value, float) else str(value)
        print(f"{name:58s} {shown:>10s}", flush=True)

    payload = {
        "workload": "W7",
        "env": {
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "tooldeck": tooldeck.__version__,
            "loadavg": os.getloadavg(),
            "utc": datetime.now(UTC).isoformat(timespec="seconds"),
        },
        "first": first,
        "ratios": {
            "session first / location first": first["session first snapshot"]["median"] / location,
            "session open+first / location first": first["session open+first"]["median"] / location,
            "host session first / host location first": host_ratio,
        },
        "unchanged": unchanged,
        "memory": mem,
    }
    micro.write_raw(payload, a.out, "w7.json")


if __name__ == "__main__":
    main()
