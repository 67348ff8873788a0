"""How the text a model reads is measured and how sizes are shown to it.

One definition of each, shared by the output bounding, the image notes and the built-in
tools that report what they cut or wrote, so every model-facing message counts lines and
names sizes the same way ("12 lines", "56 KiB").
"""

from __future__ import annotations

# Lone surrogates (from JSON "\ud800" escapes) must not make measuring fail: they are
# counted as their 3-byte encodings.
UTF8_ERRORS = "surrogatepass"


def text_budget(max_lines: int, max_bytes: int) -> int:
    """The length up to which any text fits both limits: a text of N characters has at
    most N lines and at most 4N UTF-8 bytes."""
    return min(max_lines, max_bytes // 4)


def count_lines(text: str) -> int:
    """Lines as an editor shows them: a trailing newline does not start another line."""
    newlines = text.count("\n")
    return newlines + 1 if text and not text.endswith("\n") else newlines


def utf8_size(text: str, cap: int | None = None) -> int:
    """The UTF-8 size of ``text``; when ``cap`` is given, any answer ``>= cap`` means "over"."""
    if cap is not None and len(text) >= cap:
        return len(text)  # at least one byte per character: already over
    return len(text.encode("utf-8", UTF8_ERRORS))


def format_size(n_bytes: int) -> str:
    """``"812 bytes"``, ``"56 KiB"``, ``"1.5 MiB"``."""
    if n_bytes < 1024:
        return f"{n_bytes} byte{'' if n_bytes == 1 else 's'}"
    value, unit = n_bytes / 1024, "KiB"
    if value >= 1024:
        value, unit = value / 1024, "MiB"
    shown = f"{value:,.1f}".removesuffix(".0")
    return f"{shown} {unit}"
