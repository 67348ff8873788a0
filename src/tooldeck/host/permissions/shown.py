"""What a tool attached to its permission ask, as lines a person reads before answering.

A tool passes ``metadata`` to ``ctx.permission.assert_`` for the user to see (an edit's
diff, a command's description, a note). The askers that put a question to a person
(``tooldeck call``'s terminal prompt, a served client's elicitation) show it with this,
so an "allow" is given to what was seen, not only to an action and a path.

What is shown may come from anywhere (an edited file of a repository, a mounted
server's tool), and a terminal obeys the control characters it prints: an escape
sequence could redraw the question or hide a diff's lines. So control and format
characters are shown as escapes (``\\x1b``), and a value stays on its line; only a
diff keeps its line breaks and tabs.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

SHOWN_CHARS = 200
"""How much of one value is shown (a diff is shown up to ``diff_chars``)."""


def attached_lines(
    metadata: Mapping[str, Any], resources: Sequence[str] = (), *, diff_chars: int | None = None
) -> str:
    """One ``  key: value`` line per value (JSON for what is not text, each cut to
    ``SHOWN_CHARS``), then the ``diff`` as it is, cut to ``diff_chars`` when given. A
    value the question names already (one of ``resources``: an edit's path, a shell
    command) is left out. Empty for nothing to add; otherwise every line ends with a
    newline."""
    lines = []
    for key, value in metadata.items():
        if (key == "diff" and isinstance(value, str)) or value in resources:
            continue
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        lines.append(f"  {visible(str(key))}: {visible(_cut(text, SHOWN_CHARS))}\n")
    diff = metadata.get("diff")
    if isinstance(diff, str) and diff:
        if diff_chars is not None and len(diff) > diff_chars:
            diff = f"{diff[:diff_chars]}\n... ({len(diff) - diff_chars} more characters)"
        diff = visible(diff, keep="\n\t")
        lines.append(diff if diff.endswith("\n") else diff + "\n")
    return "".join(lines)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def visible(text: str, keep: str = "") -> str:
    """``text`` with each control or format character but those in ``keep`` written as
    its escape, so a terminal prints it rather than obeying it."""
    return "".join(
        char
        if char in keep or not unprintable(char)
        else (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")
        for char in text
    )


def unprintable(char: str) -> bool:
    """A control or format character (``Cc``, ``Cf``: escape sequences, a right-to-left
    override), or a line or paragraph separator: what a reader must not be handed as is."""
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")
