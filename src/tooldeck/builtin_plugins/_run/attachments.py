"""Files ``read`` hands to the model whole, as an attachment: PDFs.

A model that takes PDFs reads the pages itself (text and layout), which no text
extraction here would match; the text part says how many pages there are so the model
knows what it got. A PDF over ``MAX_ATTACHMENT_BYTES`` is refused with both sizes, since
a provider would refuse the whole request.

The page count comes from the page objects (``/Type /Page``) the file shows, else from
the largest ``/Count`` of its page tree; a PDF that keeps both inside compressed object
streams says its count is unknown rather than guessing.
"""

from __future__ import annotations

import re
from pathlib import Path

from tooldeck._tool import ContentPart, FilePart, TextPart, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import format_size
from tooldeck.builtin_plugins.read import MAX_ATTACHMENT_BYTES, ReadOutput

PDF = "application/pdf"
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_COUNT = re.compile(rb"/Count\s+(\d+)")


def pdf_attachment(path: Path, shown: str, raw: bytes) -> ToolResult:
    """``raw`` (a file starting ``%PDF-``) as a header and one ``application/pdf`` part."""
    size = format_size(len(raw))
    if len(raw) > MAX_ATTACHMENT_BYTES:
        limit = format_size(MAX_ATTACHMENT_BYTES)
        if size == limit:  # just over: rounded, both would read "32 MiB"
            size, limit = f"{len(raw):,} bytes", f"{MAX_ATTACHMENT_BYTES:,} bytes"
        raise ToolFailure(
            f"{shown} is a PDF of {size}, over the {limit} a model can take as an "
            "attachment. Extract the pages you need with a shell tool (pdftotext, qpdf) "
            "and read those."
        )
    pages = page_count(raw)
    counted = "page count unknown" if pages is None else _pages(pages)
    output = ReadOutput(
        path=str(path),
        kind="pdf",
        total=pages or 0,
        first=0,
        last=0,
        next_offset=None,
        mime_type=PDF,
    )
    content: list[ContentPart] = [
        TextPart(f"{shown} (PDF, {counted}, {size})"),
        FilePart(raw, PDF, path.name),
    ]
    return ToolResult(content, {"path": str(path), "kind": "pdf"}, output)


def page_count(raw: bytes) -> int | None:
    """The pages of a PDF, as far as its uncompressed structure shows; ``None`` if not."""
    pages = len(_PAGE.findall(raw))
    if pages:
        return pages
    counts = [int(count) for count in _COUNT.findall(raw)]
    return max(counts) if counts else None


def _pages(n: int) -> str:
    return f"{n:,} page{'' if n == 1 else 's'}"
