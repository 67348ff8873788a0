"""The provider wire formats, and tool definitions rendered in each.

``Format`` is the one list of formats: ``Snapshot.definitions_for`` renders them (through
``render`` here), ``calls_from`` reads them and ``results_for`` writes them. This module
sits below the snapshot (it needs only the registry's records and the schema layer), so
the snapshot can render without the rest of ``providers``.

Each tool's rendering is cached on its ``ToolRecord`` record, so re-listing a catalog is a
list of dictionary hits. Results are frozen: callers share them.

``strict=True`` (the two OpenAI formats) renders OpenAI strict mode: the input schema
converted by ``schema.strict`` and ``"strict": true``, or, for a tool whose schema has
no strict form, the plain schema and ``"strict": false``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeAlias

from tooldeck.host.registry.record import ToolRecord
from tooldeck.host.schema.frozen import FrozenDict, freeze
from tooldeck.host.schema.refs_kept import refs_kept
from tooldeck.host.schema.strict import strict_schema

Format: TypeAlias = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
"""A provider wire format."""

FORMATS: tuple[Format, ...] = ("openai", "openai-responses", "anthropic", "gemini", "mcp")
STRICT_FORMATS = frozenset({"openai", "openai-responses"})

# The keywords of Gemini's schema subset (an OpenAPI schema object); others are left out.
# ``additionalProperties`` too: the API has refused it. Leaving a keyword out only widens
# what the model may send; tooldeck validates against the tool's own schema anyway.
_GEMINI_KEYS = frozenset(
    {
        "anyOf",
        "default",
        "description",
        "enum",
        "example",
        "format",
        "items",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "nullable",
        "pattern",
        "propertyOrdering",
        "required",
        "title",
    }
)


def render(record: ToolRecord, fmt: str, *, strict: bool = False) -> FrozenDict:
    """The ``fmt`` definition of one tool (cached per tool object)."""
    key = f"{fmt}+strict" if strict else fmt
    cached = record.definitions.get(key)
    if cached is None:
        check_format(fmt, strict=strict)
        if strict:
            cached = freeze(_STRICT_RENDERERS[fmt](record, strict_problem(record) is None))
        else:
            cached = freeze(_RENDERERS[fmt](record))
        record.definitions[key] = cached
    return cached


def render_all(
    records: Iterable[ToolRecord], fmt: str, *, strict: bool = False
) -> tuple[FrozenDict, ...]:
    """``render`` of each record, in order (a snapshot's whole listing)."""
    check_format(fmt, strict=strict)
    return tuple(render(r, fmt, strict=strict) for r in records)


def check_format(fmt: str, *, strict: bool = False) -> None:
    """Raise ``ValueError`` for an unknown format, or ``strict`` where it means nothing."""
    if fmt not in _RENDERERS:
        raise ValueError(f"unknown definition format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if strict and fmt not in STRICT_FORMATS:
        raise ValueError(
            f"strict=True is OpenAI strict mode: it applies to the 'openai' "
            f"and 'openai-responses' formats, not {fmt!r}"
        )


def strict_problem(record: ToolRecord) -> str | None:
    """Why the tool's input schema has no OpenAI strict form (``None``: it has one)."""
    return strict_schema(record.input_schema).reason


def _strict_parameters(record: ToolRecord, strict: bool) -> Any:
    if not strict:
        return record.input_schema
    return strict_schema(record.input_schema).schema


def _openai(record: ToolRecord) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": record.effective,
            "description": record.tool.description,
            "parameters": record.input_schema,
        },
    }


def _openai_strict(record: ToolRecord, strict: bool) -> dict[str, Any]:
    definition = _openai(record)
    definition["function"].update(parameters=_strict_parameters(record, strict), strict=strict)
    return definition


def _openai_responses(record: ToolRecord) -> dict[str, Any]:
    # The Responses API takes the function's fields flat, and ``strict`` is required.
    return {
        "type": "function",
        "name": record.effective,
        "description": record.tool.description,
        "parameters": record.input_schema,
        "strict": False,
    }


def _openai_responses_strict(record: ToolRecord, strict: bool) -> dict[str, Any]:
    definition = _openai_responses(record)
    definition.update(parameters=_strict_parameters(record, strict), strict=strict)
    return definition


def _anthropic(record: ToolRecord) -> dict[str, Any]:
    return {
        "name": record.effective,
        "description": record.tool.description,
        "input_schema": record.input_schema,
    }


def _gemini(record: ToolRecord) -> dict[str, Any]:
    return {
        "name": record.effective,
        "description": record.tool.description,
        "parameters": _gemini_schema(record.input_schema),
    }


def _gemini_schema(node: Any) -> Any:
    """``node`` in Gemini's schema subset: ``$defs``/``$ref`` become ``defs``/``ref``,
    ``oneOf`` becomes ``anyOf``, a type list becomes one type (``nullable``) or an
    ``anyOf`` of types, ``const`` a one-value ``enum``; other keywords are left out."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$defs", "definitions", "properties"):
            mapped = {name: _gemini_schema(sub) for name, sub in value.items()}
            out["properties" if key == "properties" else "defs"] = mapped
        elif key == "$ref" and isinstance(value, str):
            out["ref"] = value.replace("#/$defs/", "#/defs/").replace("#/definitions/", "#/defs/")
        elif key in ("anyOf", "oneOf"):
            out["anyOf"] = [_gemini_schema(arm) for arm in value]
        elif key == "items":
            out[key] = _gemini_schema(value)
        elif key == "type":
            out.update(_gemini_type(value))
        elif key == "const":
            out["enum"] = [value]
        elif key in _GEMINI_KEYS:
            out[key] = value
    return out


def _gemini_type(kind: Any) -> dict[str, Any]:
    if not isinstance(kind, list):
        return {"type": kind}
    kinds = [k for k in kind if k != "null"]
    nullable = {"nullable": True} if len(kinds) < len(kind) else {}
    if len(kinds) == 1:
        return {"type": kinds[0], **nullable}
    return {"anyOf": [{"type": k} for k in kinds], **nullable}


def _mcp(record: ToolRecord) -> dict[str, Any]:
    # MCP takes JSON Schema whole: ``$defs`` stay where keeping them is equivalent.
    definition: dict[str, Any] = {
        "name": record.effective,
        "description": record.tool.description,
        "inputSchema": refs_kept(record.tool.input),
    }
    output = record.output_schema
    # MCP requires structured output to be an object; other outputs travel as content only.
    if output is not None and output.get("type") == "object":
        definition["outputSchema"] = refs_kept(record.tool.output, mode="serialization")
    return definition


_RENDERERS: dict[str, Callable[[ToolRecord], dict[str, Any]]] = {
    "openai": _openai,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mcp": _mcp,
}
_STRICT_RENDERERS: dict[str, Callable[[ToolRecord, bool], dict[str, Any]]] = {
    "openai": _openai_strict,
    "openai-responses": _openai_responses_strict,
}
