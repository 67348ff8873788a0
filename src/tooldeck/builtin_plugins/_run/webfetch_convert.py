"""What a fetched response becomes: the ``webfetch`` result the model sees.

Synchronous and free of the network, so ``_run/webfetch.py`` can run ``result_of`` in a
worker thread under the call's deadline. HTML becomes markdown or plain text (or stays
HTML when asked), images come back as images, other text as it is, and other binary
content is refused. BeautifulSoup and markdownify load only when a page needs
converting from HTML.

A thread cannot be killed, so converting stops itself: the caller that stops waiting (the
deadline passed, the call was cancelled) sets its ``stop`` event, as ``grep`` and ``glob``
do, and every step of the work (each tag parsed or converted, every ``CHECK_EVERY``
elements walked) checks it and raises ``Abandoned``. The work ends at the limit with the
answer, instead of running on for half a minute in a thread ``asyncio.run`` waits for.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from tooldeck._tool import ImagePart, TextPart, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import format_size
from tooldeck.builtin_plugins.webfetch import MAX_CONVERT_BYTES, MAX_DEPTH, Format, WebFetchOutput

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bs4 import BeautifulSoup
    from bs4.element import PageElement

    from tooldeck._tool import ContentPart

CHECK_EVERY = 512
"""Elements walked between two looks at the ``stop`` event."""

_HTML = frozenset({"text/html", "application/xhtml+xml"})
_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_TEXT = re.compile(r"text/.*|application/(.*[+.-])?(json|xml|javascript|ecmascript|yaml|toml|sql)")
_DROPPED = ("script", "style", "noscript", "template", "iframe", "svg", "canvas", "head")
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "section",
        "article",
        "header",
        "footer",
        "table",
        "ul",
        "ol",
    }
)


class Abandoned(Exception):
    """The conversion was stopped: nobody waits for its result any more."""


def _check(stop: threading.Event) -> None:
    if stop.is_set():
        raise Abandoned


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one fetch brought back; ``redirect`` is set when it stopped at another host."""

    url: str
    status: int
    media_type: str
    charset: str | None
    body: bytes
    redirect: str | None = None


def result_of(response: Fetched, fmt: Format, stop: threading.Event | None = None) -> ToolResult:
    """The result for ``response``, an HTML page as ``fmt``; a failure for binary content.
    ``Abandoned`` once ``stop`` is set."""
    if response.redirect is not None:
        text = (
            f"{response.url} redirects to another host: {response.redirect}\n"
            "It was not followed. To fetch it, call webfetch with that URL."
        )
        return _text_result(response, "redirect", text)
    if response.media_type in _IMAGES:
        output = _output(response, "image", "")
        label = f"Image from {response.url} ({response.media_type})."
        parts: list[ContentPart] = [TextPart(label), ImagePart(response.body, response.media_type)]
        return ToolResult(content=parts, metadata=_metadata(response), output=output)
    if response.media_type in _HTML or _looks_like_html(response):
        return _text_result(response, fmt, _convert(response, fmt, stop or threading.Event()))
    if _is_text(response):
        return _text_result(response, "raw", _decode(response))
    raise ToolFailure(
        f"{response.url} returned binary content ({response.media_type or 'unknown type'}) "
        "that webfetch cannot show as text."
    )


def _text_result(response: Fetched, kind: str, text: str) -> ToolResult:
    output = _output(response, kind, text)
    return ToolResult(
        content=text or "(empty response)", metadata=_metadata(response), output=output
    )


def _output(response: Fetched, kind: str, text: str) -> WebFetchOutput:
    return WebFetchOutput(
        url=response.url,
        status=response.status,
        content_type=response.media_type,
        format=kind,
        content=text,
    )


def _metadata(response: Fetched) -> dict[str, object]:
    return {"url": response.url, "status": response.status, "bytes": len(response.body)}


def _looks_like_html(response: Fetched) -> bool:
    head = response.body[:512].lstrip().lower()
    return not response.media_type and head.startswith((b"<!doctype html", b"<html"))


def _is_text(response: Fetched) -> bool:
    """A known text type, or (for a vague one like application/octet-stream) a body
    whose start has no NUL byte and is UTF-8."""
    if _TEXT.fullmatch(response.media_type):
        return True
    head = response.body[:8192]
    if b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a character cut by the 8 KiB boundary is fine
        return exc.start >= len(head) - 3
    return True


def _decode(response: Fetched) -> str:
    try:
        return response.body.decode(response.charset or "utf-8", "replace")
    except LookupError:  # an unknown charset name in Content-Type
        return response.body.decode("utf-8", "replace")


def _convert(response: Fetched, fmt: Format, stop: threading.Event) -> str:
    """The page as ``fmt``. Only its first ``MAX_CONVERT_BYTES`` are converted (memory
    and time grow with the page), and the text then says so."""
    if fmt == "html":
        return _decode(response)
    body = response.body[:MAX_CONVERT_BYTES]
    soup = _soup(response, body, stop)
    text = _markdown(soup, response.url, stop) if fmt == "markdown" else _plain_text(soup, stop)
    if len(body) < len(response.body):
        text += (
            f"\n\n[Only the first {format_size(len(body))} of this "
            f"{format_size(len(response.body))} page were converted. Fetch it with "
            "format='html' for all of it.]"
        )
    return text


def _soup(response: Fetched, body: bytes, stop: threading.Event) -> BeautifulSoup:
    """The page without non-content elements, its links and images made absolute."""
    from bs4.element import Tag

    soup = _parsed(body, response.charset, stop)
    dropped: list[Tag] = []
    links: list[tuple[Tag, str]] = []
    for count, element in enumerate(soup.descendants):
        if not count % CHECK_EVERY:
            _check(stop)
        if isinstance(element, Tag):
            if element.name in _DROPPED:
                dropped.append(element)
            elif element.name in _LINKS:
                links.append((element, _LINKS[element.name]))
    for element in dropped:
        element.decompose()
    for tag, attribute in links:
        value = tag.get(attribute)
        if isinstance(value, str):
            tag[attribute] = urljoin(response.url, value)
    return soup


_LINKS = {"a": "href", "img": "src"}


def _parsed(body: bytes, charset: str | None, stop: threading.Event) -> BeautifulSoup:
    """``body`` parsed, looking at ``stop`` before each tag the parser opens."""
    from bs4 import BeautifulSoup

    class StoppableSoup(BeautifulSoup):
        def handle_starttag(self, *args: Any, **kwargs: Any) -> Any:
            _check(stop)
            return super().handle_starttag(*args, **kwargs)

    return StoppableSoup(body, "html.parser", from_encoding=charset)


def _markdown(soup: BeautifulSoup, url: str, stop: threading.Event) -> str:
    """Markdown, for pages nested at most ``MAX_DEPTH`` elements deep: the converter
    recurses once per level and would otherwise run out of stack."""
    from markdownify import MarkdownConverter

    depth = _depth(soup, stop)
    if depth > MAX_DEPTH:
        raise _too_deep(url, f"{depth:,}")

    class StoppableConverter(MarkdownConverter):
        def process_tag(self, *args: Any, **kwargs: Any) -> Any:
            _check(stop)
            # Called for every tag since markdownify 0.11; its stubs leave it out.
            return super().process_tag(*args, **kwargs)  # type: ignore[misc]

    converter = StoppableConverter(heading_style="ATX", bullets="-")
    try:
        return _tidy(converter.convert_soup(soup))
    except RecursionError as exc:  # a safety net under the depth check
        raise _too_deep(url, f"over {MAX_DEPTH}") from exc


def _depth(soup: BeautifulSoup, stop: threading.Event) -> int:
    """How deep elements nest, found in one pass without recursion."""
    from bs4.element import Tag

    depths = {id(soup): 0}
    deepest = 0
    for count, element in enumerate(soup.descendants):
        if not count % CHECK_EVERY:
            _check(stop)
        if isinstance(element, Tag):
            depth = depths[id(element.parent)] + 1
            depths[id(element)] = depth
            deepest = max(deepest, depth)
    return deepest


def _too_deep(url: str, depth: str) -> ToolFailure:
    return ToolFailure(
        f"The page at {url} nests elements {depth} levels deep, too deep to convert to "
        f"markdown (at most {MAX_DEPTH}). Fetch it with format='text' or format='html'."
    )


def _plain_text(soup: BeautifulSoup, stop: threading.Event) -> str:
    """The page's text with a line break after each block element.

    One walk with an explicit stack: no recursion however deep the page nests, and no
    edits to the tree (inserting a break after each of many siblings is quadratic).
    """
    from bs4.element import CData, NavigableString, Tag

    pieces: list[str] = []
    stack: list[tuple[Iterator[PageElement], bool]] = [(iter(soup.contents), False)]
    steps = 0
    while stack:
        steps += 1
        if not steps % CHECK_EVERY:
            _check(stop)
        children, block = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if block:
                pieces.append("\n")
        elif isinstance(child, Tag):
            stack.append((iter(child.contents), child.name in _BLOCKS))
        elif type(child) in (NavigableString, CData):
            pieces.append(str(child))
    return _tidy("".join(pieces), indent=False)


def _tidy(text: str, *, indent: bool = True) -> str:
    """Trailing spaces (and, for plain text, source indentation) gone, runs of blank
    lines down to one."""
    lines = [line.rstrip() if indent else " ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
