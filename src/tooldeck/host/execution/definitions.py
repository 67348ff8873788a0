"""What a snapshot advertises and what decides it: the provider-neutral ``ToolDefinition``,
the ``Visibility`` a host filters the catalog with, and the ``CodeModeProvider`` that puts
code-mode tools behind ``execute``.

``Snapshot`` and the layered session snapshot (``layered.py``) both decide visibility
with the helpers here, so a tool is shown or hidden alike whichever builds the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from tooldeck._public import public
from tooldeck._tool import AnyTool
from tooldeck.host.registry.editor import CatalogEntry
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord, record_of
from tooldeck.host.schema.frozen import FrozenDict

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.catalog import Catalog


@public
class ToolDefinition(NamedTuple):
    """An advertised tool as the snapshot describes it (provider-neutral)."""

    name: str
    description: str
    input_schema: FrozenDict
    output_schema: FrozenDict | None
    tool: AnyTool


@public
class Visibility(Protocol):
    """What ``service.snapshot(permissions=...)`` needs: is an action wholly denied?"""

    def hidden(self, action: str) -> bool: ...


@public
class CodeModeProvider(Protocol):
    """Builds the code-mode ``execute`` tool for a snapshot (see ``tooldeck.codemode``).

    ``available`` is asked once per snapshot (cheap, no sandbox import); ``build`` only
    when the snapshot has a visible code-mode tool and first needs ``execute``.
    """

    def available(self, location: Location) -> bool: ...

    def build(self, snapshot: Snapshot, tools: Sequence[CatalogEntry]) -> AnyTool: ...


def action_of(entry: CatalogEntry) -> str:
    return entry.tool.permission or entry.name


def visible(entry: CatalogEntry, permissions: Visibility | None) -> bool:
    """Whether ``entry`` is advertised under ``permissions`` (its action not wholly denied)."""
    return permissions is None or not permissions.hidden(action_of(entry))


def codemode_in_use(
    codemode: CodeModeProvider | None, location: Location, permissions: Visibility | None
) -> bool:
    """Whether code-mode tools go behind ``execute`` (else every tool is native)."""
    return (
        codemode is not None
        and codemode.available(location)
        and (permissions is None or not permissions.hidden(RESERVED_CODEMODE_NAME))
    )


Index = tuple[tuple[CatalogEntry, ...], dict[str, "ToolRecord"], "CodeModeProvider | None"]
"""What a snapshot advertises: its code-mode tools, its native records by name, and the
provider that builds ``execute`` when there are code-mode tools."""


def index_of(
    catalog: Catalog,
    permissions: Visibility | None,
    codemode: CodeModeProvider | None,
    use_codemode: bool,
) -> Index:
    """Which of ``catalog``'s tools are advertised natively and which go to code mode
    (``use_codemode``: ``codemode_in_use``), the native ones indexed by name in
    definition order (native tools by name; the snapshot adds ``execute`` after them on
    first need: stubs are not rendered for nothing)."""
    tools = catalog.tools
    coded: list[CatalogEntry] = []
    records: dict[str, ToolRecord] = {}
    # One pass, every rebuild: it is most of what a snapshot costs after one tool changed
    # in a large catalog (``bench/RESULTS.md``, W9).
    for name in sorted(tools):
        entry = tools[name]
        if permissions is not None and permissions.hidden(action_of(entry)):
            continue
        tool = entry.tool
        if use_codemode and tool.codemode:
            coded.append(entry)
        else:
            record = tool._record or record_of(tool)
            records[record.effective] = record
    return tuple(coded), records, codemode if coded else None
