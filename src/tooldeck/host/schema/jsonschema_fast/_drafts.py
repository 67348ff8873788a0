"""Which JSON Schema draft a schema uses, what that draft acts on, and local ``$ref``s.

Shared by the compiler and the pruner, so both read a schema the way ``jsonschema`` does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from tooldeck.host.schema.jsonschema_fast._base import Unsupported

# Keywords that change how references resolve; jsonschema has no validator for them.
_META: Final = frozenset(
    {"$id", "$schema", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary"}
)
_ROOT_META: Final = frozenset({"$id", "$schema"})


class Draft(NamedTuple):
    """What differs between the compiled drafts, for the keywords we compile."""

    keywords: frozenset[str]  # keywords jsonschema acts on; the others are annotations
    prefix_items: bool  # 2020-12: ``items`` applies after ``prefixItems``
    ref_siblings: bool  # 2019-09+: keywords beside ``$ref`` apply too


def validator_class(schema: Mapping[str, Any]) -> Any:
    # Deferred: jsonschema is slow to import. No stubs ship with it.
    from jsonschema import validators  # type: ignore[import-untyped, unused-ignore]

    return validators.validator_for(schema, default=validators.Draft202012Validator)


def draft_for(cls: Any) -> Draft | None:
    from jsonschema import validators  # type: ignore[import-untyped, unused-ignore]

    rules = {
        validators.Draft202012Validator: (True, True),
        validators.Draft201909Validator: (False, True),
        validators.Draft7Validator: (False, False),
        validators.Draft6Validator: (False, False),
    }.get(cls)
    if rules is None:
        return None
    # ``format`` is annotation-only: validators are built without a format checker.
    return Draft(frozenset(cls.VALIDATORS) - {"format"}, *rules)


def active_keywords(
    schema: Mapping[str, Any], draft: Draft, at_root: bool
) -> list[tuple[str, Any]]:
    """The (keyword, value) pairs jsonschema acts on, in schema order."""
    if "$ref" in schema and not draft.ref_siblings:
        return [("$ref", schema["$ref"])]
    for key in _META.intersection(schema):
        if not (at_root and key in _ROOT_META):
            raise Unsupported(key)
    return [(k, v) for k, v in schema.items() if k in draft.keywords]


def resolve(root: Mapping[str, Any], ref: Any) -> tuple[Any, bool]:
    """The target of a local ref (``#``, ``#/$defs/x``, ``#/definitions/x``), and
    whether it is the root. Anything else (remote, anchors, deeper pointers) is refused."""
    if ref == "#":
        return root, True
    if not isinstance(ref, str) or "%" in ref or re.search("~[^01]|~$", ref):
        raise Unsupported(ref)
    parts = ref.split("/")
    if len(parts) != 3 or parts[0] != "#" or parts[1] not in ("$defs", "definitions"):
        raise Unsupported(ref)
    defs = root.get(parts[1])
    name = parts[2].replace("~1", "/").replace("~0", "~")
    if not isinstance(defs, Mapping) or name not in defs:
        raise Unsupported(ref)
    return defs[name], False
