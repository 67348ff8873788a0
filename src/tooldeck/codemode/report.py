"""The model-facing text of a program that did not finish.

Each limit is named by its config key, so the model (and whoever reads the log) knows
which knob stopped the program. A program that already made tool calls lists them:
they ran, and their effects stand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from tooldeck.codemode.sandbox import PRINT_LIMIT

MAX_SEARCHES = 100
"""``search()`` calls one program may make; they are not tool calls and are counted apart."""


class _Limits(Protocol):
    @property
    def timeout_s(self) -> float: ...

    @property
    def memory_mb(self) -> int: ...

    @property
    def max_tool_calls(self) -> int: ...


def failure_text(
    kind: str, detail: str, limits: _Limits, calls: Sequence[dict[str, Any]], printed: str
) -> str:
    """What went wrong, the calls that already ran, and what the program printed."""
    lines = [_headline(kind, detail, limits)]
    if calls:
        lines.append("Tool calls that already ran (their effects stand):")
        lines += [f"- {c['name']}: {c['status']}" for c in calls]
    elif kind in ("syntax", "typing"):
        lines.append("Nothing ran. Fix the program and run it again.")
    if printed:
        lines.append(f"Printed before it stopped:\n{printed}")
    return "\n".join(lines)


def _headline(kind: str, detail: str, limits: _Limits) -> str:
    if kind == "syntax":
        return f"The program has a syntax error:\n{detail.strip()}"
    if kind == "typing":
        text = f"The program does not type-check against the tool stubs:\n{detail.strip()}"
        return "\n".join([text, *unknown_tool_hints(detail)])
    if kind == "timeout":
        return (
            f"The program was stopped after {limits.timeout_s:g} seconds "
            f"([codemode] timeout_s = {limits.timeout_s:g})."
        )
    if kind == "memory":
        return (
            f"The program was stopped: it needed more than {limits.memory_mb} MB of memory "
            f"([codemode] memory_mb = {limits.memory_mb})."
        )
    if kind == "busy":
        return (
            f"The program did not start: every sandbox worker stayed busy for "
            f"{limits.timeout_s:g} seconds, and waiting counts against the program's limit "
            f"([codemode] timeout_s = {limits.timeout_s:g}). Try again when fewer programs run."
        )
    if kind == "max_tool_calls":
        return (
            f"The program was stopped: it made more than {limits.max_tool_calls} tool calls "
            f"([codemode] max_tool_calls = {limits.max_tool_calls}). "
            "Do fewer calls per program, or split the work over several programs."
        )
    if kind == "max_searches":
        return (
            f"The program was stopped: it called search() more than {MAX_SEARCHES} times "
            f"(search is not a tool call; a program may search {MAX_SEARCHES} times). "
            "Search with broader words once, then call the tools it finds."
        )
    if kind == "suspensions":
        return (
            "The program was stopped: it went back to the host too many times (tool calls, "
            "search() calls and global name lookups together). Do less per program."
        )
    if kind == "printed":
        return (
            f"The program was stopped: it printed more than {PRINT_LIMIT:,} bytes. "
            "Print less; return the data you need as the last expression instead."
        )
    if kind == "crashed":
        return f"The sandbox stopped unexpectedly: {detail.strip()}"
    return f"The program raised an exception:\n{detail.strip()}"


def completed_note(names: Sequence[str]) -> str:
    """The note a declined program's decline carries: the calls that ran before it."""
    lines = [
        "Tool calls in the program that completed before it was declined (their effects stand):"
    ]
    return "\n".join(lines + [f"- {name}" for name in names])


_UNKNOWN_TOOL = re.compile(
    r"Object of type `(?P<owner>Tools|tools_\w+)` has no attribute `(?P<name>\w+)`"
)
"""The type checker's words for ``tools.<name>`` (or ``tools.<ns>.<name>``) not in the
stubs: the root class is ``Tools``, a namespace's ``tools_<ns>`` (``stubs.py``)."""


def unknown_tool_hints(detail: str) -> list[str]:
    """One line per tool the program named that the stubs do not have, with the
    ``search()`` call that would find the tool meant."""
    hints = []
    for match in dict.fromkeys(m.group("owner", "name") for m in _UNKNOWN_TOOL.finditer(detail)):
        owner, name = match
        namespace = owner.removeprefix("tools_") if owner != "Tools" else ""
        path = f"tools.{namespace}.{name}" if namespace else f"tools.{name}"
        hints.append(
            f'There is no tool {path}: await search("{search_words(namespace, name)}") '
            "to find the one you meant, then call it by the name search gives."
        )
    return hints


def search_words(*names: str) -> str:
    """Words to search for from identifiers: ``send_mail`` and ``sendMail`` give
    ``send mail``."""
    words = []
    for name in names:
        spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ")
        words += spaced.lower().split()
    return " ".join(words)
