"""How ``read`` runs (the tool is declared in ``builtin_plugins/read.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tooldeck._tool import ImagePart, TextPart, ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.attachments import pdf_attachment
from tooldeck.builtin_plugins._run.files import (
    FileServices,
    PathKind,
    decode_text,
    file_executor,
    numbered_line,
    os_failure,
    read_bytes,
    split_lines,
)
from tooldeck.builtin_plugins._run.lookalikes import noted, recover
from tooldeck.builtin_plugins.read import ReadInput, ReadOutput
from tooldeck.host.call.images import sniff_image

if TYPE_CHECKING:
    from tooldeck._tool import ContentPart

FOOTER_BYTES = 200  # room kept in the byte budget for the header and the footer
_IMAGE_NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}


async def _read(services: FileServices, data: ReadInput, ctx: ToolContext) -> ToolResult:
    gate = services.gate(ctx)
    raw, note = recover(services.lexical(data.path), data.path)
    kind: PathKind = "directory" if os.path.isdir(services.lexical(raw)) else "file"
    path = await services.resolve(gate, raw, kind, reading=True)
    await services.ask(gate, "read", path, {"path": str(path)})
    shown = services.shown(path)
    if path.is_dir():
        return noted(_directory(services, path, shown, data), note)
    return noted(_file(services, path, shown, data), note)


executor = file_executor(_read)
"""``read`` bound to the Location's file services (see ``files.file_executor``)."""


# -- files ---------------------------------------------------------------------------------
def _file(services: FileServices, path: Path, shown: str, data: ReadInput) -> ToolResult:
    raw = read_bytes(path, shown, hint="Check the path, or read its directory to list it.")
    mime_type = sniff_image(raw[:16])
    if mime_type is not None:
        return _image(path, shown, raw, mime_type)
    if raw.startswith(b"%PDF-"):
        return pdf_attachment(path, shown, raw)
    text = decode_text(raw, shown, purpose="read as text").text
    lines = split_lines(text)
    page = _paginate(services, lines, data, shown, ("line", "lines"), numbered_line)
    if "\0" in text:  # the start was text (decode_text sniffs it); later pages may not be
        _refuse_binary_rows(lines, page, shown)
    return page.result(path, "text")


def _refuse_binary_rows(lines: Sequence[str], page: _Page, shown: str) -> None:
    """Refuse a page holding a NUL byte, naming the first one and the text before it."""
    for number in range(page.first, page.last + 1):
        column = lines[number - 1].find("\0")
        if column < 0:
            continue
        message = (
            f"{shown} holds binary data: line {number:,} has a NUL byte at column "
            f"{column + 1:,}, so lines {page.first:,}-{page.last:,} cannot be read as text."
        )
        if number > page.first:
            message += (
                f" The lines before it can: use offset={page.first} and "
                f"limit={number - page.first}."
            )
        raise ToolFailure(message)


def _image(path: Path, shown: str, raw: bytes, mime_type: str) -> ToolResult:
    header = f"{shown} ({_IMAGE_NAMES[mime_type]} image, {len(raw):,} bytes)"
    output = ReadOutput(
        path=str(path),
        kind="image",
        total=0,
        first=0,
        last=0,
        next_offset=None,
        mime_type=mime_type,
    )
    content: list[ContentPart] = [TextPart(header), ImagePart(raw, mime_type)]
    return ToolResult(content, {"path": str(path), "kind": "image"}, output)


# -- directories ---------------------------------------------------------------------------
def _directory(services: FileServices, path: Path, shown: str, data: ReadInput) -> ToolResult:
    entries = _entries(path, shown)
    title = shown if shown.endswith("/") else f"{shown}/"
    page = _paginate(services, entries, data, title, ("entry", "entries"), _entry)
    return page.result(path, "directory")


def _entries(path: Path, shown: str) -> list[str]:
    """Subdirectories first (with ``/``), then files; each group by name, case-folded."""
    try:
        with os.scandir(path) as scan:
            keyed = [(not _is_dir(entry), entry.name.casefold(), entry.name) for entry in scan]
    except OSError as exc:
        raise os_failure(exc, shown, "list") from exc
    return [name if is_file else f"{name}/" for is_file, _, name in sorted(keyed)]


def _entry(_number: int, entry: str) -> str:
    return entry


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a broken or unreadable link: list it as a plain entry
        return False


# -- pages ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Page:
    """The rendered rows of one page and where it sits in the whole."""

    header: str
    rows: list[str]
    first: int
    total: int
    noun: str  # plural: "lines", "entries"
    by_bytes: bool

    @property
    def last(self) -> int:
        return self.first + len(self.rows) - 1 if self.rows else 0

    def result(self, path: Path, kind: Literal["text", "directory"]) -> ToolResult:
        more = self.last < self.total
        text = "\n".join((self.header, *self.rows, *([self._footer()] if more else [])))
        output = ReadOutput(
            path=str(path),
            kind=kind,
            total=self.total,
            first=self.first if self.rows else 0,
            last=self.last,
            next_offset=self.last + 1 if more else None,
        )
        return ToolResult(text, {"path": str(path), "kind": kind, "truncated": more}, output)

    def _footer(self) -> str:
        why = " (the page reached its size limit)" if self.by_bytes else ""
        return (
            f"(Showing {self.noun} {self.first}-{self.last} of {self.total:,}{why}. "
            f"Use offset={self.last + 1} to continue.)"
        )


def _paginate(
    services: FileServices,
    items: Sequence[str],
    data: ReadInput,
    name: str,
    noun: tuple[str, str],
    render: Callable[[int, str], str],
) -> _Page:
    """Render rows from ``offset`` while they fit the line limit and the byte budget."""
    total = len(items)
    offset = max(data.offset, 1)  # 0 means the start, like 1 (see ReadInput.offset)
    if offset > max(total, 1):
        raise ToolFailure(
            f"offset {offset} is past the end of {name}, which has {_count(total, *noun)}. "
            f"Use an offset from 1 to {max(total, 1)}."
        )
    header = f"{name} ({_count(total, *noun)})"
    limits = services.location.config.output
    rows, by_bytes = _rows(
        items,
        offset,
        min(data.limit, limits.max_lines),
        limits.max_bytes - len(header.encode()) - FOOTER_BYTES,
        render,
    )
    if offset + len(rows) - 1 == total and len(rows) + 1 > limits.max_lines > 1:
        rows.pop()  # the whole rest plus the header would just overflow: page it instead
    return _Page(header, rows, offset, total, noun[1], by_bytes)


def _rows(
    items: Sequence[str],
    offset: int,
    max_rows: int,
    budget: int,
    render: Callable[[int, str], str],
) -> tuple[list[str], bool]:
    """Rendered rows within ``max_rows`` and ``budget`` bytes (at least one row)."""
    rows: list[str] = []
    for number in range(offset, min(len(items), offset - 1 + max_rows) + 1):
        row = render(number, items[number - 1])
        budget -= len(row.encode()) + 1
        if budget < 0 and rows:
            return rows, True
        rows.append(row)
    return rows, False


def _count(n: int, singular: str, plural: str) -> str:
    return f"{n:,} {singular if n == 1 else plural}"
