"""Running ``git``: one subprocess per call, bounded in time and output, never a shell.

Every expected problem (git not installed, a timeout, a path that is not in a
repository, a bad revision) becomes a ``ToolFailure`` whose message tells the model what
to do next. Cancellation kills the subprocess and propagates.

The repositories a model points us at are not trusted: options that would let a
repository's own config run programs (``core.fsmonitor``, signature checks, external
diff drivers, textconv filters) are switched off, and ``--end-of-options`` keeps a
revision such as ``--output=x`` from being read as an option. This is hygiene, not a
sandbox: git has no switch for every configurable program (clean/smudge filters named
in ``.gitattributes`` still run), so the ``git.read`` ask remains the real gate.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tooldeck import ToolFailure

TIMEOUT_SECONDS = 30.0
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
MAX_ERROR_BYTES = 64 * 1024
_CHUNK = 64 * 1024

SAFE_OPTIONS = (
    "--no-pager",
    "-c", "core.fsmonitor=false",  # a hook program run by status and diff
    "-c", "log.showSignature=false",  # would run gpg.program from the config
    "-c", "color.ui=never",
)  # fmt: skip
"""Global options before every subcommand (diff-like commands add ``--no-ext-diff``)."""

GIT_MISSING = (
    "git is not installed (no `git` executable on PATH), so the git tools cannot run. "
    "Tell the user; do not try to install it yourself."
)


@dataclass(frozen=True, slots=True)
class GitRun:
    """What one git subprocess produced. ``truncated``: stdout hit the byte cap."""

    returncode: int
    stdout: bytes
    stderr: str
    truncated: bool

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")


async def run_git(
    args: Sequence[str],
    cwd: Path,
    *,
    limit: int = MAX_OUTPUT_BYTES,
    timeout: float | None = None,
) -> GitRun:
    """Run ``git <args>`` in ``cwd``; stdout beyond ``limit`` bytes stops the process.

    ``timeout`` defaults to ``TIMEOUT_SECONDS``, read at call time.
    """
    timeout = TIMEOUT_SECONDS if timeout is None else timeout
    proc = await _start(args, cwd)
    try:
        async with asyncio.timeout(timeout):
            (stdout, truncated), (stderr, _) = await asyncio.gather(
                _drain(proc.stdout, limit, partial(_kill, proc)),
                _drain(proc.stderr, MAX_ERROR_BYTES, partial(_kill, proc)),
            )
            returncode = await proc.wait()
    except TimeoutError:
        raise ToolFailure(
            f"`git {args[0]}` did not finish within {timeout:g} seconds. "
            "Narrow it down (a smaller max_count, a single file) and try again."
        ) from None
    finally:
        if proc.returncode is None:  # timed out or cancelled: do not leave it running
            _kill(proc)
            await proc.wait()
    return GitRun(
        0 if truncated else returncode, stdout, stderr.decode(errors="replace"), truncated
    )


async def _start(args: Sequence[str], cwd: Path) -> asyncio.subprocess.Process:
    git = shutil.which("git")
    if git is None:
        raise ToolFailure(GIT_MISSING)
    try:
        return await asyncio.create_subprocess_exec(
            git,
            *SAFE_OPTIONS,
            *args,
            cwd=cwd,
            env=_environment(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError as exc:  # git vanished between which() and exec
        raise ToolFailure(GIT_MISSING, cause=exc) from exc
    except OSError as exc:
        raise ToolFailure(f"Could not start git: {exc.strerror or exc}.", cause=exc) from exc


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):  # it exited on its own meanwhile
        proc.kill()


def _environment() -> dict[str, str]:
    """Never prompt, never take optional locks, English messages we can recognise."""
    return {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "LC_ALL": "C",
    }


async def _drain(
    stream: asyncio.StreamReader | None, limit: int, stop: Callable[[], None]
) -> tuple[bytes, bool]:
    """Read to EOF, or up to ``limit`` bytes and then ``stop`` the writer."""
    if stream is None:
        return b"", False
    chunks: list[bytes] = []
    size = 0
    while chunk := await stream.read(_CHUNK):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            stop()
            return b"".join(chunks)[:limit], True
    return b"".join(chunks), False


# -- failures ------------------------------------------------------------------------------
_HINTS = (
    (
        "not a git repository",
        "Pass `path` pointing into a git repository (git_* tools only read existing ones).",
    ),
    (
        "unknown revision",
        "Check the revision: git_log lists commits; HEAD~1 is the parent of HEAD.",
    ),
    ("bad revision", "Check the revision: git_log lists commits; HEAD~1 is the parent of HEAD."),
    ("outside repository", "`file` must be inside the repository, relative to `path`."),
)


def failure(run: GitRun, what: str) -> ToolFailure:
    """A failed git run in words the model can act on: git's message plus a hint."""
    message = " ".join(
        line.removeprefix("fatal: ").strip() for line in run.stderr.splitlines() if line.strip()
    )
    hints = [hint for needle, hint in _HINTS if needle in message]
    text = f"git could not {what}: {message or f'exit status {run.returncode}'}"
    return ToolFailure(" ".join([text, *hints[:1]]), metadata={"stderr": run.stderr})


def checked(run: GitRun, what: str) -> GitRun:
    """``run`` itself when git succeeded; else the failure for ``what``."""
    if run.returncode != 0:
        raise failure(run, what)
    return run
