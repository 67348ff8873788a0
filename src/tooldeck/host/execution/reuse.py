"""A rebuilt snapshot's index and listings, taken from the previous snapshot where the
catalog is unchanged.

After one tool of a large catalog changes, the plain build visits every tool again:
``index_of`` decides each one's visibility and routing, and each listing renders each
one (from its cache), reading objects spread over the whole catalog: most of what the
rebuild costs (``bench/DECISIONS.md``, W9 "changed"). When the new catalog has the same
names in the same order as the previous snapshot's, built by the same service with the
same permissions and code-mode provider, an entry that is the same object is decided
as it was: only the entries that are not are found (compared by identity, by ``map``,
without reading them) and decided again, and the listings are the previous ones with
those tools rendered again. Anything else (names added, removed or
reordered, many changes, a change into or out of code mode or out of sight) is built
the plain way. ``tests/host/execution/test_reuse.py`` pins the result to the plain
build over generated catalogs and edits.
"""

from __future__ import annotations

from itertools import compress
from operator import is_not
from typing import TYPE_CHECKING

from tooldeck.host.execution.definitions import Index, Visibility, codemode_in_use, visible
from tooldeck.host.execution.lazy import wire_formats
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord, record_of
from tooldeck.host.schema.frozen import FrozenDict

if TYPE_CHECKING:
    from tooldeck.host.execution.definitions import CodeModeProvider
    from tooldeck.host.execution.snapshot import Snapshot

MOST_CHANGED = 16
"""Past one changed entry in this many (and eight in all) the plain build is as cheap."""

PLAIN = "+plain"
"""How a snapshot's cache key of a whole listing ends (``listings.Listings.plain``)."""


def index_after(
    previous: Snapshot,
    snapshot: Snapshot,
    permissions: Visibility | None,
    codemode: CodeModeProvider | None,
) -> Index | None:
    """``snapshot``'s index from ``previous``'s, or ``None`` to build it the plain way;
    seeds ``snapshot``'s listings with ``previous``'s, the changed tools rendered again."""
    old, new = previous.catalog.tools, snapshot.catalog.tools
    if len(old) != len(new) or previous.location is not snapshot.location:
        return None
    use_codemode = codemode_in_use(codemode, snapshot.location, permissions)
    if use_codemode != previous._codemode_on or list(old) != list(new):
        return None
    changed = list(compress(new, map(is_not, new.values(), old.values())))
    if len(changed) > max(8, len(new) // MOST_CHANGED):
        return None
    records = dict(previous._records_by_name)
    # ``execute``, once built for ``previous``, is not this snapshot's (it describes the
    # catalog's namespaces and the config of when it was built): built again on first
    # need, and listed again with it.
    built = bool(previous.codemode_catalog) and RESERVED_CODEMODE_NAME in records
    if built:
        del records[RESERVED_CODEMODE_NAME]
    renewed: list[ToolRecord] = []
    for name in changed:
        before, after = old[name], new[name]
        shown = visible(after, permissions)
        if shown != visible(before, permissions) or (
            use_codemode and (before.tool.codemode or after.tool.codemode)
        ):
            return None  # a tool appears, disappears or moves to or from code mode
        if shown:
            record = records[name] = record_of(after.tool)
            renewed.append(record)
    snapshot._codemode_on = use_codemode
    if not built:
        snapshot._rendered = _listings(previous, records, renewed)
    coded = previous.codemode_catalog
    return coded, records, codemode if coded else None


def _listings(
    previous: Snapshot, records: dict[str, ToolRecord], renewed: list[ToolRecord]
) -> dict[str, tuple[FrozenDict, ...]]:
    """``previous``'s whole listings with each renewed tool rendered in its place."""
    order = list(records)
    places = [(order.index(r.effective), r) for r in renewed]
    render = wire_formats().render
    listings: dict[str, tuple[FrozenDict, ...]] = {}
    for key, listing in previous._rendered.items():
        if not key.endswith(PLAIN):
            continue
        fmt, _, rest = key.removesuffix(PLAIN).partition("+")
        items = list(listing)
        for place, record in places:
            items[place] = render(record, fmt, strict=rest == "strict")
        listings[key] = tuple(items)
    return listings
