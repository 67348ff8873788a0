"""W4 with MCP servers: ``tooldeck tools`` as a whole process, with kept tool listings.

    .venv/bin/python bench/w4_mcp_listings.py [--reps 11] [--server CMD ...]

Three Locations, timed interleaved (one run of each per rep, order rotated per rep):

  none     no MCP servers configured
  cold     three MCP servers, their kept listings deleted before each run, so the
           command starts all three and waits for their listings (what every command
           cost before listings were kept)
  cached   the same three servers with their listings kept: the command starts none

Each run is ``<this python> -m tooldeck --location DIR tools`` with a scrubbed
environment (its own XDG data and config dirs, ``TOOLDECK_TRUST=1``). By default the
three servers are the same small script on the MCP SDK (``MCPServer``, five tools; its
import is most of a real Python server's start); ``--server CMD`` (three times, each a
shell-style command line) measures real ones instead, e.g.
``--server 'uvx mcp-server-time' --server 'uvx mcp-server-fetch' --server 'uvx
mcp-server-git'``. With the default servers every run also checks how many servers it
started (three cold, none cached). Prints a markdown table (median and IQR in ms, and
the ratios) and writes ``bench/results/raw/w4_mcp.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "results" / "raw" / "w4_mcp.json"

SERVER = """\
import os, sys
from mcp.server.mcpserver import MCPServer

with open(sys.argv[1], "a") as starts:
    starts.write(f"{os.getpid()}\\n")
server = MCPServer(sys.argv[2], log_level="WARNING")


def make(n):
    def tool(text: str, times: int = 1) -> str:
        return text * times

    return tool


for n in range(5):
    server.add_tool(make(n), name=f"tool_{n}", description=f"Tool {n}: repeat a text.")
server.run()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=11)
    parser.add_argument("--server", action="append", default=[], metavar="CMD")
    args = parser.parse_args()
    if args.server and len(args.server) != 3:
        parser.error("--server is given three times (or not at all)")
    with tempfile.TemporaryDirectory(prefix="w4-mcp-") as temp:
        base = Path(temp)
        starts = base / "starts"
        commands = [shlex.split(c) for c in args.server] or [
            [sys.executable, str(_server_script(base)), str(starts), f"s{i}"] for i in range(3)
        ]
        none = _location(base / "none", [])
        servers = _location(base / "servers", commands)
        env = _environment(base)
        data = base / "xdg-data"
        _run(servers, env)  # keep the listings (and check the catalog once)
        times: dict[str, list[float]] = {"none": [], "cold": [], "cached": []}
        order = list(times)
        for rep in range(args.reps):
            for case in order[rep % 3 :] + order[: rep % 3]:
                if case == "cold":
                    for kept in data.rglob("mcp-listings"):
                        shutil.rmtree(kept)
                before = _count(starts)
                elapsed = _run(none if case == "none" else servers, env)
                started = _count(starts) - before
                if not args.server:
                    expected = 3 if case == "cold" else 0
                    assert started == expected, f"{case}: {started} servers started"
                times[case].append(elapsed)
        _report(times, args)


def _server_script(base: Path) -> Path:
    path = base / "bench_server.py"
    path.write_text(SERVER)
    return path


def _location(root: Path, commands: list[list[str]]) -> Path:
    root.mkdir()
    tables = [
        f"[mcp.servers.s{i}]\ncommand = {json.dumps(command)}\ntimeout_s = 60\n"
        for i, command in enumerate(commands)
    ]
    (root / "tooldeck.toml").write_text("\n".join(tables))
    return root


def _environment(base: Path) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env |= {
        "XDG_DATA_HOME": str(base / "xdg-data"),
        "XDG_CONFIG_HOME": str(base / "xdg-config"),
        "TOOLDECK_TRUST": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return env


def _run(location: Path, env: dict[str, str]) -> float:
    argv = [sys.executable, "-m", "tooldeck", "--location", str(location), "tools", "--json"]
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or "MCP server" in done.stderr:
        raise SystemExit(f"tooldeck tools failed in {location}:\n{done.stderr}")
    names = {row["name"] for row in json.loads(done.stdout)}  # native and code-mode rows
    if location.name == "servers":
        for i in range(3):
            assert any(n.startswith(f"s{i}_") for n in names), f"no tools of s{i} listed"
    return elapsed


def _count(starts: Path) -> int:
    return len(starts.read_text().splitlines()) if starts.exists() else 0


def _report(times: dict[str, list[float]], args: argparse.Namespace) -> None:
    def median_ms(values: list[float]) -> float:
        return statistics.median(values) * 1000

    def iqr_ms(values: list[float]) -> float:
        q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        return (q[2] - q[0]) * 1000

    servers = "the given servers" if args.server else "3 MCPServer scripts (5 tools each)"
    print(f"W4 with MCP servers: `tooldeck tools`, whole process, {args.reps} reps, {servers}\n")
    print("| case | median ms | IQR ms |")
    print("|---|---|---|")
    for case, values in times.items():
        print(f"| {case} | {median_ms(values):.0f} | {iqr_ms(values):.0f} |")
    cached, cold, none = (median_ms(times[c]) for c in ("cached", "cold", "none"))
    print(f"\ncached / none = {cached / none:.2f}x; cold / cached = {cold / cached:.1f}x")
    RAW.parent.mkdir(parents=True, exist_ok=True)
    RAW.write_text(json.dumps({"reps": args.reps, "servers": args.server, "times": times}))


if __name__ == "__main__":
    main()
