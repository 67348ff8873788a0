"""A mounted server's refusal of a tool call until the user has opened some pages:
the JSON-RPC error ``-32042`` (``URLElicitationRequiredError``, MCP 2025-11-25), whose
``data.elicitations`` are URL-mode questions (message, url, elicitationId). A server
may answer a resource read or a prompt with it as well; they are handled alike.

Reported as a plain protocol error, neither the user nor the serving client could act
on it. Instead ``calls.request_past_pages`` asks each listed question, in order, of the call's
own ``ctx.elicit_url`` (through ``UrlQuestions.asked``, so the serving client is asked
under ``<server>.<id>`` and the server's completion notifications reach it as for a
question asked mid-call), and retries the call once when every one was accepted.

An accepted page means the user agreed to go, not that they are done there, so the
retry waits (``finished``) until the server has said each page that has an
``elicitationId`` is complete (``notifications/elicitation/complete``), for at most the
server's ``timeout_s``; past that it is retried anyway, and the server decides. Pages
without an id cannot be waited for.

Whatever stops that (a question declined or cancelled, no one who can be asked, a
second ``-32042``) fails the call with a ``ToolFailure`` that names the server and
lists each message and URL: the model can show them to the user and call again later.

The SDK's client raises a plain ``MCPError`` for the error (its
``UrlElicitationRequiredError`` is what a server raises); ``required`` reads the
questions back from its data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tooldeck._tool import AwaitingInput, ToolFailure
from tooldeck.mcp.client.pages import MAX_PAGES, look_alike, plain, url_problem

if TYPE_CHECKING:
    from tooldeck.mcp.client.deadlines import Deadlines
    from tooldeck.mcp.client.server_requests import Caller
    from tooldeck.mcp.client.url_questions import UrlQuestions
    from tooldeck.mcp.sdk import types

UNASKED = "they could not be shown to the user: {why}"
"""Why the pages are listed, when the call's ``ctx.elicit_url`` could not ask."""

AGAIN = (
    "it still required them after the user agreed to open them (the call is retried "
    "once, when the server says they are done or its timeout_s has passed); the user "
    "may not be done there yet"
)
"""Why the pages are listed after the retry also got ``-32042``."""


@dataclass(frozen=True, slots=True)
class UrlsRequired:
    """The pages a server's ``-32042`` says the user must open before a request is answered."""

    pages: tuple[types.ElicitRequestURLParams, ...]

    @property
    def ids(self) -> list[str]:
        """The server's ids of the pages, for those that have one (only those can be
        waited for)."""
        return [page.elicitation_id for page in self.pages if page.elicitation_id]


def required(exc: Exception) -> UrlsRequired | None:
    """The pages ``exc`` asks for, when it is a well-formed ``-32042`` listing at least
    one; ``None`` otherwise (any other error stays the plain protocol error it is)."""
    from tooldeck.mcp.sdk import URL_ELICITATION_REQUIRED, MCPError, UrlElicitationRequiredError

    if not isinstance(exc, MCPError) or exc.code != URL_ELICITATION_REQUIRED:
        return None
    try:
        pages = UrlElicitationRequiredError.from_error(exc.error).elicitations
    except (ValueError, AttributeError, TypeError):  # data is not the spec's shape
        return None
    return UrlsRequired(tuple(pages)) if pages else None


async def visit(
    urls: UrlQuestions, needed: UrlsRequired, caller: Caller | None, subject: str
) -> None:
    """Ask the call's client to send its user to each page, in order; returns once every
    one was accepted. Raises ``ToolFailure`` (see ``unvisited``) at the first that was
    not, and ``AwaitingInput`` when the call's client answers in its next round."""
    if caller is None:
        unasked = UNASKED.format(why="nothing called it")
        raise ToolFailure(unvisited(urls.server, subject, needed, unasked))
    urls.expect(needed.ids)  # before asking: the server may say one is done at once
    try:
        for page in needed.pages:
            why = await _refusal(urls, caller, page)
            if why is not None:
                raise ToolFailure(unvisited(urls.server, subject, needed, why))
    except AwaitingInput:  # the next round asks again, still expecting them
        raise
    except BaseException:  # no wait follows
        urls.forget(needed.ids)
        raise


async def _refusal(
    urls: UrlQuestions, caller: Caller, page: types.ElicitRequestURLParams
) -> str | None:
    """Why the user will not open ``page``: no one could be asked (the reason
    ``ctx.elicit_url`` gave), or they did not agree; ``None`` once they agreed."""
    try:
        answer = await urls.asked(caller, page)
    except AwaitingInput:  # a ToolFailure too, but the client answers next round
        raise
    except ToolFailure as exc:
        return UNASKED.format(why=str(exc).rstrip("."))
    if answer.action != "accept":
        return f"the user did not agree to open them ({answer.action})"
    return None


async def finished(
    urls: UrlQuestions, needed: UrlsRequired, deadlines: Deadlines, timeout: float
) -> None:
    """Return once the server has said every page of ``needed`` with an id is complete,
    or ``timeout`` seconds of the connection's clock have passed (the retry then tells
    whether the user is done)."""
    with deadlines.move_on_after(timeout):
        await urls.done(needed.ids)


def shown(server: str, subject: str, needed: UrlsRequired) -> UrlsRequired:
    """``needed``, when its pages may be shown to anyone (``pages``: at most
    ``MAX_PAGES``, each a web page the user can judge); otherwise raises the
    ``ToolFailure`` that says which page and why, without its URL."""
    count = len(needed.pages)
    if count > MAX_PAGES:
        why: str | None = f"it listed {count} pages (at most {MAX_PAGES} are shown)"
    else:
        problems = ((n, url_problem(page.url)) for n, page in enumerate(needed.pages, start=1))
        why = next((f"page {n}: {problem}" for n, problem in problems if problem), None)
    if why is None:
        return needed
    raise ToolFailure(
        f"MCP server {server!r} requires the user to open pages first, for {subject}, "
        f"and tooldeck will not show them: {why}. Nothing was shown to the user."
    )


def _listed(message: str, url: str) -> str:
    """One page of the failure's list: its message and URL, and a look-alike host's
    warning after them."""
    warning = look_alike(url)
    return f"- {plain(message)}: {url}" + (f" ({warning})" if warning else "")


def unvisited(server: str, subject: str, needed: UrlsRequired, why: str) -> str:
    """The failure a model reads: who needs which pages opened, and why they were not."""
    pages = "\n".join(_listed(page.message, page.url) for page in needed.pages)
    return (
        f"MCP server {server!r} requires the user to open these pages first, for {subject}; "
        f"{why}:\n{pages}\nShow them to the user, and ask again once they are done."
    )
