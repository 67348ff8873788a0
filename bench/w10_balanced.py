"""W10 scale-out: `tooldeck mcp serve --http` replicas behind HAProxy, on PostgreSQL (issue 36).

    .venv/bin/python bench/w10_balanced.py [--replicas 1,2,3] [--clients 200] [--seconds 10]
        [--rounds 2] [--protocol auto|legacy] [--restarts 5] [--outages 1,5,15] [--out PATH]

Two figures, beside W8 (`w8_load.py`, whose method this follows where it can):

1. **Throughput through the balancer.** For each replica count N: a PostgreSQL server this
   script starts (initdb in a temporary directory; as the `postgres` user when run as root),
   N `tooldeck mcp serve --http 127.0.0.1:P --allowed-host 127.0.0.1:LB --no-codemode`
   replicas, each with its own data dir, all on that store (`TOOLDECK_STORE_URL`, a schema of
   their own) with the principal `bench` (its token in `W10_TOKEN`, sent by every client), and
   HAProxy in front with the `haproxy.cfg` of `docs/mcp.md` (round robin; handshake-era
   sessions stuck by `Mcp-Session-Id`). `--clients` SDK clients (`mode=--protocol`) connect
   through the balancer and call `add(a, b)` in a loop, one call in flight each, for
   `--seconds`; reported: calls/s, p50/p99/max latency, errors, the replicas' CPU seconds per
   call (utime+stime of every replica, from /proc), the generator's own CPU per call, and
   the 1-minute load average at the end of the window (this job has 2 cores of a shared
   host: the load says how many other runnable processes it shared them with). Rounds are
   interleaved (1, 2, 3, 1, 2, 3...).
   `add` is settled by the rules, so no call reads the store: this is the serving path.

2. **From a database restart to the first served call that needs the store.** One replica,
   one 2026-07-28 client calling `ask` (a tool whose permission ask is deferred: every call
   saves a pending call in the store). The database is stopped (fast shutdown), kept down
   for each of `--outages` seconds and started again; reported: the time from the
   database accepting connections again to the first call that saved its pending call, and
   the calls that failed (each a `failed`/`unavailable` result: retryable). Twice: with the
   replica idle during the outage (its first call after the restart meets the dropped
   connections and replaces them at once), and with the client calling every 20 ms through
   the outage (calls wait on the pool, whose reconnection backs off 1 s, 2 s, 4 s ...; a
   call fails past `[store] timeout_s`, 10 s).

Caveats: on a 2-core machine the load generator (200 SDK clients in one Python process,
itself CPU-bound), HAProxy, PostgreSQL and the N replicas share the same two cores, so more
replicas cannot add cores: the throughput column measures how the deployment shares two
cores, not how it scales on real machines. The load column says how busy the rest of the
machine was.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pwd
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TOKEN = os.environ.setdefault("W10_TOKEN", uuid.uuid4().hex)
CLK_TCK = os.sysconf("SC_CLK_TCK")
PLUGIN = '''
from tooldeck import Tool, ToolResult, hookimpl, tool

@tool(codemode=False)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

async def ask(input, ctx):
    await ctx.permission.assert_("ask", [])
    return ToolResult("asked")

@hookimpl
def tool_transform(editor):
    editor.add(add)
    editor.add(Tool(name="ask", description="Ask first.", execute=ask, codemode=False))
'''
CONFIG = '[mcp.serve.principals.bench]\ntoken_env = "W10_TOKEN"\n'


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"w10: {what} not ready within {timeout:g} s")
        time.sleep(0.05)


# ---- PostgreSQL -----------------------------------------------------------------------------
class Postgres:
    """A server of this run's own, which the restart figure stops and starts."""

    def __init__(self, base: Path) -> None:
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
        if not found:
            raise SystemExit("w10: needs PostgreSQL: apt-get install -y postgresql")
        self.bin = found[-1].parent
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(base, user.pw_uid, user.pw_gid)
            self.prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}"]
            self.prefix += ["--init-groups", "--reset-env", "--"]
        self.base, self.data, self.port = base, base / "data", free_port()
        self.dsn = f"host=127.0.0.1 port={self.port} user=tooldeck dbname=postgres"
        self.process: subprocess.Popen[bytes] | None = None
        initdb = [str(self.bin / "initdb"), "-D", str(self.data), "-U", "tooldeck", "-A", "trust"]
        subprocess.run([*self.prefix, *initdb, "--no-sync"], check=True, capture_output=True)

    def start(self) -> float:
        """Start; the moment it accepts connections (perf_counter)."""
        import psycopg

        argv = [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        argv += ["-k", str(self.base), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]
        argv += ["-c", "max_connections=200"]
        with open(self.base / "server.log", "ab") as log:
            self.process = subprocess.Popen([*self.prefix, *argv], stdout=log, stderr=log)
        while True:
            try:
                psycopg.connect(self.dsn, connect_timeout=2).close()
                return time.perf_counter()
            except psycopg.OperationalError:
                if self.process.poll() is not None:
                    raise SystemExit("w10: postgres exited; see " + str(self.base)) from None
                time.sleep(0.01)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=60)


# ---- the deployment -------------------------------------------------------------------------
def haproxy_cfg(lb_port: int, ports: list[int]) -> str:
    """The page's configuration (docs/mcp.md), with this run's ports and replicas."""
    text = (ROOT / "docs" / "mcp.md").read_text()
    [block] = re.findall(r"```haproxy\n(.*?)```", text, re.S)
    lines = [line for line in block.splitlines() if not line.strip().startswith("server ")]
    text = "\n".join(lines).replace("127.0.0.1:8080", f"127.0.0.1:{lb_port}") + "\n"
    servers = "".join(
        f"    server r{i} 127.0.0.1:{port} check inter 500ms fall 2 rise 2\n"
        for i, port in enumerate(ports, 1)
    )
    return text + servers


class Deployment:
    """N replicas on one store, HAProxy in front; stopped by process id."""

    def __init__(self, work: Path, dsn: str, replicas: int, tooldeck: str) -> None:
        self.work = work
        self.root = work / f"project-{uuid.uuid4().hex[:8]}"
        (self.root / ".tooldeck" / "plugins").mkdir(parents=True)
        (self.root / ".tooldeck" / "plugins" / "bench.py").write_text(PLUGIN)
        (self.root / "tooldeck.toml").write_text(CONFIG)
        self.lb_port = free_port()
        self.ports = [free_port() for _ in range(replicas)]
        schema = f"w10_{uuid.uuid4().hex[:12]}"
        env = {**os.environ, "TOOLDECK_STORE_URL": dsn, "TOOLDECK_STORE_SCHEMA": schema}
        env["TOOLDECK_TRUST"] = "1"
        self.replicas = []
        for port in self.ports:
            replica_env = {**env, "XDG_DATA_HOME": str(self.root.parent / f"data-{port}")}
            argv = [tooldeck, "mcp", "serve", "--location", str(self.root), "--no-codemode"]
            argv += ["--http", f"127.0.0.1:{port}", "--allowed-host", f"127.0.0.1:{self.lb_port}"]
            log = open(work / f"replica-{port}.log", "wb")  # noqa: SIM115 (lives with the process)
            self.replicas.append(
                subprocess.Popen(
                    argv, env=replica_env, stdout=log, stderr=log, stdin=subprocess.DEVNULL
                )
            )
        for process, port in zip(self.replicas, self.ports, strict=True):
            wait(
                lambda p=process, q=port: p.poll() is None and listening(q), 120, f"replica :{port}"
            )
        config = work / f"haproxy-{self.lb_port}.cfg"
        config.write_text(haproxy_cfg(self.lb_port, self.ports))
        haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.balancer = subprocess.Popen(
            [haproxy, "-db", "-f", str(config)], stdout=subprocess.DEVNULL
        )
        wait(lambda: listening(self.lb_port), 30, "haproxy")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.lb_port}/mcp"

    def cpu_s(self) -> float:
        total = 0
        for process in self.replicas:
            try:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
        return total / CLK_TCK

    def stop(self) -> None:
        for process in [self.balancer, *self.replicas]:
            process.terminate()
        for process in [self.balancer, *self.replicas]:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def own_cpu_s() -> float:
    times = os.times()
    return times.user + times.system


# ---- clients --------------------------------------------------------------------------------
async def connect(stack: AsyncExitStack, url: str, mode: str):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from mcp import Client

    http = await stack.enter_async_context(
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120)
    )
    return await stack.enter_async_context(
        Client(streamable_http_client(url, http_client=http), mode=mode)
    )


async def load(url: str, clients: int, seconds: float, mode: str) -> dict:
    """``clients`` sessions, each in a task of its own (an SDK client's context belongs to
    the task that entered it), all connected and warm before the window opens."""
    latencies: list[float] = []
    errors: list[str] = []
    gate = asyncio.Semaphore(20)
    ready = 0
    go = asyncio.Event()
    window: dict[str, float] = {}

    async def session(index: int) -> None:
        nonlocal ready
        async with AsyncExitStack() as stack:
            async with gate:
                client = await connect(stack, url, mode)
                await client.call_tool("add", {"a": 1, "b": 2})  # warm, untimed
            ready += 1
            if ready == clients:
                window["begin"] = time.perf_counter()
                window["deadline"] = window["begin"] + seconds
                go.set()
            await go.wait()
            count = 0
            while time.perf_counter() < window["deadline"]:
                start = time.perf_counter()
                try:
                    result = await client.call_tool("add", {"a": index, "b": count})
                    if result.is_error or str(index + count) not in result.content[0].text:
                        errors.append("wrong result")
                    else:
                        latencies.append(time.perf_counter() - start)
                except Exception as exc:  # counted, and shown
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
                count += 1
            window["end"] = max(window.get("end", 0.0), time.perf_counter())

    await asyncio.gather(*(session(i) for i in range(clients)))
    span = window["end"] - window["begin"]
    latencies.sort()

    def pick(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    return {
        "calls_per_s": len(latencies) / span,
        "p50_ms": pick(0.50) if latencies else None,
        "p99_ms": pick(0.99) if latencies else None,
        "max_ms": latencies[-1] * 1000 if latencies else None,
        "errors": len(errors),
        "error_kinds": sorted(set(errors))[:5],
        "window_s": span,
        "calls": len(latencies),
    }


def throughput(args, pg: Postgres, work: Path) -> list[dict]:
    rows = []
    for round_ in range(args.rounds):
        for replicas in args.replicas:
            deployment = Deployment(work, pg.dsn, replicas, args.tooldeck)
            try:
                cpu0, own0 = deployment.cpu_s(), own_cpu_s()
                row = asyncio.run(load(deployment.url, args.clients, args.seconds, args.protocol))
                cpu = deployment.cpu_s() - cpu0
                row.update(
                    round=round_,
                    replicas=replicas,
                    replica_cpu_per_call_us=cpu / max(row["calls"], 1) * 1e6,
                    generator_cpu_per_call_us=(own_cpu_s() - own0) / max(row["calls"], 1) * 1e6,
                    load1=os.getloadavg()[0],
                )
                rows.append(row)
                print(json.dumps(row), flush=True)
            finally:
                deployment.stop()
    return rows


# ---- from a database restart to a served call ---------------------------------------------
async def first_served_after(url: str, pg: Postgres, outage_s: float, busy: bool) -> dict:
    """Stop the database for ``outage_s``, start it; the time from its accepting
    connections again to the first call that saved a pending call (the ``ask`` tool
    defers: every call writes to the store). ``busy``: a client keeps calling through the
    outage (its calls wait on the pool, which retries with backoff, and fail past
    ``[store] timeout_s``); otherwise the replica is idle until the database is back."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import ElicitResult, InputRequiredResult

    from mcp import Client

    async def never(ctx, params):  # declares elicitation: 2026-07-28 asks come back as questions
        return ElicitResult(action="decline")

    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120)
        )
        client = await stack.enter_async_context(
            Client(streamable_http_client(url, http_client=http), elicitation_callback=never)
        )

        async def saved() -> bool:
            result = await client.session.call_tool("ask", {}, allow_input_required=True)
            return isinstance(result, InputRequiredResult)

        assert await saved()
        served: list[float] = []
        failed: list[float] = []

        async def keep_calling(until: asyncio.Event) -> None:
            while not until.is_set():
                (served if await saved() else failed).append(time.perf_counter())
                await asyncio.sleep(0.02)

        stopped = time.perf_counter()
        await asyncio.to_thread(pg.stop)
        done = asyncio.Event()
        caller = asyncio.ensure_future(keep_calling(done)) if busy else None
        await asyncio.sleep(outage_s)
        back = await asyncio.to_thread(pg.start)
        if caller is None:
            caller = asyncio.ensure_future(keep_calling(done))
        while not any(t > back for t in served):
            await asyncio.sleep(0.01)
        done.set()
        await caller
    first = min(t for t in served if t > back)
    return {
        "outage_s": outage_s,
        "busy": busy,
        "down_s": back - stopped,
        "restart_to_served_s": first - back,
        "failed_calls": len(failed),
    }


def restarts(args, pg: Postgres, work: Path) -> list[dict]:
    deployment = Deployment(work, pg.dsn, 1, args.tooldeck)
    rows = []
    try:
        for busy in (False, True):
            for outage in args.outages:
                for _ in range(args.restarts):
                    row = asyncio.run(first_served_after(deployment.url, pg, outage, busy))
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    finally:
        deployment.stop()
    return rows


def summarize(rows: list[dict], restart_rows: list[dict]) -> str:
    lines = [
        "| replicas | calls/s | p50 ms | p99 ms | max ms | errors | replica CPU/call "
        "| generator CPU/call | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for replicas in sorted({row["replicas"] for row in rows}):
        mine = [row for row in rows if row["replicas"] == replicas]

        def median(key, rows=mine):
            return statistics.median(row[key] for row in rows if row[key] is not None)

        lines.append(
            f"| {replicas} | {median('calls_per_s'):.0f} | {median('p50_ms'):.0f} | "
            f"{median('p99_ms'):.0f} | {max(r['max_ms'] or 0 for r in mine):.0f} | "
            f"{sum(r['errors'] for r in mine)} | {median('replica_cpu_per_call_us'):.0f} µs | "
            f"{median('generator_cpu_per_call_us'):.0f} µs | {median('load1'):.1f} |"
        )
    lines += ["", "| calls during the outage | outage | restart → first served call "]
    lines[-1] += "(median, max) | failed calls (median) |"
    lines.append("|---|---|---|---|")
    for busy, outage in sorted({(row["busy"], row["outage_s"]) for row in restart_rows}):
        mine = [r for r in restart_rows if (r["busy"], r["outage_s"]) == (busy, outage)]
        waits = [r["restart_to_served_s"] for r in mine]
        failed = statistics.median(r["failed_calls"] for r in mine)
        lines.append(
            f"| {'every 20 ms' if busy else 'none'} | {outage:g} s | "
            f"{statistics.median(waits):.2f} s, {max(waits):.2f} s | {failed:g} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", default="1,2,3")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--protocol", default="auto", choices=["auto", "legacy"])
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--outages", default="1,5,15")
    parser.add_argument("--tooldeck", default=str(Path(sys.executable).parent / "tooldeck"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    args.replicas = [int(n) for n in args.replicas.split(",") if n]  # "": skip figure 1
    args.outages = [float(s) for s in args.outages.split(",") if s]
    work = Path(tempfile.mkdtemp(prefix="w10-"))
    pg = Postgres(work)
    pg.start()
    load_before = os.getloadavg()
    try:
        rows = throughput(args, pg, work) if args.replicas else []
        restart_rows = restarts(args, pg, work) if args.restarts else []
    finally:
        pg.stop()
    report = {
        "argv": sys.argv[1:],
        "cpus": os.cpu_count(),
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
        "throughput": rows,
        "restarts": restart_rows,
    }
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))
    print(summarize(rows, restart_rows))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
