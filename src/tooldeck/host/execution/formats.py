"""Render tool definitions in each provider's wire format.

Each tool's rendering is cached on its ``ToolRecord`` record, so re-listing a catalog is a
list of dictionary hits. Results are frozen: callers share them.

``strict=True`` (the two OpenAI formats) renders OpenAI strict mode: the input schema
converted by ``schema.strict`` and ``"strict": true``, or, for a tool whose schema has
no strict form, the plain schema and ``"strict": false``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from tooldeck.host.registry.record import ToolRecord
from tooldeck.host.schema.frozen import FrozenDict, freeze
from tooldeck.host.schema.strict import strict_schema

DefinitionFormat: TypeAlias = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
"""The provider formats ``Snapshot.definitions_for`` renders."""

FORMATS: tuple[DefinitionFormat, ...] = (
    "openai", "openai-responses", "anthropic", "gemini", "mcp")
STRICT_FORMATS = frozenset({"openai", "openai-responses"})

# Keys Gemini's function-declaration schema subset does not accept.
_GEMINI_DROP = frozenset({"additionalProperties", "$schema", "$id"})


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


def check_format(fmt: str, *, strict: bool = False) -> None:
    """Raise ``ValueError`` for an unknown format, or ``strict`` where it means nothing."""
    if fmt not in _RENDERERS:
        raise ValueError(
            f"unknown definition format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if strict and fmt not in STRICT_FORMATS:
        raise ValueError(f"strict=True is OpenAI strict mode: it applies to the 'openai' "
                         f"and 'openai-responses' formats, not {fmt!r}")


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
        "parameters": _strip(record.input_schema, _GEMINI_DROP),
    }


def _mcp(record: ToolRecord) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "name": record.effective,
        "description": record.tool.description,
        "inputSchema": record.input_schema,
    }
    output = record.output_schema
    # MCP requires structured output to be an object; other outputs travel as content only.
    if output is not None and output.get("type") == "object":
        definition["outputSchema"] = output
    return definition


# Maps from names to subschemas: their keys are property names, never keywords.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _strip(value: Any, keys: frozenset[str]) -> Any:
    """Drop keyword ``keys`` from every schema in ``value`` (property names are kept)."""
    if isinstance(value, dict):
        return {
            k: _strip_map(v, keys) if k in _NAME_MAPS else _strip(v, keys)
            for k, v in value.items()
            if k not in keys
        }
    if isinstance(value, list):
        return [_strip(v, keys) for v in value]
    return value


def _strip_map(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {name: _strip(schema, keys) for name, schema in value.items()}
    return value


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
