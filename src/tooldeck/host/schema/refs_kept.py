"""A derived schema with its local ``$ref``s and ``$defs`` kept, for formats that take them.

``derive`` inlines references because several providers reject ``$defs``. MCP takes
JSON Schema 2020-12 whole, and a client (or the conformance suite) expects a schema
written with ``$defs`` to arrive with them. So ``refs_kept`` walks the schema as
``derive`` does, closing the same objects, but leaves references and definitions in
place; it is used only when inlining its result (without closing anything more) gives
exactly the derived schema, so what is advertised validates exactly what the boundary
validates. Otherwise (a definition reached both where ``derive`` closes objects and
where it does not, say) the derived, inlined schema is advertised as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck.host.schema.derive import _Deriver, is_model_class, is_type_adapter, json_schema
from tooldeck.host.schema.frozen import FrozenDict, freeze

_cache: dict[tuple[int, str], tuple[object, FrozenDict]] = {}
_CACHE_MAX = 4096


def refs_kept(source: Any, *, mode: str = "validation") -> FrozenDict:
    """``json_schema(source, mode)`` with local ``$ref``s and ``$defs`` kept where that is
    equivalent (the derived schema otherwise); cached per source."""
    derived = json_schema(source, mode=mode)
    if source is None:
        return derived
    hit = _cache.get((id(source), mode))
    if hit is not None and hit[0] is source:
        return hit[1]
    raw = _raw(source, mode)  # a model's JSON Schema is made once here, defs or not
    result = derived
    if "$defs" in raw or "definitions" in raw:
        pydantic = not isinstance(source, Mapping)
        kept = _Deriver(raw, raw=not pydantic, inline=False).run()
        inlined = _Deriver(kept, raw=True, closing=False).run()
        result = freeze(kept) if freeze(inlined) == derived else derived
    if len(_cache) >= _CACHE_MAX:
        _cache.pop(next(iter(_cache)))
    _cache[(id(source), mode)] = (source, result)
    return result


def _raw(source: Any, mode: str) -> Mapping[str, Any]:
    if is_model_class(source):
        return source.model_json_schema(mode=mode)  # type: ignore[no-any-return]
    if is_type_adapter(source):
        return source.json_schema(mode=mode)  # type: ignore[no-any-return]
    return source  # type: ignore[no-any-return]
