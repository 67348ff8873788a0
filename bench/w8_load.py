"""W8 serve load, tooldeck's copy: one `add` tool over MCP streamable HTTP, N client sessions,
every request carrying a bearer token, so tooldeck serves with a principal configured.

    .venv/bin/python bench/w8_load.py [--clients 50] [--seconds 10] [--rounds 2]
        [--protocol auto|legacy] [--servers floor,tooldeck] [--tooldeck PATH]
        [--quiet-wait S] [--out PATH]

Adapted from the shared driver `../shared/bench/w8_serve_load.py` (its `common.py` and
`w6_server.py` are still imported from there, read-only). What differs: issue 23 asks for W8
"with per-client sessions, principals and limits switched on", and the shared generator sends
no token, so no principal could be configured. Here

  * the tooldeck Location's `tooldeck.toml` declares `[mcp.serve.principals.bench]` with
    `token_env = "W8_TOKEN"` and one rule of its own (`bash` denied), so every call is
    authenticated, selects that principal and is authorized under the Location's rules plus
    its own; the `[mcp.serve]` limits keep their defaults (all on);
  * every client session of the generator sends `Authorization: Bearer $W8_TOKEN` (a random
    token when the variable is unset), to both servers: the SDK's server ignores the header,
    so both get byte-for-byte the same requests and the generator's cost is the same.

Everything else (method, metrics, interleaving, output) is the shared driver's, as follows.

Servers under test (each a subprocess on 127.0.0.1, a free port, started fresh for every turn
and killed by its process id afterwards):

  floor     `MCPServer` of the official SDK (mcp 2.3, the v2 name of FastMCP): `w6_server.build(0)`
            -- `def add(a: int, b: int) -> int` and nothing else -- run with
            `.run("streamable-http", host="127.0.0.1", port=P)` (this script's `--serve-sdk` mode).
  tooldeck  `tooldeck mcp serve --location DIR --http 127.0.0.1:P --no-codemode`, DIR a fresh
            Location whose project plugin `.tooldeck/plugins/adder.py` adds the same `add`
            (`@tool(codemode=False)`), started with TOOLDECK_TRUST=1 (project plugins may come to
            need a trusted folder; harmless otherwise). Its catalog also lists tooldeck's built-ins;
            only `add` is called.

Load generator (identical for every server; runs in this process on one asyncio loop): `--clients`
sessions, each its own `mcp.client.Client` on `http://127.0.0.1:P/mcp` (mode=--protocol) with its
own httpx connection pool whose every request carries `Authorization: Bearer $W8_TOKEN`. Per turn:

  1. start the server; ready = TCP accept + one probe session (connect, list_tools, add(1, 2) == 3);
  2. connect all sessions (at most --connect-concurrency at a time), each makes one untimed warm
     call; the time to connect them all is reported for information;
  3. measured window: every session calls `add(a=i, b=k)` in a loop, one call in flight per session,
     until --seconds have passed (no new call starts after that; calls in flight finish). Each
     call's latency is `perf_counter` around `call_tool` and includes result checking
     (structured `{"result": v}` or the text); a wrong sum, `is_error`, an exception or a call
     slower than --call-timeout counts as an error (a session stops after 20 errors in a row);
  4. all sessions wait for each other, then close; the server is killed (SIGTERM to its process
     group, SIGKILL after 10 s).

Reported per server and round: calls/s (successful calls / window, the window ending when the last
session's last call returned), latency p50 / p90 / p99 / max over successful calls, errors, the
server's CPU seconds in the window and CPU per call (utime+stime from /proc, threads included:
less sensitive to contention than throughput), the generator's own CPU per call, and the server
process's peak RSS (VmHWM from /proc/PID/status, i.e. its whole life: start-up + load; psutil's
sampled RSS where /proc is missing), idle RSS after start-up, and RSS after the load; and, as a
noise gauge, the cores that *other* processes of the machine kept busy during the window (/proc/stat
busy time minus the server's and the generator's). A turn with errors prints them, the HTTP error
statuses the clients saw (method, status, body; also in the raw JSON as `http_errors`) and the
server's log tail. `W8_SERVE_LIMITS="max_connections = 300; max_sessions = 500"` adds those keys
to tooldeck's `[mcp.serve]` (to find which limit a load runs into).

Rounds are interleaved: each round runs every server once, the order rotated by one per round. The
ratios (server / floor) are computed per round from the two numbers of that round, then the median
of those ratios is reported. No warm-up round: every turn has its own warm call per session.

Caveats: on a 2-core machine the load generator (50-200 SDK client sessions in one Python process,
itself CPU-bound: the client side of streamable HTTP costs about as much as the server side)
competes with the server for the same cores, so calls/s and latency measure the pair, not the
server alone; the generator is identical for both servers, so compare ratios, and the server-CPU
per call column. The generator keeps the cyclic GC on (a 10 s window of allocations with GC off
would grow without bound). Other processes on a shared machine add noise: `env.loadavg` is
recorded before and after, `other_cores` per turn, and `--quiet-wait S` makes each turn wait
(at most S seconds) until the rest of the machine is nearly idle.
"""

import argparse
import asyncio
import math
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import AsyncExitStack, suppress

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("W8_SHARED", os.path.join(HERE, "..", "..", "shared", "bench"))
sys.path.insert(0, os.path.abspath(SHARED))  # common.py and w6_server.py, read-only

import common  # noqa: E402
from common import clock  # noqa: E402

FLOOR = "SDK MCPServer (streamable HTTP)"
TOOLDECK = "tooldeck mcp serve --http --no-codemode"
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MAX_ERRORS_IN_A_ROW = 20
TOKEN_ENV = "W8_TOKEN"
TOKEN = os.environ.setdefault(TOKEN_ENV, __import__("secrets").token_urlsafe(24))
LOCATION_CONFIG = (
    "[mcp.serve.principals.bench]\n"
    f'token_env = "{TOKEN_ENV}"\n'
    "[[mcp.serve.principals.bench.permission]]\n"
    'action = "bash"\n'
    'effect = "deny"\n'
)

ADDER_PLUGIN = (
    "from tooldeck import hookimpl, tool\n\n"
    "@tool(codemode=False)\n"
    "def add(a: int, b: int) -> int:\n"
    '    """Add two integers."""\n'
    "    return a + b\n\n"
    "@hookimpl\n"
    "def tool_transform(editor):\n"
    "    editor.add(add)\n"
)


# ---- servers --------------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sdk_command(port, workdir):
    """the floor: this script in --serve-sdk mode (MCPServer from w6_server.build(0))."""
    return [sys.executable, os.path.abspath(__file__), "--serve-sdk", "--port", str(port)], None


def tooldeck_exe(given=None):
    if given:
        return given
    near = os.path.join(os.path.dirname(sys.executable), "tooldeck")
    return near if os.path.exists(near) else (shutil.which("tooldeck") or near)


def tooldeck_command_factory(exe):
    def tooldeck_command(port, workdir):
        """`tooldeck mcp serve --location DIR --http 127.0.0.1:P --no-codemode` on a fresh Location
        with the `add` project plugin and the principal `bench`, TOOLDECK_TRUST=1."""
        root = os.path.join(workdir, f"loc-{port}")
        os.makedirs(os.path.join(root, ".tooldeck", "plugins"))
        with open(os.path.join(root, ".tooldeck", "plugins", "adder.py"), "w") as f:
            f.write(ADDER_PLUGIN)
        with open(os.path.join(root, "tooldeck.toml"), "w") as f:
            f.write(LOCATION_CONFIG)  # the principal `bench`, its token in $W8_TOKEN
            limits = os.environ.get("W8_SERVE_LIMITS")  # e.g. "max_connections = 300"
            if limits:
                f.write("[mcp.serve]\n" + limits.replace(";", "\n") + "\n")
        cmd = [
            exe,
            "mcp",
            "serve",
            "--location",
            root,
            "--http",
            f"127.0.0.1:{port}",
            "--no-codemode",
        ]
        return cmd, {"TOOLDECK_TRUST": "1", TOKEN_ENV: TOKEN}

    return tooldeck_command


class ServerProc:
    """One server process in its own process group; `stop()` kills that group by its pid."""

    def __init__(self, name, factory, workdir):
        self.name = name
        self.port = free_port()
        cmd, extra_env = factory(self.port, workdir)
        self.cmd = cmd
        self.log_path = os.path.join(workdir, f"server-{self.port}.log")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed by stop())
        env = dict(os.environ, **(extra_env or {}))
        self.t_start = clock()
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        self.pid = self.proc.pid

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/mcp"

    def alive(self):
        return self.proc.poll() is None

    def wait_port(self, timeout):
        end = clock() + timeout
        while clock() < end:
            if not self.alive():
                raise RuntimeError(
                    f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}"
                )
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(
            f"{self.name} did not listen on port {self.port} within {timeout} s:\n{self.log_tail()}"
        )

    def log_tail(self, n=2000):
        try:
            self._log.flush()
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
                try:
                    os.killpg(self.pid, sig)  # the group whose id is the pid we started
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        else:
            # the server is gone; anything it started in its group still goes
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        self._log.close()


# ---- /proc readings -------------------------------------------------------------------------


def _status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_kb(pid):
    v = _status_kb(pid, "VmRSS")
    if v is None:
        try:
            import psutil

            v = psutil.Process(pid).memory_info().rss // 1024
        except Exception:
            v = None
    return v


def peak_rss_kb(pid, sampled_max=None):
    """VmHWM (the kernel's peak resident set of the process); the sampled maximum without /proc."""
    v = _status_kb(pid, "VmHWM")
    return v if v is not None else sampled_max


def cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime (all threads)
    except (OSError, IndexError, ValueError):
        try:
            import psutil

            t = psutil.Process(pid).cpu_times()
            return t.user + t.system
        except Exception:
            return None


def machine_busy_s():
    """CPU seconds all cores spent busy (user, nice, system, irq, softirq, steal) since boot."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / CLK_TCK
    except (OSError, ValueError, IndexError):
        return None


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def self_cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ---- load generator -------------------------------------------------------------------------


def result_int(r):
    if r.is_error:
        raise RuntimeError(f"tool error: {r.content}")
    sc = r.structured_content
    if isinstance(sc, dict) and len(sc) == 1:
        return int(next(iter(sc.values())))
    return int(r.content[0].text)


def authenticated(url, mode, stack, http_errors=None):
    """A `Client` whose every request carries the bearer token (the SDK's default HTTP client
    otherwise: `create_mcp_http_client`, its timeouts), its HTTP client closed with `stack`.
    With `http_errors` (a Counter), every HTTP error status is counted there with its
    method and body, so an error the SDK reports only as "error response" shows its cause."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from mcp.client import Client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    if http_errors is not None:

        async def seen(response):
            if response.status_code >= 400:
                body = (await response.aread())[:160].decode(errors="replace")
                key = f"{response.request.method} {response.status_code}: {body}"
                http_errors[key] += 1

        http.event_hooks["response"].append(seen)
    stack.push_async_callback(http.aclose)
    return Client(streamable_http_client(url, http_client=http), mode=mode)


async def probe(url, mode):
    async with AsyncExitStack() as stack, authenticated(url, mode, stack) as c:
        names = [t.name for t in (await c.list_tools()).tools]
        if "add" not in names:
            raise AssertionError(f"'add' not listed: {names}")
        v = result_int(await c.call_tool("add", {"a": 1, "b": 2}))
        if v != 3:
            raise AssertionError(f"add(1, 2) returned {v}")
        return {"protocol_version": c.protocol_version, "n_tools": len(names)}


async def run_load(
    url, n_clients, seconds, mode, call_timeout, connect_concurrency, connect_timeout, server_pid
):
    """N sessions; returns the measured numbers of one turn (see the module docstring)."""
    import anyio

    lat = []  # seconds, successful calls in the window
    errors = Counter()
    connect_errors = Counter()
    http_errors = Counter()  # HTTP error statuses the clients saw, with their bodies
    state = {"ready": 0, "done": 0, "connected": 0}
    all_ready, go, all_done = asyncio.Event(), asyncio.Event(), asyncio.Event()
    sem = asyncio.Semaphore(connect_concurrency)
    window = {}

    def mark(key, event):
        state[key] += 1
        if state[key] == n_clients:
            if key == "done":  # the window ends with the last session's last call
                window["t_last"] = clock()
                window["cpu1"] = (cpu_s(server_pid), self_cpu_s(), machine_busy_s())
            event.set()

    async def session(k):
        stack = AsyncExitStack()
        c = None
        try:
            async with sem:
                try:
                    c = await stack.enter_async_context(
                        authenticated(url, mode, stack, http_errors)
                    )
                    if result_int(await c.call_tool("add", {"a": k, "b": 1})) != k + 1:
                        raise AssertionError("warm call: wrong sum")
                    state["connected"] += 1
                except Exception as e:
                    connect_errors[f"{type(e).__name__}: {str(e)[:120]}"] += 1
                    c = None
            mark("ready", all_ready)
            await go.wait()
            if c is not None:
                t_end = window["t0"] + seconds
                i, in_a_row = 0, 0
                while True:
                    t0 = clock()
                    if t0 >= t_end:
                        break
                    try:
                        with anyio.fail_after(call_timeout):
                            r = await c.call_tool("add", {"a": i, "b": k})
                        v = result_int(r)
                        t1 = clock()
                        if v != i + k:
                            errors["wrong sum"] += 1
                            in_a_row += 1
                        else:
                            lat.append(t1 - t0)
                            in_a_row = 0
                    except Exception as e:
                        errors[f"{type(e).__name__}: {str(e)[:120]}"] += 1
                        in_a_row += 1
                    if in_a_row >= MAX_ERRORS_IN_A_ROW:
                        errors["session gave up (errors in a row)"] += 1
                        break
                    i += 1
            mark("done", all_done)
            await all_done.wait()
        finally:
            try:
                await stack.aclose()
            except Exception as e:
                errors[f"close: {type(e).__name__}"] += 1

    t_connect0 = clock()
    tasks = [asyncio.create_task(session(k)) for k in range(n_clients)]
    try:
        await asyncio.wait_for(all_ready.wait(), connect_timeout)
    except TimeoutError:
        connect_errors[f"not connected within {connect_timeout} s"] += n_clients - state["ready"]
    connect_s = clock() - t_connect0
    cpu_server0, cpu_gen0, busy0 = cpu_s(server_pid), self_cpu_s(), machine_busy_s()
    window["t0"] = clock()
    go.set()
    try:
        await asyncio.wait_for(all_done.wait(), seconds + call_timeout + 30)
    except TimeoutError:
        errors["window did not end in time"] += 1
        window["t_last"] = clock()
        window["cpu1"] = (cpu_s(server_pid), self_cpu_s(), machine_busy_s())
        all_done.set()
    t_last = window["t_last"]
    cpu_server1, cpu_gen1, busy1 = window["cpu1"]
    rss_after = rss_kb(server_pid)
    done, pending = await asyncio.wait(tasks, timeout=60)
    for t in pending:  # last resort: a session stuck in close
        t.cancel()
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            errors[f"session: {type(t.exception()).__name__}"] += 1
    elapsed = t_last - window["t0"]
    ok = len(lat)
    s = sorted(lat)

    def pct(p):  # nearest rank
        return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))] if s else None

    server_cpu = (cpu_server1 - cpu_server0) if None not in (cpu_server0, cpu_server1) else None
    others = None
    if None not in (busy0, busy1, server_cpu) and elapsed > 0:
        others = max(0.0, (busy1 - busy0) - server_cpu - (cpu_gen1 - cpu_gen0)) / elapsed
    return {
        "calls_ok": ok,
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "connect_errors": sum(connect_errors.values()),
        "connect_error_kinds": dict(connect_errors),
        "http_errors": dict(http_errors),
        "sessions_connected": state["connected"],
        "connect_s": connect_s,
        "window_s": elapsed,
        "calls_per_s": ok / elapsed if elapsed > 0 else None,
        "p50_s": pct(50),
        "p90_s": pct(90),
        "p99_s": pct(99),
        "max_s": s[-1] if s else None,
        "mean_s": (sum(s) / len(s)) if s else None,
        "server_cpu_s": server_cpu,
        "server_cpu_per_call_s": (server_cpu / ok) if (server_cpu is not None and ok) else None,
        "gen_cpu_s": cpu_gen1 - cpu_gen0,
        "gen_cpu_per_call_s": ((cpu_gen1 - cpu_gen0) / ok) if ok else None,
        "server_rss_after_kb": rss_after,
        "server_cores": (server_cpu / elapsed)
        if (server_cpu is not None and elapsed > 0)
        else None,
        "gen_cores": ((cpu_gen1 - cpu_gen0) / elapsed) if elapsed > 0 else None,
        "other_cores": others,
        "unfinished_sessions": len(pending),
    }


# ---- one turn --------------------------------------------------------------------------------


def wait_quiet(max_wait, threshold):
    """Before a turn: wait (at most max_wait s) until other processes keep fewer than `threshold`
    cores busy, measured over 1 s. Returns (seconds waited, the last measured load)."""
    t0 = clock()
    load = None
    while True:
        b0, s0 = machine_busy_s(), self_cpu_s()
        time.sleep(1.0)
        b1, s1 = machine_busy_s(), self_cpu_s()
        if b0 is None or b1 is None:
            return clock() - t0, None
        load = max(0.0, (b1 - b0) - (s1 - s0))
        if load < threshold or clock() - t0 >= max_wait:
            return clock() - t0, load
        time.sleep(1.0)


def turn(name, factory, a, workdir, info):
    quiet = wait_quiet(a.quiet_wait, a.quiet_threshold) if a.quiet_wait > 0 else (0.0, None)
    srv = ServerProc(name, factory, workdir)
    try:
        srv.wait_port(a.start_timeout)
        meta = asyncio.run(probe(srv.url, a.protocol))
        startup_s = clock() - srv.t_start
        rss_idle = rss_kb(srv.pid)
        out = asyncio.run(
            run_load(
                srv.url,
                a.clients,
                a.seconds,
                a.protocol,
                a.call_timeout,
                a.connect_concurrency,
                a.connect_timeout,
                srv.pid,
            )
        )
        if not srv.alive():
            out["error_kinds"]["server exited during the turn"] = 1
            out["errors"] += 1
        if out["errors"] or out["connect_errors"]:
            sys.stderr.write(
                f"[W8] {name}: errors {out['error_kinds']} {out['connect_error_kinds']}\n"
                f"[W8] {name}: HTTP errors seen by the clients: {out['http_errors']}\n"
                f"[W8] {name}: server log tail:\n{srv.log_tail()}\n"
            )
        sampled = [x for x in (rss_idle, out["server_rss_after_kb"]) if x is not None]
        out["server_peak_rss_kb"] = peak_rss_kb(srv.pid, max(sampled) if sampled else None)
        out["server_rss_idle_kb"] = rss_idle
        out["server_children"] = len(children(srv.pid))
        out["startup_s"] = startup_s
        out["quiet_wait_s"], out["pre_turn_other_cores"] = quiet
        info.setdefault("protocol_version", meta["protocol_version"])
        info.setdefault("n_tools_listed", meta["n_tools"])
        info["command"] = [os.path.basename(c) if c in (sys.executable,) else c for c in srv.cmd]
        return out
    except Exception:
        sys.stderr.write(f"[W8] {name}: server log tail:\n{srv.log_tail()}\n")
        raise
    finally:
        srv.stop()


METRICS = [
    "calls_per_s",
    "p50_s",
    "p90_s",
    "p99_s",
    "max_s",
    "mean_s",
    "errors",
    "connect_errors",
    "server_cpu_per_call_s",
    "gen_cpu_per_call_s",
    "server_cores",
    "gen_cores",
    "other_cores",
    "server_peak_rss_kb",
    "server_rss_idle_kb",
    "server_rss_after_kb",
    "startup_s",
    "connect_s",
    "window_s",
    "calls_ok",
]
RATIO_METRICS = [
    "calls_per_s",
    "p50_s",
    "p90_s",
    "p99_s",
    "max_s",
    "server_cpu_per_call_s",
    "server_peak_rss_kb",
]


def serve_sdk(port):
    import w6_server

    w6_server.build(0).run("streamable-http", host="127.0.0.1", port=port)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument(
        "--protocol",
        default="auto",
        help="Client mode: 'auto' (server/discover, 2026-07-28 with these servers) or 'legacy' "
        "(initialize handshake, session ids)",
    )
    ap.add_argument(
        "--servers", help="comma-separated subset of: floor, tooldeck (the floor always runs)"
    )
    ap.add_argument("--tooldeck", help="the tooldeck executable (default: next to this python)")
    ap.add_argument("--call-timeout", type=float, default=30.0)
    ap.add_argument("--connect-concurrency", type=int, default=25)
    ap.add_argument("--connect-timeout", type=float, default=120.0)
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument(
        "--quiet-wait",
        type=float,
        default=0.0,
        help="before each turn wait up to this many seconds for other processes to use fewer "
        "than --quiet-threshold cores (shared machines; default 0: do not wait)",
    )
    ap.add_argument("--quiet-threshold", type=float, default=0.25)
    ap.add_argument("--out")
    ap.add_argument("--serve-sdk", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve_sdk:
        serve_sdk(a.port)
        return
    if a.clients < 1 or a.seconds <= 0 or a.rounds < 1:
        ap.error("--clients, --seconds and --rounds must be positive")

    if "tooldeck" not in common.DISTS:
        common.DISTS.append("tooldeck")
    servers = {
        FLOOR: (
            sdk_command,
            "mcp",
            "floor (SDK server)",
            "MCPServer (mcp 2.3) from w6_server.build(0): `def add(a: int, b: int) -> int` only; "
            "`.run('streamable-http', host='127.0.0.1', port=P)`, defaults otherwise "
            "(SSE responses, DNS-rebinding protection on).",
        ),
        TOOLDECK: (
            tooldeck_command_factory(tooldeck_exe(a.tooldeck)),
            "tooldeck",
            "server under test",
            "`tooldeck mcp serve --location DIR --http 127.0.0.1:P --no-codemode`; DIR has "
            "`.tooldeck/plugins/adder.py` adding `@tool(codemode=False) def add(a: int, b: int) "
            "-> int`; TOOLDECK_TRUST=1.",
        ),
    }
    if a.servers:
        keep = {"floor": FLOOR, "tooldeck": TOOLDECK}
        want = {FLOOR} | {keep.get(x.strip(), x.strip()) for x in a.servers.split(",")}
        servers = {n: v for n, v in servers.items() if n in want}
    names = list(servers)
    env = common.environment()
    info = {n: {} for n in names}
    per_round = {n: [] for n in names}
    res = {n: {"samples": {}, "ratio_samples": {}} for n in names}
    workdir = tempfile.mkdtemp(prefix="w8-")
    try:
        for rnd in range(a.rounds):
            k = rnd % len(names)
            order = names[k:] + names[:k]
            this = {}
            for n in order:
                factory = servers[n][0]
                print(
                    f"[W8] round {rnd + 1}/{a.rounds}: {n} ({a.clients} clients, {a.seconds:g} s)",
                    file=sys.stderr,
                    flush=True,
                )
                this[n] = turn(n, factory, a, workdir, info[n])
                o = this[n]
                print(
                    f"[W8]   {o['calls_per_s']:.0f} calls/s, p50 {o['p50_s'] * 1e3:.1f} ms, "
                    f"p99 {o['p99_s'] * 1e3:.1f} ms, errors {o['errors']}+{o['connect_errors']}, "
                    f"peak RSS {o['server_peak_rss_kb'] / 1024:.0f} MiB; cores busy: server "
                    f"{o['server_cores'] or 0:.2f}, generator {o['gen_cores'] or 0:.2f}, "
                    f"other processes {_or_nan(o['other_cores']):.2f}"
                    if o["calls_ok"]
                    else "[W8]   no successful call: "
                    f"{o['error_kinds']} {o['connect_error_kinds']}",
                    file=sys.stderr,
                    flush=True,
                )
            for n in names:
                per_round[n].append(this[n])
                for m in METRICS:
                    v = this[n].get(m)
                    res[n]["samples"].setdefault(m, []).append(v)
                    if m in RATIO_METRICS:
                        fv = this[FLOOR].get(m)
                        res[n]["ratio_samples"].setdefault(m, []).append(
                            (v / fv) if (v is not None and fv) else None
                        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for n in names:
        res[n]["stats"] = {m: common.summarize(v) for m, v in res[n]["samples"].items()}
        res[n]["ratio"] = {m: common.summarize(v) for m, v in res[n]["ratio_samples"].items()}
        res[n]["rounds"] = per_round[n]
    env["loadavg_end"] = common.environment()["loadavg"]
    payload = {
        "workload": "W8",
        "env": env,
        "rounds": a.rounds,
        "clients": a.clients,
        "seconds": a.seconds,
        "quiet_wait_s": a.quiet_wait,
        "quiet_threshold_cores": a.quiet_threshold,
        "protocol_mode": a.protocol,
        "call_timeout_s": a.call_timeout,
        "connect_concurrency": a.connect_concurrency,
        "floor": FLOOR,
        "primary_metric": "calls_per_s",
        "dist_of": {n: servers[n][1] for n in names},
        "role": {n: servers[n][2] for n in names},
        "doc": {n: servers[n][3] for n in names},
        "info": info,
        "results": res,
        "note": "2 shared cores: the load generator runs on the same cores as the server; "
        "compare ratios and server CPU per call.",
    }
    out = a.out or os.path.join(
        common.RAW_DIR, "W8.json" if a.clients == 50 else f"W8-c{a.clients}.json"
    )
    common.write_raw("W8", payload, out)
    print_table(res, names, a)


def _med(res, n, m):
    st = res[n]["stats"].get(m)
    return st["median"] if st else None


def _rat(res, n, m):
    st = res[n]["ratio"].get(m)
    return st["median"] if st else None


def _or_nan(value):
    return float("nan") if value is None else value


def print_table(res, names, a):
    print(
        f"\nW8 serve load: {a.clients} clients x {a.seconds:g} s, {a.rounds} rounds "
        "(median over rounds; "
        f"x = ratio to the floor per round, median)"
    )
    hdr = (
        f"{'server':42s} {'calls/s':>14s} {'p50 ms':>13s} {'p99 ms':>13s} {'max ms':>8s} "
        f"{'errors*':>7s} {'srv CPU/call µs':>16s} {'gen CPU/call µs':>15s} {'peak RSS MiB':>13s} "
        f"{'other load':>10s}"
    )
    print(hdr)
    print("-" * len(hdr))
    for n in names:

        def cell(m, scale, fmt, ratio=True, n=n):
            v = _med(res, n, m)
            if v is None:
                return "-"
            s = format(v * scale, fmt)
            r = _rat(res, n, m) if ratio else None
            return f"{s} x{r:.2f}" if r is not None else s

        errs = sum(x or 0 for x in res[n]["samples"]["errors"]) + sum(
            x or 0 for x in res[n]["samples"]["connect_errors"]
        )
        print(
            f"{n:42s} {cell('calls_per_s', 1, '.0f'):>14s} {cell('p50_s', 1e3, '.1f'):>13s} "
            f"{cell('p99_s', 1e3, '.1f'):>13s} {cell('max_s', 1e3, '.0f', False):>8s} {errs:>7d} "
            f"{cell('server_cpu_per_call_s', 1e6, '.0f'):>16s} "
            f"{cell('gen_cpu_per_call_s', 1e6, '.0f', False):>15s} "
            f"{cell('server_peak_rss_kb', 1 / 1024, '.0f'):>13s} "
            f"{cell('other_cores', 1, '.2f', False):>10s}"
        )
    print(
        "* errors: all rounds together (call errors + sessions that failed to connect); "
        "other columns: median over rounds. srv/gen CPU/call: CPU seconds of the server / "
        "of this load generator in the window per successful call. peak RSS: the server's "
        "VmHWM (start-up + load). other load: cores used by other processes of the machine "
        "during the window (noise)."
    )


if __name__ == "__main__":
    main()
