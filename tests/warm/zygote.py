"""The zygote of warm starts: ``python zygote.py SOCKET``, its stdin a pipe from its owner.

It imports the MCP SDK's heavy modules once, then listens on SOCKET. For each launcher
that connects it receives the launcher's stdin, stdout and stderr, forks, and in the
child runs the program in place of this one (``run``); it tells the launcher the child's
pid and, once it reaps the child, the exit status. A launcher that goes away before its
program ended takes the program with it (SIGKILL to the program's session). It stays
single-threaded, so forking is safe, and exits with its owner (EOF on stdin).
"""

import contextlib
import gc
import importlib
import json
import os
import runpy
import select
import signal
import socket
import struct
import sys
import types

PRELOADED = (
    "mcp.server.mcpserver",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
    "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager",
    "mcp.client.session",
    "mcp.client.streamable_http",
    "starlette.applications",
    "uvicorn",
    "httpx",
)
"""What every MCP server process the tests start would import first."""

ZYGOTE_PYTHONPATH = os.environ.get("PYTHONPATH", "")


def received(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the launcher went away")
        data += chunk
    return data


def accepted(listener: socket.socket) -> tuple[socket.socket, list[int], dict]:
    conn, _ = listener.accept()
    conn.settimeout(30)
    header, fds, _, _ = socket.recv_fds(conn, 8, 3)
    (size,) = struct.unpack("!Q", header)
    request = json.loads(received(conn, size).decode("utf-8", "surrogateescape"))
    conn.settimeout(None)
    return conn, fds, request


def serve(path: str) -> tuple[list[int], dict] | None:
    """Fork a program per launcher until the owner goes away. Returns only in a child:
    its stdio and its request."""
    wakeup_r, wakeup_w = os.pipe()
    os.set_blocking(wakeup_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wakeup_w)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    running: dict[int, socket.socket | None] = {}  # program pid -> its launcher's connection
    while True:
        launchers = [conn for conn in running.values() if conn is not None]
        readable, _, _ = select.select([sys.stdin, listener, wakeup_r, *launchers], [], [])
        if sys.stdin in readable and not os.read(sys.stdin.fileno(), 1024):
            for pid in running:
                _kill(pid)
            return None
        if wakeup_r in readable:
            os.read(wakeup_r, 1024)
            _reap(running)
        for pid, conn in list(running.items()):
            if conn in readable and _gone(conn):  # its program goes too; reaped as it ends
                conn.close()
                running[pid] = None
                _kill(pid)
        if listener in readable:
            try:
                conn, fds, request = accepted(listener)
            except (OSError, ValueError) as error:
                print(f"warm start refused: {error}", file=sys.stderr)
                continue
            pid = os.fork()
            if pid == 0:  # the program's process: the zygote's descriptors are not its
                for sock in (listener, conn, *launchers):
                    sock.close()
                os.close(wakeup_r)
                os.close(wakeup_w)
                return fds, request
            for fd in fds:
                os.close(fd)
            conn.sendall(struct.pack("!i", pid))
            running[pid] = conn


def _gone(conn: socket.socket) -> bool:
    """A launcher never writes after its request: readable means it closed or failed."""
    try:
        return not conn.recv(1)
    except OSError:
        return True


def _reap(running: dict[int, socket.socket | None]) -> None:
    while running:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        conn = running.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
            conn.close()


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def _search_path(pythonpath: str) -> list[str]:
    """``sys.path`` as a plain start with ``PYTHONPATH`` would build it: the program's
    entry first (set by the caller), that variable's folders, then the interpreter's own
    (this process's path without its entry and its own ``PYTHONPATH``)."""
    own = {os.path.abspath(p) for p in ZYGOTE_PYTHONPATH.split(os.pathsep) if p}
    base = [p for p in sys.path[1:] if os.path.abspath(p) not in own]
    return ["", *[os.path.abspath(p) for p in pythonpath.split(os.pathsep) if p], *base]


def run(fds: list[int], request: dict) -> None:
    """Become the program: its session, stdio, directory, environment and arguments,
    then its code as ``__main__``; the interpreter exits as after a plain start."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[:] = _search_path(request["env"].get("PYTHONPATH", ""))
    program = request["argv"]
    if program[0] == "-c":
        sys.argv = ["-c", *program[2:]]
        sys.path[0] = ""
        main = types.ModuleType("__main__")
        sys.modules["__main__"] = main
        exec(compile(program[1], "<string>", "exec"), main.__dict__)
    elif program[0] == "-m":
        sys.argv = [program[1], *program[2:]]
        sys.path[0] = os.getcwd()
        runpy.run_module(program[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(program)
        sys.path[0] = os.path.dirname(os.path.realpath(program[0]))
        runpy.run_path(program[0], run_name="__main__")


def main() -> None:
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except ImportError as error:  # not installed here: a program importing it fails alike
            print(f"warm start: not preloaded: {error}", file=sys.stderr)
    gc.freeze()  # the children share these objects' pages instead of each copying them
    child = serve(sys.argv[1])
    if child is not None:
        run(*child)


main()
