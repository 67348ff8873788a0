"""The formatter after a write: ``[format]`` maps glob patterns to a command.

``write``, ``edit`` and ``patch`` run the command of the first pattern that matches each
file they changed (``"*.py" = ["ruff", "format", "$FILE"]``; ``$FILE`` is replaced by
the file's absolute path). A pattern without ``/`` matches the file name, one with ``/``
the path relative to the project root. Files outside the project are not formatted.

* **Asked before the write.** Running a program is what ``shell`` asks about, so each
  formatter command is asked as ``shell`` with the command line as its resource, right
  after the ``edit`` ask and before anything is written: a decline leaves the file
  untouched instead of half the call done. A rule such as allow ``ruff format *``
  answers it for good.
* **Bounded and confined.** The command runs without a shell (a file name is one
  argument, never code), in the project root, with stdin empty, in its own process
  group that is killed after ``FORMAT_TIMEOUT_S`` seconds with everything it started.
  This bounds it; it is not a sandbox: the formatter has the user's rights.
* **The write stands.** The tool's write has already succeeded when the formatter runs.
  A formatter that fails, times out or cannot start leaves the file as the tool wrote
  it (its content is put back if the formatter changed it anyway), and the result says
  so; a formatter that succeeds says whether it changed the text.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from tooldeck._tool import ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import FileServices, feedback_as_failure, read_regular
from tooldeck.builtin_plugins._run.process import run_in_group
from tooldeck.builtin_plugins._run.writes import stage

if TYPE_CHECKING:
    from tooldeck.host.permissions.permission import PermissionGate

FORMAT_TIMEOUT_S = 10.0
FILE = "$FILE"
_TAIL_CHARS = 300  # of a failing formatter's output, quoted in the result

Status = Literal["changed", "unchanged", "failed"]


@dataclass(frozen=True, slots=True)
class Formatter:
    """The command that formats one file (``$FILE`` already replaced)."""

    path: Path
    shown: str
    argv: tuple[str, ...]

    @property
    def line(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True, slots=True)
class Formatted:
    """What one formatter run did: ``sentence`` is for the model, the rest for metadata."""

    formatter: Formatter
    status: Status
    sentence: str

    def metadata(self) -> dict[str, Any]:
        return {
            "path": str(self.formatter.path),
            "command": self.formatter.line,
            "status": self.status,
        }


def formatters(services: FileServices, paths: Sequence[Path]) -> list[Formatter]:
    """The formatter of each of ``paths`` that ``[format]`` names, in the given order."""
    found = []
    for path in paths:
        formatter = _formatter(services, path)
        if formatter is not None:
            found.append(formatter)
    return found


def _formatter(services: FileServices, path: Path) -> Formatter | None:
    root = services.location.root
    if not path.is_relative_to(root):
        return None
    relative = PurePosixPath(path.relative_to(root).as_posix())
    for pattern, command in services.location.config.format.items():
        subject = str(relative) if "/" in pattern else relative.name
        if fnmatch.fnmatchcase(subject, pattern):
            argv = tuple(part.replace(FILE, str(path)) for part in command)
            return Formatter(path, services.shown(path), argv)
    return None


async def ask_formatters(
    services: FileServices, gate: PermissionGate, found: Sequence[Formatter]
) -> None:
    """Ask ``shell`` for each formatter command (before the write: see the docstring)."""
    for formatter in found:
        metadata = {
            "command": formatter.line,
            "description": f"Format {formatter.shown} after the change",
            "workdir": str(services.location.root),
        }
        with feedback_as_failure(f"the formatter {formatter.line}"):
            await gate.assert_("shell", (formatter.line,), metadata=metadata)


async def run_formatters(found: Sequence[Formatter], root: Path) -> list[Formatted]:
    """Run each formatter on its file, in order (the writes already succeeded)."""
    return [await _run(formatter, root) for formatter in found]


async def _run(formatter: Formatter, root: Path) -> Formatted:
    written = read_regular(formatter.path, formatter.shown, whole=True)
    with tempfile.TemporaryFile() as output:
        try:
            finished = await run_in_group(
                formatter.argv, cwd=root, output=output.fileno(), timeout=FORMAT_TIMEOUT_S
            )
        except OSError as exc:
            return _failed(formatter, f"could not start ({exc.strerror or exc})", written)
        output.seek(0)
        said = output.read().decode("utf-8", errors="replace").strip()
    if finished.timed_out:
        late = finished.overrun(FORMAT_TIMEOUT_S)
        return _failed(formatter, f"timed out after {FORMAT_TIMEOUT_S:g} s{late}", written)
    if finished.returncode != 0:
        tail = said[-_TAIL_CHARS:] if said else "no output"
        return _failed(formatter, f"failed (exit code {finished.returncode}: {tail})", written)
    after = read_regular(formatter.path, formatter.shown, whole=True)
    if after == written:
        return Formatted(formatter, "unchanged", f"{formatter.line} left the text unchanged.")
    return Formatted(formatter, "changed", f"Formatted with {formatter.line}: the text changed.")


def _failed(formatter: Formatter, why: str, written: bytes | None) -> Formatted:
    """Put back what the tool wrote if the formatter changed it before failing."""
    kept = "stays as written"
    try:
        if written is not None and read_regular(formatter.path, formatter.shown) != written:
            real = Path(os.path.realpath(formatter.path))
            stage(real, written, formatter.shown, like=real).commit()
    except (OSError, ToolFailure) as exc:
        kept = (
            f"may hold the formatter's partial work (putting the written text back failed: {exc})"
        )
    sentence = (
        f"The formatter {formatter.line} {why}; {formatter.shown} {kept} "
        "(the write itself succeeded)."
    )
    return Formatted(formatter, "failed", sentence)


async def write_then_format(
    services: FileServices, gate: PermissionGate, paths: Sequence[Path], write: Callable[[], None]
) -> list[Formatted]:
    """Ask for the formatters of ``paths``, ``write()``, then run them: the one sequence
    ``write``, ``edit`` and ``patch`` share (inside their write lock)."""
    found = formatters(services, paths)
    await ask_formatters(services, gate, found)
    write()
    return await run_formatters(found, services.location.root)


def with_report(result: ToolResult, done: Sequence[Formatted]) -> ToolResult:
    """``result`` with one sentence per formatter run in its text and ``formatted`` in its
    metadata (unchanged when nothing was formatted)."""
    if not done:
        return result
    text = "".join(f"\n{item.sentence}" for item in done)
    formatted = [item.metadata() for item in done]
    return result._replace(
        content=f"{result.content}{text}", metadata={**result.metadata, "formatted": formatted}
    )
