"""Completions: values a client offers while its user types a prompt's or a resource
template's argument.

What a prompt argument or template variable declares (``complete``): its values (those
starting with what was typed are offered, case-insensitively), or ``fn(typed)``
returning the values to offer. Nothing declared, nothing offered. At most ``LIMIT``
values go back, with the total and whether there were more.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck._resource import ResourceTemplate

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot

LIMIT = 100
"""MCP's cap on the values of one completion."""


class Completion(NamedTuple):
    values: tuple[str, ...]
    total: int
    has_more: bool


NOTHING = Completion((), 0, False)


async def complete_prompt(snapshot: Snapshot, name: str, argument: str, typed: str) -> Completion:
    """Values for argument ``argument`` of prompt ``name`` (none for an unknown one)."""
    entry = snapshot.catalog.prompts.get(name)
    if entry is None:
        return NOTHING
    for declared in entry.prompt.arguments:
        if declared.name == argument:
            return await _offer(declared.complete, typed)
    return NOTHING


async def complete_template(
    snapshot: Snapshot, uri_template: str, variable: str, typed: str
) -> Completion:
    """Values for ``variable`` of the template registered as ``uri_template``."""
    entry = snapshot.catalog.resources.get(uri_template)
    if entry is None or not isinstance(entry.resource, ResourceTemplate):
        return NOTHING
    completers = entry.resource.complete or {}
    return await _offer(completers.get(variable), typed)


async def _offer(completer: Any, typed: str) -> Completion:
    if completer is None:
        return NOTHING
    if callable(completer):
        values: Any = completer(typed)
        if inspect.isawaitable(values):
            values = await values
        found = [str(v) for v in values]
    else:
        prefix = typed.casefold()
        found = [str(v) for v in completer if str(v).casefold().startswith(prefix)]
    return Completion(tuple(found[:LIMIT]), len(found), len(found) > LIMIT)
