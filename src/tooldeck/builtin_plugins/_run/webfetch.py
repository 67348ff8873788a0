"""How ``webfetch`` runs (the tool is declared in ``builtin_plugins/webfetch.py``).

The whole module loads on the tool's first call. BeautifulSoup and markdownify load only
when a page needs converting from HTML.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from tooldeck._tool import (
    ImagePart,
    TextPart,
    ToolContext,
    ToolFailure,
    ToolResult,
)
from tooldeck.builtin_plugins._run.files import feedback_as_failure, format_size
from tooldeck.builtin_plugins.webfetch import (
    MAX_BYTES,
    MAX_CONVERT_BYTES,
    MAX_DEPTH,
    MAX_TIMEOUT,
    Format,
    WebFetchInput,
    WebFetchOutput,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bs4 import BeautifulSoup
    from bs4.element import PageElement

    from tooldeck._tool import ContentPart
    from tooldeck.builtin_plugins._deferred import RunFn
    from tooldeck.host.location.location import Location

MAX_REDIRECTS = 10

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
_ACCEPT = {
    "markdown": "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
    "text": "text/plain;q=1.0, text/html;q=0.9, */*;q=0.1",
    "html": "text/html;q=1.0, application/xhtml+xml;q=0.9, */*;q=0.1",
}
_USER_AGENT = "tooldeck-webfetch/0.1 (+https://pypi.org/project/tooldeck/)"


@dataclass(frozen=True, slots=True)
class _Response:
    """What one fetch brought back; ``redirect`` is set when it stopped at another host."""

    url: str
    status: int
    media_type: str
    charset: str | None
    body: bytes
    redirect: str | None = None


def executor(location: Location) -> RunFn:
    """``webfetch`` bound to the Location's permission service."""
    permission = location.permission

    async def webfetch(params: WebFetchInput, ctx: ToolContext) -> ToolResult:
        url = checked_url(params.url)
        gate = permission.gate(ctx.source, session_id=ctx.session_id)
        metadata = {"url": url, "format": params.format, "timeout": params.timeout}
        with feedback_as_failure(f"fetching {url}"):
            await gate.assert_("webfetch", (url,), metadata=metadata)
        return await _fetch_within(url, params)

    return webfetch


def checked_url(raw: str) -> str:
    """The URL, trimmed, if it is an absolute http(s) URL with a host; else a failure."""
    url = raw.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port validates it (ValueError when out of range)
    except ValueError as exc:
        raise ToolFailure(f"{raw!r} is not a valid URL: {exc}.", cause=exc) from exc
    if parts.scheme.lower() not in ("http", "https"):
        shown = f"'{parts.scheme}:'" if parts.scheme else "no scheme"
        raise ToolFailure(
            f"webfetch only fetches http:// and https:// URLs; {raw!r} has {shown}. "
            "Give a full URL such as https://example.com/page."
        )
    if not parts.hostname:
        raise ToolFailure(
            f"{raw!r} has no host name. Give a full URL such as https://example.com/."
        )
    return url


# -- fetching ----------------------------------------------------------------------------------
async def _fetch_within(url: str, params: WebFetchInput) -> ToolResult:
    """Fetch and convert under the call's deadline, with network errors as failures.

    Converting runs in a worker thread: parsing a large page takes seconds of CPU, and
    on the loop it would hold up every other call and ignore the deadline.
    """
    response: _Response | None = None
    try:
        async with asyncio.timeout(params.timeout):
            response = await _fetch(url, params)
            return await asyncio.to_thread(_result, response, params.format)
    except (TimeoutError, httpx.TimeoutException) as exc:
        if response is not None:
            raise ToolFailure(
                f"Converting the page from {response.url} took longer than the "
                f"{params.timeout:g} s timeout. Fetch it with format='html', or try again "
                f"with a longer timeout (at most {MAX_TIMEOUT:g}).",
                cause=exc,
            ) from exc
        raise ToolFailure(
            f"Fetching {url} timed out after {params.timeout:g} s. Try again with a longer "
            f"timeout (at most {MAX_TIMEOUT:g}) or a different URL.",
            cause=exc,
        ) from exc
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise ToolFailure(
            f"Could not fetch {url}: {str(exc) or type(exc).__name__}. Check the URL; the "
            "site may be down or unreachable from here.",
            cause=exc,
        ) from exc


async def _fetch(url: str, params: WebFetchInput) -> _Response:
    """GET ``url``, following same-host redirects, stopping at another host's."""
    headers = {"Accept": _ACCEPT[params.format], "User-Agent": _USER_AGENT}
    async with httpx.AsyncClient(timeout=params.timeout, headers=headers) as client:
        for _ in range(MAX_REDIRECTS + 1):
            async with client.stream("GET", url) as response:
                target = _redirect_target(response)
                if target is None:
                    return await _complete(response)
            if not _same_site(url, target):
                return _Response(url, response.status_code, "", None, b"", redirect=target)
            url = target
    raise ToolFailure(f"{params.url} redirected more than {MAX_REDIRECTS} times; giving up.")


def _redirect_target(response: httpx.Response) -> str | None:
    location = response.headers.get("location")
    if not response.is_redirect or location is None:
        return None
    return urljoin(str(response.url), str(location))


def _same_site(current: str, target: str) -> bool:
    """Same host and port, allowing an upgrade from http to https. A target that does not
    parse counts as another site: it is reported, and fetching it fails clearly."""
    old, new = urlsplit(current), urlsplit(target)
    try:
        ports = old.port, new.port
    except ValueError:
        return False
    upgrade = old.scheme == "http" and new.scheme == "https" and ports[1] in (None, 443)
    same_port = ports[0] == ports[1] and old.scheme == new.scheme
    return old.hostname == new.hostname and (same_port or upgrade)


async def _complete(response: httpx.Response) -> _Response:
    """Check the status and read the body within ``MAX_BYTES``."""
    url = str(response.url)
    if response.status_code >= 400:
        raise ToolFailure(_status_message(response.status_code, response.reason_phrase, url))
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BYTES:
        raise _too_large(url)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            raise _too_large(url)
        chunks.append(chunk)
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return _Response(
        url, response.status_code, media_type, response.charset_encoding, b"".join(chunks)
    )


def _status_message(status: int, reason: str, url: str) -> str:
    if status in (401, 403):
        advice = "The page needs a login or refuses automated access; try another source."
    elif status == 404:
        advice = "Check the URL for typos, or find the page from its site's index."
    elif status >= 500:
        advice = "The server failed; try again later or use another source."
    else:
        advice = "Check the URL."
    return f"HTTP {status}{' ' + reason if reason else ''} from {url}. {advice}"


def _too_large(url: str) -> ToolFailure:
    return ToolFailure(
        f"The response from {url} is larger than {MAX_BYTES // (1024 * 1024)} MB, so "
        "webfetch stopped reading. Fetch a more specific page or a smaller file."
    )


# -- converting ----------------------------------------------------------------------------------
def _result(response: _Response, fmt: Format) -> ToolResult:
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
        return _text_result(response, fmt, _convert(response, fmt))
    if _is_text(response):
        return _text_result(response, "raw", _decode(response))
    raise ToolFailure(
        f"{response.url} returned binary content ({response.media_type or 'unknown type'}) "
        "that webfetch cannot show as text."
    )


def _text_result(response: _Response, kind: str, text: str) -> ToolResult:
    output = _output(response, kind, text)
    return ToolResult(
        content=text or "(empty response)", metadata=_metadata(response), output=output
    )


def _output(response: _Response, kind: str, text: str) -> WebFetchOutput:
    return WebFetchOutput(
        url=response.url,
        status=response.status,
        content_type=response.media_type,
        format=kind,
        content=text,
    )


def _metadata(response: _Response) -> dict[str, object]:
    return {"url": response.url, "status": response.status, "bytes": len(response.body)}


def _looks_like_html(response: _Response) -> bool:
    head = response.body[:512].lstrip().lower()
    return not response.media_type and head.startswith((b"<!doctype html", b"<html"))


def _is_text(response: _Response) -> bool:
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


def _decode(response: _Response) -> str:
    try:
        return response.body.decode(response.charset or "utf-8", "replace")
    except LookupError:  # an unknown charset name in Content-Type
        return response.body.decode("utf-8", "replace")


def _convert(response: _Response, fmt: Format) -> str:
    """The page as ``fmt``. Only its first ``MAX_CONVERT_BYTES`` are converted (memory
    and time grow with the page), and the text then says so."""
    if fmt == "html":
        return _decode(response)
    body = response.body[:MAX_CONVERT_BYTES]
    soup = _soup(response, body)
    text = _markdown(soup, response.url) if fmt == "markdown" else _plain_text(soup)
    if len(body) < len(response.body):
        text += (
            f"\n\n[Only the first {format_size(len(body))} of this "
            f"{format_size(len(response.body))} page were converted. Fetch it with "
            "format='html' for all of it.]"
        )
    return text


def _soup(response: _Response, body: bytes) -> BeautifulSoup:
    """The page without non-content elements, its links and images made absolute."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body, "html.parser", from_encoding=response.charset)
    for element in soup(_DROPPED):
        element.decompose()
    for attribute, tags in (("href", ("a",)), ("src", ("img",))):
        for tag in soup.find_all(tags):
            value = tag.get(attribute)
            if isinstance(value, str):
                tag[attribute] = urljoin(response.url, value)
    return soup


def _markdown(soup: BeautifulSoup, url: str) -> str:
    """Markdown, for pages nested at most ``MAX_DEPTH`` elements deep: the converter
    recurses once per level and would otherwise run out of stack."""
    from markdownify import MarkdownConverter

    depth = _depth(soup)
    if depth > MAX_DEPTH:
        raise _too_deep(url, f"{depth:,}")
    converter = MarkdownConverter(heading_style="ATX", bullets="-")
    try:
        return _tidy(converter.convert_soup(soup))
    except RecursionError as exc:  # a safety net under the depth check
        raise _too_deep(url, f"over {MAX_DEPTH}") from exc


def _depth(soup: BeautifulSoup) -> int:
    """How deep elements nest, found in one pass without recursion."""
    from bs4.element import Tag

    depths = {id(soup): 0}
    deepest = 0
    for element in soup.descendants:
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


def _plain_text(soup: BeautifulSoup) -> str:
    """The page's text with a line break after each block element.

    One walk with an explicit stack: no recursion however deep the page nests, and no
    edits to the tree (inserting a break after each of many siblings is quadratic).
    """
    from bs4.element import CData, NavigableString, Tag

    pieces: list[str] = []
    stack: list[tuple[Iterator[PageElement], bool]] = [(iter(soup.contents), False)]
    while stack:
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
