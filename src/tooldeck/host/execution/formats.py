"""Render tool definitions in each provider's wire format.

Each tool's rendering is cached on its ``ToolRecord`` record, so re-listing a catalog is a
list of dictionary hits. Results are frozen: callers share them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldeck.host.registry.record import ToolRecord
from tooldeck.host.schema.frozen import FrozenDict, freeze

FORMATS = ("openai", "anthropic", "gemini", "mcp")

# Keys Gemini's function-declaration schema subset does not accept.
_GEMINI_DROP = frozenset({"additionalProperties", "$schema", "$id"})


def render(record: ToolRecord, fmt: str) -> FrozenDict:
    """The ``fmt`` definition of one tool (cached per tool object)."""
    cached = record.definitions.get(fmt)
    if cached is None:
        try:
            renderer = _RENDERERS[fmt]
        except KeyError:
            raise ValueError(
                f"unknown definition format {fmt!r}; expected one of {', '.join(FORMATS)}"
            ) from None
        cached = record.definitions[fmt] = freeze(renderer(record))
    return cached


def _openai(record: ToolRecord) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": record.effective,
            "description": record.tool.description,
            "parameters": record.input_schema,
        },
    }


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
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mcp": _mcp,
}
