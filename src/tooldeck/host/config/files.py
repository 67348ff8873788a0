"""The files tooldeck keeps for its user (the trust store, OAuth tokens, kept MCP
listings, the SQLite store's sidecar lock): written whole or not at all, changed under
a lock, and a write the disk refuses said plainly.

A reader sees the old file or the whole new one (``write_atomically``: a temporary
file beside it, flushed to disk, renamed over it), and two processes changing one file
both land (``locked``: an exclusive ``flock`` on a sidecar file around the read and
the write). A disk that refuses the write (full, a size limit, a file where a folder
should be) leaves the old file whole; ``unwritten`` is the error that says so.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from tooldeck.errors import ConfigError


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the whole new one
    (the file is its owner's alone, 0600, from its first byte)."""
    import tempfile  # writers only: most commands read these files and never write

    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on the sidecar file ``path`` while the block runs
    (POSIX ``flock``; where there is none, no lock: the atomic rename still keeps every
    file whole). Closing the descriptor releases it."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def unwritten(path: Path, what: str, exc: OSError) -> ConfigError:
    """The error for ``what`` at ``path`` that the disk would not take: why, and which
    file when another one failed (its folder, the lock)."""
    other = f" ({exc.filename})" if exc.filename and exc.filename != str(path) else ""
    return ConfigError(
        str(path), what, f"cannot be written: {exc.strerror or exc}{other}; it was left as it was"
    )
