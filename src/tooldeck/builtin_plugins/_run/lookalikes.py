"""Names that look the same but are not: Unicode normalization, the kind of space, and
curly or straight quotes.

A model types ``Screenshot 2026-12-01 at 10.15.03.png`` with a plain space; macOS wrote
the name with a narrow no-break space before ``AM``/``PM`` and decomposed accents (NFD),
so the path does not exist though it looks right. Likewise ``it's.txt`` typed for a file
saved as ``it\u2019s.txt`` (editors and word processors curl apostrophes), or the other way
round. ``lookalikes`` finds the existing paths that differ from a missing one only that
way, component by component.

The tools that only read (``read``, ``grep``, ``glob``) use the one lookalike there is
and say so (``recover``); with several, and for the tools that write, the lookalikes are
only suggested, first among the similar names (``files.similar_names``).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from tooldeck._tool import TextPart, ToolResult

_CANONICAL = str.maketrans(
    {
        # no-break, narrow no-break, thin and figure space: each reads as a plain space
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u2007": " ",
        # curly single quotes and the modifier apostrophe read as an apostrophe
        "\u2018": "'",
        "\u2019": "'",
        "\u02bc": "'",
        # curly double quotes read as a straight one
        "\u201c": '"',
        "\u201d": '"',
    }
)
"""Characters a reader cannot tell from a plainer one, mapped to it."""
MAX_CANDIDATES = 3


def looks_like(name: str) -> str:
    """``name`` with the differences a reader cannot see taken out (the compare key)."""
    return unicodedata.normalize("NFC", name).translate(_CANONICAL)


def lookalikes(path: Path) -> list[Path]:
    """Existing paths that differ from the missing ``path`` only in normalization, in the
    kind of space or of quote, sorted; ``[]`` when ``path`` exists or nothing looks like it."""
    if os.path.lexists(path):
        return []
    return sorted(_candidates(path))[:MAX_CANDIDATES]


def _candidates(path: Path) -> list[Path]:
    parent = path.parent
    parents = [parent] if parent == path or os.path.lexists(parent) else _candidates(parent)
    key = looks_like(path.name)
    found = []
    for directory in parents[:MAX_CANDIDATES]:
        try:
            with os.scandir(directory) as entries:
                names = [entry.name for entry in entries]
        except OSError:
            continue
        found += [directory / name for name in names if looks_like(name) == key]
    return found


def recover(lexical: Path, raw: str) -> tuple[str, str | None]:
    """The path a reading tool should use for ``raw`` (its lexical form ``lexical``), and
    the note that tells the model about a substitution (``None``: none was made)."""
    found = lookalikes(lexical)
    if len(found) != 1:
        return raw, None
    used = found[0]
    return str(used), (
        f"(Note: {raw!r} does not exist; used {str(used)!r}, which differs from it only in "
        "Unicode normalization, in the kind of space or in curly or straight quotes.)"
    )


def noted(result: ToolResult, note: str | None) -> ToolResult:
    """``result`` with ``note`` as its first line of text."""
    if note is None:
        return result
    content = result.content
    if isinstance(content, str):
        return result._replace(content=f"{note}\n{content}")
    return result._replace(content=[TextPart(note), *(content or ())])
