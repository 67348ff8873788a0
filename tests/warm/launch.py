"""The command's process of a warm start: ``python -I -S launch.py SOCKET PID LOG PROGRAM...``.

It hands its stdin, stdout and stderr, working directory, environment and the program's
arguments to the zygote, which forks the program's process; then it forwards the
signals that end a process to that process's session and exits as the program did.
Standard library only, without ``site``: it starts in a few milliseconds.
"""

import contextlib
import json
import os
import signal
import socket
import struct
import sys
import time

CONNECT_FOR_S = 120.0  # the zygote imports the SDK before it listens; a loaded box is slow


def connected(path: str, zygote: int, log: str) -> socket.socket:
    """A connection to the zygote, waiting while it imports; refused if it exited."""
    deadline = time.monotonic() + CONNECT_FOR_S
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if not running(zygote):
                sys.exit(f"warm start: the zygote (pid {zygote}) exited; it printed:\n" + tail(log))
            if time.monotonic() > deadline:
                sys.exit(
                    f"warm start: the zygote (pid {zygote}) not listening after {CONNECT_FOR_S} s"
                )
            time.sleep(0.02)


def running(pid: int) -> bool:
    """Whether ``pid`` runs: exited and unreaped (a zombie) counts as ended."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def tail(log: str) -> str:
    try:
        with open(log, errors="replace") as text:
            return text.read()[-2000:]
    except OSError as error:
        return f"(its log {log} cannot be read: {error})"


def received(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            sys.exit("warm start: the zygote went away")
        data += chunk
    return data


def main() -> None:
    path, zygote, log, program = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    request = json.dumps({"argv": program, "cwd": os.getcwd(), "env": dict(os.environ)})
    payload = request.encode("utf-8", "surrogateescape")
    sock = connected(path, zygote, log)
    socket.send_fds(sock, [struct.pack("!Q", len(payload))], [0, 1, 2])
    sock.sendall(payload)
    (pid,) = struct.unpack("!i", received(sock, 4))

    def forward(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    (code,) = struct.unpack("!i", received(sock, 4))
    if code < 0:  # ended by a signal: end the same way
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


main()
