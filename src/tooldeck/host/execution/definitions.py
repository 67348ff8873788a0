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
    location: Location,
    permissions: Visibility | None,
    codemode: CodeModeProvider | None,
) -> Index:
    """Which of ``catalog``'s tools are advertised natively and which go to code mode, the
    native ones indexed by name in definition order (native tools by name; the snapshot
    adds ``execute`` after them on first need: stubs are not rendered for nothing)."""
    shown = [catalog.tools[name] for name in sorted(catalog.tools)]
    shown = [e for e in shown if visible(e, permissions)]
    use_codemode = codemode_in_use(codemode, location, permissions)
    coded = tuple(e for e in shown if use_codemode and e.tool.codemode)
    native = (e for e in shown if not (use_codemode and e.tool.codemode))
    records = {r.effective: r for r in map(record_of, (e.tool for e in native))}
    return coded, records, codemode if coded else None
