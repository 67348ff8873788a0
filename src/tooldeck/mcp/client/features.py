"""A server's resources, resource templates and prompts: listed when it offers them.

A server declares ``resources`` and ``prompts`` in its capabilities; only what it
declares is listed, so a tools-only server costs no request more. Each list is read
every page, bounded like the tool listing (``MAX_PAGES`` pages, ``MAX_ITEMS`` items,
the rest cut with a note). A list the server fails to answer leaves that kind empty
with a note for the server's report row; its tools and the other kinds still mount.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from tooldeck.mcp.client.listing import MAX_PAGES

if TYPE_CHECKING:
    from tooldeck.mcp.sdk import Client, types

MAX_ITEMS = 2000
"""Resources (templates, prompts) mounted from one server; a longer list is cut."""

TOOLS = "tools"
RESOURCES = "resources"
PROMPTS = "prompts"
KINDS = frozenset({TOOLS, RESOURCES, PROMPTS})
"""What a server lists: each changes on its own (``notifications/*/list_changed``)."""

T = TypeVar("T")


class Features(NamedTuple):
    """A server's resources, templates and prompts as listed, and notes on the lists."""

    resources: tuple[types.Resource, ...] = ()
    templates: tuple[types.ResourceTemplate, ...] = ()
    prompts: tuple[types.Prompt, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()
    """``(kind, text)``: what went wrong listing a kind, for the server's report row."""
    completes: bool = False
    """The server offers ``completion/complete`` (for its prompts' and templates' values)."""

    def note_texts(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.notes)


NONE = Features()


def offered(capabilities: Any) -> frozenset[str]:
    """The kinds besides tools a server's capabilities say it lists."""
    kinds = set()
    if getattr(capabilities, "resources", None) is not None:
        kinds.add(RESOURCES)
    if getattr(capabilities, "prompts", None) is not None:
        kinds.add(PROMPTS)
    return frozenset(kinds)


async def list_features(client: Client, kinds: Collection[str], previous: Features) -> Features:
    """``previous`` with the kinds in ``kinds`` listed afresh (those the server offers;
    the others it does not offer are empty)."""
    offers = offered(client.server_capabilities)
    resources, templates, prompts = previous.resources, previous.templates, previous.prompts
    notes: list[tuple[str, str]] = []
    if RESOURCES not in offers:
        resources, templates = (), ()
    elif RESOURCES in kinds:
        resources = await _all(
            (RESOURCES, "resources"),
            lambda cursor: client.list_resources(cursor=cursor, cache_mode="bypass"),
            lambda page: page.resources,
            notes,
        )
        templates = await _all(
            (RESOURCES, "resource templates"),
            lambda cursor: client.list_resource_templates(cursor=cursor, cache_mode="bypass"),
            lambda page: page.resource_templates,
            notes,
        )
    if PROMPTS not in offers:
        prompts = ()
    elif PROMPTS in kinds:
        prompts = await _all(
            (PROMPTS, "prompts"),
            lambda cursor: client.list_prompts(cursor=cursor, cache_mode="bypass"),
            lambda page: page.prompts,
            notes,
        )
    kept = [(kind, text) for kind, text in previous.notes if kind not in kinds]
    completes = getattr(client.server_capabilities, "completions", None) is not None
    return Features(resources, templates, prompts, tuple(kept + notes), completes)


async def _all(
    kind_and_what: tuple[str, str],
    fetch: Callable[[str | None], Awaitable[Any]],
    items: Callable[[Any], list[T]],
    notes: list[tuple[str, str]],
) -> tuple[T, ...]:
    kind, what = kind_and_what
    found: list[T] = []
    cursor: str | None = None
    try:
        for _ in range(MAX_PAGES):
            page = await fetch(cursor)
            found += items(page)
            cursor = page.next_cursor
            if cursor is None or len(found) > MAX_ITEMS:
                break
    except TimeoutError:
        raise
    except Exception as exc:  # a kind the server cannot list: its tools still mount
        notes.append((kind, f"listing {what} failed, none are mounted: {exc}"))
        return ()
    if len(found) > MAX_ITEMS or cursor is not None:
        more = "more" if cursor is not None else str(len(found))
        notes.append(
            (kind, f"the server lists {more} {what}; only the first {MAX_ITEMS} are mounted")
        )
    return tuple(found[:MAX_ITEMS])
