"""Warm starts for the suite's MCP server processes.

Every MCP server the tests start (a fixture server under ``tests/mcp/servers``, or
``tooldeck mcp serve``) imports the MCP SDK before it does anything: about a second of
CPU, of which the program's own work is a small part, and a default run starts some 150
of them. ``warm(argv)`` turns such a command into one that starts the same program
forked from a process that has imported the SDK already (the zygote, one per test
process): the same interpreter and file, the caller's stdin, stdout, stderr, working
directory and environment, a real process on real pipes, and the exit status of the
program is the command's. ``tests/test_warm.py`` pins a warm start to the plain one.

What differs, so a test about it starts its server plainly: the program's process is
the zygote's child in a session of its own (the command's process is a small launcher
that forwards signals to that session and ends with the program), and the SDK's
modules are loaded before the program runs.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["warm"]

HERE = Path(__file__).parent
_zygote_args: list[str] = []
"""The launcher's first arguments once this process's zygote runs: its socket, its pid
and its log (what it printed, for when it could not start)."""


def warm(argv: list[str]) -> list[str]:
    """``argv`` (``[sys.executable, script or -c CODE or -m MODULE, *args]``) started warm."""
    if argv[0] != sys.executable:
        raise ValueError(f"only this interpreter's programs start warm, not {argv[0]!r}")
    return [sys.executable, "-I", "-S", str(HERE / "launch.py"), *_zygote(), *argv[1:]]


def _zygote() -> list[str]:
    """This process's zygote, started at the first warm command (it listens once it
    imported the SDK; launchers wait for it). Its stdin is a pipe from this process: when
    this process ends, the zygote does too."""
    if not _zygote_args:
        folder = Path(tempfile.mkdtemp(prefix="tdwarm-"))
        log = folder / "zygote.log"
        with open(log, "wb") as sink:
            zygote = subprocess.Popen(
                [sys.executable, str(HERE / "zygote.py"), str(folder / "zygote")],
                stdin=subprocess.PIPE,
                stdout=sink,
                stderr=sink,
            )
        atexit.register(_stop, zygote, folder)
        _zygote_args.extend([str(folder / "zygote"), str(zygote.pid), str(log)])
    return _zygote_args


def _stop(zygote: subprocess.Popen[bytes], folder: Path) -> None:
    assert zygote.stdin is not None
    zygote.stdin.close()
    zygote.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)
