"""The ``webfetch`` built-in: fetch one http(s) URL and return it as markdown, text or HTML.

Order of a call: check the URL (http/https only, before anyone is asked) → assert
``webfetch`` on the URL → fetch, within ``timeout`` seconds for the whole exchange
(connecting, redirects, reading) → convert.

Bounds and failures (each a ``ToolFailure`` saying what to try next): responses over
``MAX_BYTES`` (5 MiB, after decompression) are refused from their ``Content-Length`` or
as soon as the stream passes it; HTTP 4xx/5xx name the status; network errors and the
timeout say what happened. Redirects on the same host (and http → https upgrades of it)
are followed; a redirect to another host is reported, not followed: the permission was
given for this URL, so the model fetches the new one in a new, separately approved call.

Conversion: HTML becomes markdown (links made absolute) or plain text, or stays HTML
when asked; scripts, styles and other non-content elements are dropped. Other text
(JSON, plain text, XML, ...) comes back as it is. PNG, JPEG, GIF and WEBP images come
back as images. Other binary content is refused.

Converting is CPU work that grows with the page, so it is bounded like the fetch: it
runs in a worker thread under the same ``timeout`` (the loop keeps serving other calls
and the deadline holds), only the first ``MAX_CONVERT_BYTES`` (2 MiB) of a page are
converted (the text then says so), and markdown is refused for pages nested more than
``MAX_DEPTH`` (200) elements deep, whose conversion would exhaust the stack; plain text
converts them, without recursion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from tooldeck._tool import Tool
from tooldeck.builtin_plugins._deferred import deferred
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

MAX_BYTES = 5 * 1024 * 1024
MAX_CONVERT_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 200
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 120.0
Format = Literal["markdown", "text", "html"]

DESCRIPTION = f"""\
Fetch a web page or file by URL and return its content.

HTML pages come back as markdown by default (links made absolute), or as plain text or \
the raw HTML with `format`. Other text (JSON, plain text, XML, source code) comes back \
as it is; PNG, JPEG, GIF and WEBP images come back as images. Only http:// and \
https:// URLs; responses over {MAX_BYTES // (1024 * 1024)} MB are refused; `timeout` \
(default {DEFAULT_TIMEOUT:g} s, at most {MAX_TIMEOUT:g} s) covers the whole fetch. \
Redirects on the same host are followed; a redirect to another host is reported so you \
can fetch the new URL yourself. Each URL needs the user's approval. Long pages are cut \
and saved; the result then says where. Only the first \
{MAX_CONVERT_BYTES // (1024 * 1024)} MB of a page's HTML are converted; a page nested \
too deeply for markdown can still be fetched as text."""


class WebFetchInput(Model):
    url: str = Field(min_length=1, description="The http:// or https:// URL to fetch.")
    format: Format = Field(
        default="markdown",
        description="How to return an HTML page: markdown, text or html. Other content "
        "is returned as it is.",
    )
    timeout: float = Field(
        default=DEFAULT_TIMEOUT,
        gt=0,
        le=MAX_TIMEOUT,
        description=f"Seconds before giving up (at most {MAX_TIMEOUT:g}).",
    )


class WebFetchOutput(Model):
    url: str = Field(description="The URL the content came from, after redirects.")
    status: int = Field(description="The HTTP status code.")
    content_type: str = Field(description="The response's media type, e.g. text/html.")
    format: str = Field(
        description="What `content` is: markdown, text or html (a converted page), raw "
        "(other text, as sent), image (the image is in the content parts), or redirect."
    )
    content: str = Field(description="The text returned to the model.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``webfetch``; its code (``_run/webfetch.py``) loads on the first call."""
    editor.add(
        Tool(
            name="webfetch",
            description=DESCRIPTION,
            input=WebFetchInput,
            output=WebFetchOutput,
            execute=deferred("webfetch", location),
            codemode=False,
            permission="webfetch",
        )
    )
