"""How ``shell`` runs (the tool is declared in ``builtin_plugins/shell.py``)."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import SHELL_DIR, FileServices, feedback_as_failure
from tooldeck.builtin_plugins._run.process import Finished, Tail, open_new, read_tail, run_in_group
from tooldeck.builtin_plugins.shell import (
    DEFAULT_TIMEOUT_MS,
    MAX_TIMEOUT_MS,
    SHELL,
    ShellInput,
    ShellOutput,
)
from tooldeck.host.call.bounding import cleanup_once, file_stem
from tooldeck.host.call.sizes import format_size

if TYPE_CHECKING:
    from tooldeck.builtin_plugins._deferred import RunFn
    from tooldeck.host.config.config import OutputConfig
    from tooldeck.host.location.location import Location
    from tooldeck.host.permissions.permission import PermissionGate

# Room kept under the output limits for the truncation marker and the status line, so
# the shell's own text always fits and the generic bounding has nothing to cut.
_RESERVED_LINES = 4
_RESERVED_BYTES = 1024
# Tokens that separate simple commands; redirections such as ">&" are not among them.
_SEPARATORS = frozenset(";&|()")


def executor(location: Location) -> RunFn:
    """``shell`` bound to the Location's file services, data dir and output limits."""
    limits = location.config.output
    output_dir = location.data_dir.absolute() / SHELL_DIR
    runner = _Shell(FileServices.capture(location), output_dir, limits)
    return runner.run


@functools.cache
def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


@dataclass(frozen=True, slots=True)
class _Shell:
    """The Location services the executor captured on the tool's first call."""

    services: FileServices
    output_dir: Path
    limits: OutputConfig

    async def run(self, args: ShellInput, ctx: ToolContext) -> ToolResult:
        if "\0" in args.command:
            raise ToolFailure(
                "The command contains a NUL character, which no command line can hold. "
                "Remove it (printf '\\0' writes one, if that is what the command needs)."
            )
        gate = self.services.gate(ctx)
        workdir = await self._workdir(gate, args.workdir)
        await _ask(gate, args, workdir)
        timeout_ms = args.timeout or DEFAULT_TIMEOUT_MS
        path, output = self._open(ctx.call_id)
        try:
            finished = await _start(args, workdir, output, timeout_ms)
        except BaseException:  # not started, or cancelled: no output worth keeping
            path.unlink(missing_ok=True)
            raise
        finally:
            os.close(output)
        return self._result(args, workdir, path, finished, timeout_ms)

    async def _workdir(self, gate: PermissionGate, raw: str | None) -> Path:
        if raw is None:
            path = self.services.location.root
        else:
            path = await self.services.resolve(gate, raw, "directory")
        if not path.is_dir():
            problem = "is not a directory" if path.exists() else "does not exist"
            raise ToolFailure(
                f"workdir {path} {problem}. Pass an existing directory (relative to the "
                "project root or absolute), or omit workdir to run in the project root."
            )
        return path

    def _open(self, call_id: str) -> tuple[Path, int]:
        try:
            opened = open_new(self.output_dir, file_stem(call_id))
            cleanup_once(self.output_dir)  # outputs past the retention, once per process
            return opened
        except OSError as exc:
            raise ToolFailure(
                f"Could not create the output file under {self.output_dir}: "
                f"{exc.strerror or exc}. The command was not run."
            ) from exc

    def _result(
        self, args: ShellInput, workdir: Path, path: Path, finished: Finished, timeout_ms: int
    ) -> ToolResult:
        tail = read_tail(
            path,
            max(self.limits.max_lines - _RESERVED_LINES, 1),
            max(self.limits.max_bytes - _RESERVED_BYTES, 1),
        )
        if not tail.cut:
            path.unlink(missing_ok=True)
        output = _output(args.command, finished, tail, path, workdir)
        metadata = {  # the text is the content already: not repeated here
            "command": args.command,
            "description": args.description,
            **output.model_dump(exclude={"output"}),
        }
        return ToolResult(_text(tail, path, finished, timeout_ms), metadata, output)


async def _ask(gate: PermissionGate, args: ShellInput, workdir: Path) -> None:
    metadata = {"command": args.command, "description": args.description, "workdir": str(workdir)}
    with feedback_as_failure("this command"):
        await gate.assert_(SHELL, command_resources(args.command), metadata=metadata)


async def _start(args: ShellInput, workdir: Path, output: int, timeout_ms: int) -> Finished:
    try:
        return await run_in_group(
            [_shell(), "-c", args.command],
            cwd=workdir,
            output=output,
            timeout=timeout_ms / 1000,
            keep_background=args.keep_background,
        )
    except OSError as exc:  # only starting can raise it: the shell or workdir is unusable
        raise ToolFailure(f"Could not start the command: {exc.strerror or exc}.") from exc


def command_resources(command: str) -> tuple[str, ...]:
    """The command, then each simple command of a chain (``a && b``, ``a | b``, ``a; b``,
    ``(a)``, ``$(a)``), so a rule such as deny ``rm *`` is not hidden inside a chain.

    Best effort, not a shell parser: unbalanced quotes leave just the command.
    """
    segments = _segments(command)
    if len(segments) < 2:
        return (command,)
    return tuple(dict.fromkeys((command, *segments)))


def _segments(command: str) -> list[str]:
    lexer = shlex.shlex(command.replace("\n", ";"), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    segments: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and set(token) <= _SEPARATORS:
                segments.append([])
            else:
                segments[-1].append(token)
    except ValueError:
        return []
    return [" ".join(words) for words in segments if words and words != ["$"]]


def _output(command: str, finished: Finished, tail: Tail, path: Path, workdir: Path) -> ShellOutput:
    code = finished.returncode
    killed = code is not None and code < 0
    return ShellOutput(
        command=command,
        output=tail.text,
        exit_code=None if killed or code is None else code,
        signal=-code if killed and code is not None else None,
        timed_out=finished.timed_out,
        truncated=tail.cut,
        output_path=str(path) if tail.cut else None,
        workdir=str(workdir),
    )


def _text(tail: Tail, path: Path, finished: Finished, timeout_ms: int) -> str:
    lines = [_marker(tail, path), ""] if tail.cut else []
    lines.append(tail.text.rstrip("\n") or "(no output)")
    lines.append(_status(finished, timeout_ms))
    return "\n".join(lines)


def _marker(tail: Tail, path: Path) -> str:
    plural = "" if tail.omitted_lines == 1 else "s"
    return (
        f"[output truncated: the first {tail.omitted_lines:,} line{plural} "
        f"({format_size(tail.omitted_bytes)}) are omitted; full output saved to {path}. "
        "Use read with offset or grep on that file to see the rest.]"
    )


def _status(finished: Finished, timeout_ms: int) -> str:
    code = finished.returncode
    if finished.timed_out:
        late = finished.overrun(timeout_ms / 1000)
        return (
            f"[Command timed out after {timeout_ms} ms and was killed{late}]\n"
            f"{_retry_hint(timeout_ms)}"
        )
    if code is not None and code < 0:
        return f"[killed by signal {signal.Signals(-code).name}]"
    return f"[exit code {code}]"


def _retry_hint(timeout_ms: int) -> str:
    """What to do about a timeout: more time while there is some, else the background."""
    background = (
        "start it in the background with keep_background set to true, its output sent to a "
        "file (cmd > out.log 2>&1 &), and read that file later"
    )
    if timeout_ms < MAX_TIMEOUT_MS:
        return (
            f"If it needs longer, run it again with a larger timeout (at most {MAX_TIMEOUT_MS} "
            f"ms); if it never ends by itself (a server, a watcher), {background}."
        )
    return f"The timeout was already the longest allowed: {background}, or split the work."
