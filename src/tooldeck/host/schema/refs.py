"""Does every ``$ref`` of a JSON Schema lead somewhere? Checked once, at registration.

A dangling reference (``#/$defs/Missing``, a typo in a pointer, a remote URL nobody can
fetch) passes meta-validation: the metaschema only says ``$ref`` is a string. Left
alone, it is advertised to the model and then fails every call as a defect, when the
validator first follows it. ``ref_problem`` follows each one up front, the way
``jsonschema`` would (``$id`` scopes, anchors and JSON pointers, through the
``referencing`` library it is built on), so such a schema is refused like any other
invalid one. Nothing is fetched: only references inside the schema resolve.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def ref_problem(schema: Mapping[str, Any]) -> str | None:
    """The first reference of ``schema`` that does not resolve, said plainly, or ``None``."""
    if not _mentions_ref(schema):
        return None  # most schemas: no need to load the resolver at all
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012, specification_with

    specification = specification_with(str(schema.get("$schema", "")), default=DRAFT202012)
    resource = specification.create_resource(schema)
    resolver = Registry().resolver_with_root(resource)
    pending = [(resolver, resource)]
    while pending:
        resolver, resource = pending.pop()
        problem = _unresolved(resolver, resource.contents)
        if problem is not None:
            return problem
        pending.extend((resolver.in_subresource(sub), sub) for sub in resource.subresources())
    return None


def _unresolved(resolver: Any, node: Any) -> str | None:
    from referencing.exceptions import PointerToNowhere, Unresolvable

    if not isinstance(node, Mapping):
        return None
    for keyword in _REF_KEYWORDS:
        ref = node.get(keyword)
        if not isinstance(ref, str) or (keyword == "$recursiveRef" and ref == "#"):
            continue
        try:
            resolver.lookup(ref)
        except PointerToNowhere:
            return f"{keyword} {ref!r} points to nothing in the schema"
        except Unresolvable:
            return (
                f"{keyword} {ref!r} cannot be resolved: references must point inside the "
                "schema (such as '#/$defs/Name'); nothing is fetched"
            )
    return None


def _mentions_ref(node: Any) -> bool:
    """Whether any mapping in ``node`` has a reference keyword (an over-approximation:
    ``$ref`` inside an ``enum`` value counts too), without recursion."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if any(keyword in item for keyword in _REF_KEYWORDS):
                return True
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False
