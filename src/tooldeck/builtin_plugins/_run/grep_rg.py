"""The ripgrep engine of ``grep``: the same files and lines as the Python engine, faster.

ripgrep only matches here. The files come from ``ignore.walk_files`` (filtered for
``include``) and are passed explicitly, so the ignore rules are tooldeck's, identical in
both engines. ripgrep searches them in parallel; ``Found`` puts the kept matches back in
walk order. Binary files follow the shared rule: each file with a match is sniffed when
ripgrep starts reporting it, and dropped if binary. ``--text --encoding none`` makes
ripgrep read the bytes as they are, as the Python engine does; ``--no-config`` keeps a
user's ``RIPGREP_CONFIG_PATH`` out. Plain output is read, not ``--json``: JSON lists every
submatch, which makes an empty or one-character pattern cost hundreds of times more.
The pattern is the Rust form made by ``grep_python.parse_pattern``.

Which ``rg``: ``$TOOLDECK_RIPGREP`` when set (a path or command name, or ``off`` to force
the Python engine), else ``rg`` on ``PATH``, else the one installed next to this
interpreter (a virtualenv's ``bin``), which is where the PyPI wheel puts it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sysconfig
from collections.abc import Iterator, Sequence

from tooldeck.builtin_plugins._run.grep_python import Found, Pattern, PatternError, sniff_text
from tooldeck.errors import ExternalError

RIPGREP_ENV = "TOOLDECK_RIPGREP"
# Output records as `path NUL line-number : text LF`; read every byte as it is; no
# config file, no ignore rules (the files are chosen already), no per-file messages.
_FLAGS = (
    "--no-config", "--text", "--encoding", "none", "--no-ignore", "--hidden", "--no-messages",
    "--color", "never", "--no-heading", "--with-filename", "--line-number", "--null",
)  # fmt: skip
_ARG_BUDGET = 128 * 1024
"""Bytes of file arguments per ``rg`` run, far below the OS limit on a command line."""
_READ_BYTES = 256 * 1024


def find_ripgrep() -> str | None:
    """The ``rg`` executable to use, or None for the Python engine (module docstring)."""
    configured = os.environ.get(RIPGREP_ENV)
    if configured is not None and configured.strip().lower() in ("", "off"):
        return None
    if configured is not None:
        found = shutil.which(configured)
        if found is None:
            raise ExternalError(f"${RIPGREP_ENV}={configured!r} is not an executable")
        return found
    return shutil.which("rg") or shutil.which("rg", path=sysconfig.get_path("scripts"))


async def search_rg(rg: str, files: Sequence[str], pattern: Pattern, limit: int) -> Found:
    """Search ``files`` in order with ``rg``; the same ``Found`` as ``search_python``."""
    found = Found(limit)
    order = {path: index for index, path in enumerate(files)}
    for chunk in _chunks(files):
        await _run(rg, chunk, pattern.rust, _Records(found, order))
    return found


def _chunks(files: Sequence[str]) -> Iterator[list[str]]:
    chunk: list[str] = []
    size = 0
    for path in files:
        cost = len(os.fsencode(path)) + 1
        if chunk and size + cost > _ARG_BUDGET:
            yield chunk
            chunk, size = [], 0
        chunk.append(path)
        size += cost
    if chunk:
        yield chunk


async def _run(rg: str, files: list[str], regex: str, records: _Records) -> None:
    """One ``rg`` process over ``files``; killed if the call is cancelled or fails."""
    process = await asyncio.create_subprocess_exec(
        rg, *_FLAGS, "--regexp", regex, "--", *map(os.fsencode, files),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    stdout, stderr = process.stdout, process.stderr
    assert stdout is not None and stderr is not None  # both are pipes, as asked above
    errors = asyncio.ensure_future(stderr.read())
    try:
        await _pump(stdout, records)
    except BaseException:  # cleanup only: the exception (even a cancellation) propagates
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        raise
    finally:
        while await stdout.read(_READ_BYTES):
            pass  # after a kill, wait() returns only once the pipe is drained to its end
        status = await process.wait()
        detail = (await errors).decode("utf-8", "replace").strip()
    _check_exit(status, detail)


def _check_exit(status: int, detail: str) -> None:
    """0 and 1 are "matches" and "none". 2 with nothing on stderr means only unreadable
    files (``--no-messages`` hides those, as the Python engine skips them); with a
    message it is the pattern ripgrep refused."""
    if status in (0, 1) or (status == 2 and not detail):
        return
    if status == 2:
        raise PatternError(f"ripgrep rejected the search: {detail}. Simplify the pattern.")
    raise ExternalError(f"ripgrep ended with status {status}: {detail or 'no message'}")


async def _pump(stream: asyncio.StreamReader, records: _Records) -> None:
    """Feed ``stream`` to ``records`` in large reads; a record may span two of them."""
    pending = b""
    while chunk := await stream.read(_READ_BYTES):
        data = pending + chunk if pending else chunk
        pending = data[records.feed(data) :]
    if pending:
        raise ExternalError(f"ripgrep's output ended inside a record: {pending[:80]!r}")


class _Records:
    """ripgrep's ``path NUL line-number : text LF`` records, turned into ``Found`` entries.

    Unambiguous when read in order: a path has no NUL, a line no LF. A file's records
    come together; its first bytes are sniffed when its first record arrives, so a
    binary file (by the shared rule) adds nothing. A record ``Found`` would only count
    is not decoded.
    """

    def __init__(self, found: Found, order: dict[str, int]) -> None:
        self.found = found
        self.order = order
        self.raw_path = b""
        self.path = ""
        self.index = 0
        self.text = False

    def feed(self, data: bytes) -> int:
        """Take every complete record in ``data``; return how many bytes were used."""
        used = 0
        while (nul := data.find(b"\0", used)) >= 0:
            colon = data.find(b":", nul)
            end = data.find(b"\n", colon) if colon >= 0 else -1
            if end < 0:
                break
            self._file(data[used:nul])
            if self.text:
                self._line(int(data[nul + 1 : colon]), data, colon + 1, end)
            used = end + 1
        return used

    def _file(self, raw_path: bytes) -> None:
        if raw_path != self.raw_path:
            self.raw_path, self.path = raw_path, os.fsdecode(raw_path)
            self.index = self.order[self.path]
            self.text = sniff_text(self.path)

    def _line(self, line: int, data: bytes, start: int, end: int) -> None:
        if self.found.keeps(self.index, line):
            self.found.add(self.index, self.path, line, data[start:end].decode("utf-8", "replace"))
        else:
            self.found.count(self.path)
