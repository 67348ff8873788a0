"""A real PostgreSQL server from Debian's ``postgresql`` package, for the store tests.

``initdb`` once into a temporary directory, then ``postgres`` on a free port, stopped with
a fast shutdown (``SIGINT``: connections are ended, as a restart by an operator ends
them). The session's server (``postgres_dsn`` in ``tests/conftest.py``) is one; a test
that takes the database away starts its own and starts it again on the same port and
data, so the clients' conninfo stays right.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from .ports import free_port


def postgres_bin() -> Path:
    """The newest server installed by Debian's ``postgresql`` package."""
    found = sorted(
        (p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/postgres")),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    if not found:
        pytest.fail(
            "the store tests need a PostgreSQL server: apt-get install -y postgresql "
            "(.ci/run installs it)"
        )
    return found[-1]


def as_server_user() -> tuple[list[str], int | None, int | None]:
    """PostgreSQL refuses to run as root: as root, run it as the package's ``postgres``."""
    if os.geteuid() != 0:
        return [], None, None
    user = pwd.getpwnam("postgres")
    prefix = [
        "setpriv",
        f"--reuid={user.pw_uid}",
        f"--regid={user.pw_gid}",
        "--init-groups",
        "--reset-env",
        "--",
    ]
    return prefix, user.pw_uid, user.pw_gid


class PostgresServer:
    """One ``postgres`` process over a data dir of its own; ``dsn`` reaches it."""

    def __init__(self, prefix: str = "tooldeck-pg-own-") -> None:
        self.bin_dir = postgres_bin()
        self.prefix, uid, gid = as_server_user()
        self.base = Path(tempfile.mkdtemp(prefix=prefix))
        if uid is not None and gid is not None:
            os.chown(self.base, uid, gid)
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.port = free_port()
        self.dsn = f"host=127.0.0.1 port={self.port} user=tooldeck dbname=postgres"
        self.process: subprocess.Popen[bytes] | None = None
        subprocess.run(
            [
                *self.prefix,
                str(self.bin_dir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "tooldeck",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )

    def start(self) -> None:
        """Start the server and wait (at most 30 s) until it accepts connections."""
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [
                    *self.prefix,
                    str(self.bin_dir / "postgres"),
                    "-D",
                    str(self.data),
                    "-p",
                    str(self.port),
                    "-k",
                    str(self.base),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "fsync=off",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.wait_ready()

    def wait_ready(self) -> None:
        import psycopg

        for _ in range(600):
            assert self.process is not None
            if self.process.poll() is not None:
                pytest.fail(f"postgres exited with {self.process.returncode}:\n{self.logged()}")
            try:
                psycopg.connect(self.dsn, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                time.sleep(0.05)
        pytest.fail(f"postgres did not accept connections within 30 s:\n{self.logged()}")

    def stop(self) -> None:
        """A fast shutdown: every connection ends, then the server exits."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""
