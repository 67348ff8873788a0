"""Which pages a mounted server may have the user sent to, and how its words are shown.

A mounted server is not trusted the way the host is: the page it names in a URL-mode
question or a ``-32042`` reaches a client that may open it, the host's asker (a
terminal), or the model. So a page is shown only when it is a web page the user can
judge: ``https``, or ``http`` to this machine (a development server), with a host, no
credentials in it (MCP: a server must not put them there; anyone shown the URL would
hold them), no control or space characters, at most ``MAX_URL`` characters. A
``javascript:``, ``file:`` or ``data:`` URL runs or reads something where it is opened,
so it is never shown. A ``-32042`` lists at most ``MAX_PAGES`` pages.

A page that is shown may still not be the site it looks like: a host written with
letters of another alphabet (``apple.com`` with a Cyrillic first letter) or its ASCII
``xn--`` form reads as a familiar name. ``look_alike`` says so, with both spellings,
wherever tooldeck shows a page to a person or to the model (MCP asks clients to flag
such hosts).

A server's message is shown as one line of plain text: control and format characters
(escape sequences, a right-to-left override that turns ``exe.png`` into ``gnp.exe``, a
newline that would forge another line of a failure's list) become spaces, and it is cut
at ``MAX_MESSAGE`` characters.
"""

from __future__ import annotations

from tooldeck.host.config.mcp_keys import LOOPBACK_HOSTS
from tooldeck.host.permissions.shown import unprintable

MAX_PAGES = 8
"""Pages one ``-32042`` may list; past that none is shown (a user asked in turn)."""
MAX_URL = 4096
"""Characters of a page's URL (a sign-in URL with its state is well under this)."""
MAX_MESSAGE = 500
"""Characters of a server's message shown with a page."""

REFUSED = "tooldeck did not send the user to this page: {why}"
"""What a server hears when its URL-mode question names a page that is not shown."""


def url_problem(url: str) -> str | None:
    """Why the user must not be sent to ``url``; ``None`` when it may be shown. The
    reason never repeats the URL (it may hold credentials)."""
    from urllib.parse import urlsplit

    if len(url) > MAX_URL:
        return f"its URL is {len(url)} characters long (at most {MAX_URL})"
    if any(unprintable(char) or char.isspace() for char in url):
        return "its URL holds control or space characters"
    try:
        parts = urlsplit(url)
        host = parts.hostname
        credentials = parts.username is not None or parts.password is not None
    except ValueError:
        return "its URL is not well formed"
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and host in LOOPBACK_HOSTS):
        return (
            f"its scheme is {scheme!r}; only https is shown (http only to "
            f"{', '.join(LOOPBACK_HOSTS)})"
        )
    if not host:
        return "its URL names no host"
    if credentials:
        return "its URL carries credentials (user:password@)"
    return None


def look_alike(url: str) -> str | None:
    """A warning when ``url``'s host is internationalized (non-ASCII letters, or an
    ``xn--`` label): it may imitate another name. ``None`` for a plain ASCII host."""
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return None
    labels = host.split(".")
    if host.isascii() and not any(label.startswith("xn--") for label in labels):
        return None
    ascii_form, unicode_form = _spellings(host)
    return (
        f"careful: the page's host {ascii_form!r} is written with non-ASCII letters "
        f"({unicode_form!r}), which can imitate a familiar name"
    )


def _spellings(host: str) -> tuple[str, str]:
    """``host`` in ASCII (punycode) and in Unicode; a label that does not convert is
    kept as written, so the warning never fails."""
    ascii_labels, unicode_labels = [], []
    for label in host.split("."):
        try:
            if label.isascii():
                unicode_labels.append(label.encode("ascii").decode("idna"))
                ascii_labels.append(label)
            else:
                ascii_labels.append(label.encode("idna").decode("ascii"))
                unicode_labels.append(label)
        except UnicodeError:
            ascii_labels.append(label)
            unicode_labels.append(label)
    return plain(".".join(ascii_labels)), plain(".".join(unicode_labels))


def plain(message: str) -> str:
    """A server's ``message`` as one line of plain text, at most ``MAX_MESSAGE`` long."""
    text = "".join(" " if unprintable(char) else char for char in message)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"
