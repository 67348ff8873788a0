"""Steady-state micro-benchmarks of tooldeck on an unchanged 1,000-tool catalog (timeit-style).

    /tmp/peers/bin/python bench/micro.py [--repeat 7] [--out FILE]

The catalog is W1's (100 plugins x 10 tools, one pydantic model per tool, built by the
shared W1 fixture and registered exactly as in ``tooldeck_adapters.w1_tooldeck``). With
the catalog built and rendered once, it times, per call:

  service.snapshot()                       snapshot of unchanged state (target < 2 µs)
  service.snapshot().definitions_for(...)  W1's "relist" (target < 5 µs)
  snap.definitions_for("openai")           re-listing from a snapshot already held
  host.snapshot()                          the same through Host (applies the Location's
                                           permission visibility; 1,000 tools from one
                                           plugin object)

Each is ``timeit.Timer.autorange()`` to pick the loop count, then ``--repeat`` repeats
(GC off inside the timed loop, as timeit does). Reported: median and min per call in µs.
Raw JSON goes to ``$BENCH_RESULTS/raw/micro.json`` (default ``bench/results/raw``).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import timeit
from datetime import UTC, datetime
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "bench")
sys.path.insert(0, SHARED)

import tooldeck_adapters as adapters  # noqa: E402
import w1_catalog  # noqa: E402  (the shared W1 fixture)

import tooldeck  # noqa: E402
from tooldeck import Host, Location, Tool, ToolService  # noqa: E402


def w1_tools():
    """The W1 catalog as (plugin name, [Tool, ...]) pairs."""
    return [
        (
            plugin.name,
            [
                Tool(
                    name=ts.name,
                    description=ts.description,
                    input=ts.model,
                    execute=adapters._executor(ts.fn),
                )
                for ts in plugin.tools
            ],
        )
        for plugin in w1_catalog.fixture("model")
    ]


def build_service(plugins, location):
    service = ToolService(location)
    for name, tools in plugins:
        service.transform(lambda editor, tools=tools: [editor.add(t) for t in tools], source=name)
    return service


class OnePlugin:
    """A plugin object that adds all 1,000 tools (for Host.open(plugins=[...]))."""

    def __init__(self, tools):
        self.tools = tools

    @tooldeck.hookimpl
    def tool_transform(self, editor):
        for t in self.tools:
            editor.add(t)


def measure(fn, repeat):
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(number, 1000)
    per_call = [t / number for t in timer.repeat(repeat=repeat, number=number)]
    return {
        "number": number,
        "repeat": repeat,
        "median": statistics.median(per_call),
        "min": min(per_call),
        "samples": per_call,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out")
    a = ap.parse_args()

    plugins = w1_tools()
    data_dir = tempfile.mkdtemp(prefix="tooldeck-micro-")
    service = build_service(plugins, Location(".", data_dir=data_dir))
    snap = service.snapshot()
    defs = snap.definitions_for("openai")
    assert len(defs) == 1000, len(defs)
    w1_catalog.verify_catalog(list(defs))

    root = tempfile.mkdtemp(prefix="tooldeck-micro-root-")
    # W1's tools are code-mode tools: listed natively here, like the service's above.
    Path(root, "tooldeck.toml").write_text("[codemode]\nenabled = false\n", encoding="utf-8")
    host = Host.open(
        root, plugins=[OnePlugin([t for _, tools in plugins for t in tools])], data_dir=data_dir
    )
    host_defs = host.snapshot().definitions_for("openai")
    assert len([d for d in host_defs if d["function"]["name"].startswith("p")]) >= 1000

    cases = {
        "service.snapshot() unchanged": service.snapshot,
        "service.snapshot().definitions_for(openai)": (
            lambda: service.snapshot().definitions_for("openai")
        ),
        "snap.definitions_for(openai)": lambda: snap.definitions_for("openai"),
        "host.snapshot() unchanged": host.snapshot,
    }
    assert service.snapshot() is snap, "an unchanged state must give the cached snapshot"
    results = {}
    for name, fn in cases.items():
        results[name] = measure(fn, a.repeat)
        r = results[name]
        print(
            f"{name:45s} median {r['median'] * 1e6:7.3f} µs  min {r['min'] * 1e6:7.3f} µs",
            flush=True,
        )
    payload = {
        "workload": "micro",
        "env": {
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "tooldeck": tooldeck.__version__,
            "loadavg": os.getloadavg(),
            "utc": datetime.now(UTC).isoformat(timespec="seconds"),
        },
        "n_tools": len(defs),
        "results": results,
    }
    write_raw(payload, a.out, "micro.json")


def write_raw(payload: dict, out: str | None, name: str) -> None:
    """Write a workload's raw JSON to ``out``, or to ``$BENCH_RESULTS/raw/<name>``."""
    raw = os.path.join(os.environ.get("BENCH_RESULTS", os.path.join(HERE, "results")), "raw")
    out = out or os.path.join(raw, name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(payload, f, indent=1)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
