"""Resources and prompts in the replayed catalog: their entries and keys (whether one can
be registered: ``feature_checks.py``).

They replay with the tools (the same transforms, order, overrides, disposal and
session overlays) in a draft of their own, keyed so that a key says its kind:
``resource:<uri or uri template>`` and ``prompt:<effective name>``. A ``:`` never
occurs in a tool's effective name, so an edit log tells the drafts apart by the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from tooldeck._public import public

if TYPE_CHECKING:
    from tooldeck._prompt import Prompt
    from tooldeck._resource import Resource, ResourceTemplate

RESOURCE = "resource:"
PROMPT = "prompt:"


@public
class ResourceEntry(NamedTuple):
    """One effective resource or template: its URI (or URI template), itself, its source."""

    uri: str
    resource: Resource | ResourceTemplate
    source: str


@public
class PromptEntry(NamedTuple):
    """One effective prompt: its effective name, itself, and who provided it."""

    name: str
    prompt: Prompt
    source: str


FeatureEntry: TypeAlias = ResourceEntry | PromptEntry


def is_feature_key(key: str) -> bool:
    """Whether an edit-log key names a resource or a prompt (not a tool or namespace)."""
    return ":" in key


def resource_key(uri: str) -> str:
    return RESOURCE + uri


def prompt_key(name: str) -> str:
    return PROMPT + name
