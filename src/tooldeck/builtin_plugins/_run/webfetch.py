"""How ``webfetch`` runs (the tool is declared in ``builtin_plugins/webfetch.py``): the
URL check, the permission ask, and the fetch with its deadline, redirect and size rules.

The whole module loads on the tool's first call. What the response then becomes is
``_run/webfetch_convert.py``'s job.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import feedback_as_failure
from tooldeck.builtin_plugins._run.webfetch_convert import Abandoned, Fetched, result_of
from tooldeck.builtin_plugins.webfetch import MAX_BYTES, MAX_TIMEOUT, Format, WebFetchInput

if TYPE_CHECKING:
    from tooldeck.builtin_plugins._deferred import RunFn
    from tooldeck.host.location.location import Location

log = logging.getLogger("tooldeck")

MAX_REDIRECTS = 10

_ACCEPT = {
    "markdown": "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
    "text": "text/plain;q=1.0, text/html;q=0.9, */*;q=0.1",
    "html": "text/html;q=1.0, application/xhtml+xml;q=0.9, */*;q=0.1",
}
_USER_AGENT = "tooldeck-webfetch/0.1 (+https://pypi.org/project/tooldeck/)"


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
    on the loop it would hold up every other call and ignore the deadline. When the
    deadline passes (or the call is cancelled) the answer comes at once, and ``stop`` is
    set: the conversion ends at its next step instead of running on.
    """
    response: Fetched | None = None
    stop = threading.Event()
    try:
        async with asyncio.timeout(params.timeout):
            response = await _fetch(url, params)
            return await asyncio.to_thread(_converted, response, params.format, stop)
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
    finally:
        stop.set()  # a conversion still running has nobody waiting for it


def _converted(response: Fetched, fmt: Format, stop: threading.Event) -> ToolResult:
    """``result_of`` in the worker thread; an abandoned conversion just ends."""
    try:
        return result_of(response, fmt, stop)
    except Abandoned:
        log.debug("webfetch: stopped converting %s: nobody waits for it", response.url)
        raise


async def _fetch(url: str, params: WebFetchInput) -> Fetched:
    """GET ``url``, following same-host redirects, stopping at another host's."""
    headers = {"Accept": _ACCEPT[params.format], "User-Agent": _USER_AGENT}
    async with httpx.AsyncClient(timeout=params.timeout, headers=headers) as client:
        for _ in range(MAX_REDIRECTS + 1):
            async with client.stream("GET", url) as response:
                target = _redirect_target(response)
                if target is None:
                    return await _complete(response)
            if not _same_site(url, target):
                return Fetched(url, response.status_code, "", None, b"", redirect=target)
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


async def _complete(response: httpx.Response) -> Fetched:
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
    return Fetched(
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
