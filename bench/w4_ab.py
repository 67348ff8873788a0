"""W4's Host.open row against its pluggy denominator, by CPU time: an A/B tool for startup.

    .venv/bin/python bench/w4_ab.py --python VENV/bin/python --tree a=/a/src --tree b=/b/src

Builds (once) 50 plugin distributions of W4's shape (``w4_fixture.py``: one module with one
``tooldeck.Tool`` of a tiny pydantic input, entry point group ``tooldeck``) as a directory
of modules and ``.dist-info`` folders (``/tmp/w4-ab/plugins``), then runs whole processes
in turns, ROUNDS times: ``python -c pass``, W4's "pluggy load 50 tooldeck dists" and
"tooldeck Host.open 50 + snapshot" once per tree (``PYTHONPATH=TREE:plugins``, empty cwd,
scrubbed env, like the shared driver). Prints JSON: per command the median and best
user+system CPU ms and wall ms, and per tree the median over rounds of its ratio to the
pluggy row of the same round. ``--modules`` also lists what ``Host.open`` + snapshot
imports in each tree. On the shared, loaded box CPU time is what stays comparable; the
shared W4 driver (``bash bench/run.sh``) stays the reference for the published ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tooldeck_adapters import W4_COMMANDS
from w4_fixture import MODULE_PYDANTIC, N

ROOT = Path("/tmp/w4-ab")
PLUGINS = ROOT / "plugins"
EMPTY = ROOT / "empty-cwd"
HOST_OPEN = W4_COMMANDS["tooldeck Host.open 50 + snapshot"]
PLUGGY = W4_COMMANDS["pluggy load 50 tooldeck dists"]
MODULES = (
    "import sys, tooldeck; before = set(sys.modules); host = tooldeck.Host.open('.'); "
    "host.snapshot(); print(' '.join(sorted(set(sys.modules) - before)))"
)


def build_plugins() -> None:
    """The 50 plugin dists as installed files (modules and ``.dist-info``), made once."""
    if (PLUGINS / "done").exists():
        return
    PLUGINS.mkdir(parents=True, exist_ok=True)
    for i in range(1, N + 1):
        nn = f"{i:02d}"
        (PLUGINS / f"tooldeck_bench_plugin_{nn}.py").write_text(MODULE_PYDANTIC.format(nn=nn))
        info = PLUGINS / f"tooldeck_bench_plugin_{nn}-1.0.0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: tooldeck-bench-plugin-{nn}\nVersion: 1.0.0\n"
        )
        (info / "entry_points.txt").write_text(
            f"[tooldeck]\nplugin_{nn} = tooldeck_bench_plugin_{nn}\n"
        )
    (PLUGINS / "done").write_text("")


def run(python: str, code: str, path: str) -> tuple[float, float]:
    """One process: (CPU ms, wall ms)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8", "PYTHONPATH": path}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-c", code], cwd=EMPTY, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1e3, wall * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="a venv with tooldeck's dependencies")
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH/TO/src")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--modules", action="store_true")
    a = ap.parse_args()
    build_plugins()
    EMPTY.mkdir(parents=True, exist_ok=True)
    trees = dict(t.split("=", 1) for t in a.tree)
    first = next(iter(trees.values()))
    commands = {
        "python -c pass": ("pass", first),
        "pluggy load 50 tooldeck dists": (PLUGGY, first),
        **{f"Host.open 50 + snapshot [{n}]": (HOST_OPEN, src) for n, src in trees.items()},
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for code, src in commands.values():  # warm-up: the page cache, the .pyc files
        run(a.python, code, f"{src}:{PLUGINS}")
    for _ in range(a.rounds):
        for name, (code, src) in commands.items():
            samples[name].append(run(a.python, code, f"{src}:{PLUGINS}"))
    report: dict[str, object] = {"rounds": a.rounds, "loadavg": os.getloadavg()}
    pluggy = samples["pluggy load 50 tooldeck dists"]
    for name, rows in samples.items():
        cpu, wall = [r[0] for r in rows], [r[1] for r in rows]
        entry = {
            "cpu_ms": round(statistics.median(cpu), 1),
            "cpu_ms_best": round(min(cpu), 1),
            "wall_ms": round(statistics.median(wall), 1),
        }
        if name.startswith("Host.open"):
            for i, metric in enumerate(("cpu", "wall")):
                ratios = [r[i] / p[i] for r, p in zip(rows, pluggy, strict=True)]
                entry[f"{metric}_ratio"] = round(statistics.median(ratios), 3)
        report[name] = entry
    if a.modules:
        for name, src in trees.items():
            env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{src}:{PLUGINS}"}
            out = subprocess.run(
                [a.python, "-c", MODULES], cwd=EMPTY, env=env, check=True, capture_output=True
            )
            loaded = out.stdout.decode().split()
            report[f"modules [{name}]"] = {"count": len(loaded), "names": loaded}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
