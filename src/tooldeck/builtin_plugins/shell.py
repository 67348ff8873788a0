"""The ``shell`` built-in: run a command, keep its whole output in a file, show the tail.

The leaf owns the order of effects: resolve ``workdir`` (asking ``external_directory``
first when it is outside the Location), check it is a directory, ask ``shell`` with the
command as the resource, then run. The command runs in its own process group with stdin
empty and stdout+stderr combined into a backing file under ``<data dir>/shell/``. The
model reads the tail of that file, bounded by the same ``[output]`` limits as any tool;
when the tail is cut, the text names the file and the metadata says ``truncated`` so the
generic bounding (which keeps the *head*) leaves it alone. Output that fits is not kept.

A timeout or a cancellation kills everything the command started (SIGTERM, then
SIGKILL after a short grace); a cancellation is re-raised once it is all gone, and a
status line whose stop took the command half a second or more past its limit says when
it really ended (a command ignoring SIGTERM runs the whole grace). When the
command exits on its own, whatever it left running in the background (``server &``,
``setsid``, ``nohup``) is stopped the same way, unless the call sets
``keep_background``: a tool call should not leave processes behind that nobody asked
for, and a model that starts a server on purpose says so. Processes that left the group
are found by a marker in their environment (``_run/process.py``).

What ``shell`` asks: one ``shell`` ask with the command (and each simple command of a
chain) as the resources, plus ``external_directory`` when ``workdir`` is outside the
Location. Paths *inside* the command are not inspected: approving a command approves
everything it does, in the project and outside it (``cat ../secret`` included). Rules
on ``shell`` are the way to limit commands; ``external_directory`` is not asked for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from tooldeck._tool import Tool
from tooldeck.builtin_plugins._deferred import deferred
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

SHELL = "shell"
DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000

DESCRIPTION = f"""\
Run a shell command (bash, or /bin/sh without bash) in the project and return its \
combined stdout and stderr with the exit code.

- The command runs in the project root unless workdir is given; prefer workdir over \
"cd dir && ...". stdin is empty, so interactive commands fail: pass flags such as -y \
or --no-pager instead.
- Output beyond {{max_lines}} lines or {{max_kib}} KiB is cut from the top: you see the \
last lines, and the full output's file path to read or grep the rest.
- The timeout is in milliseconds (default {DEFAULT_TIMEOUT_MS}, at most \
{MAX_TIMEOUT_MS}); on timeout the command and everything it started are killed.
- When the command exits, processes it left running in the background are stopped. \
To start a server or watcher that must keep running, set keep_background to true.
- Use the dedicated tools to read, search and edit files rather than cat, grep or sed.
- Give a short description (5-10 words) of what the command does; the user sees it \
when asked to allow the command."""


class ShellInput(Model):
    command: str = Field(min_length=1, description="The command line to run.")
    workdir: str | None = Field(
        default=None,
        description="Directory to run in, relative to the project root or absolute. "
        "Default: the project root.",
    )
    timeout: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TIMEOUT_MS,
        description=f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, at most "
        f"{MAX_TIMEOUT_MS}).",
    )
    description: str | None = Field(
        default=None,
        description="What the command does in 5-10 words, e.g. 'Run the unit tests'.",
    )
    keep_background: bool = Field(
        default=False,
        description="Leave processes the command starts in the background (a server, "
        "'cmd &') running after it exits. By default they are stopped when it exits.",
    )


class ShellOutput(Model):
    command: str = Field(description="The command line that ran.")
    output: str = Field(
        description="What it printed (stdout and stderr combined); only the last lines "
        "when truncated, the whole of it at output_path."
    )
    exit_code: int | None = Field(description="Exit status; null when killed by a signal.")
    signal: int | None = Field(default=None, description="The signal that killed the shell.")
    timed_out: bool = Field(description="True when the timeout expired and it was killed.")
    truncated: bool = Field(description="True when only the tail of the output is shown.")
    output_path: str | None = Field(
        default=None, description="Absolute path of the full output, when truncated."
    )
    workdir: str = Field(description="Absolute directory the command ran in.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add the ``shell`` tool (native, permission action ``shell``).

    Its code (``_run/shell.py``) loads on the first call.
    """
    limits = location.config.output
    editor.add(
        Tool(
            name=SHELL,
            description=DESCRIPTION.format(
                max_lines=limits.max_lines, max_kib=max(limits.max_bytes // 1024, 1)
            ),
            input=ShellInput,
            output=ShellOutput,
            execute=deferred(SHELL, location),
            codemode=False,
            permission=SHELL,
        )
    )
