"""Per-tool derived data, computed once per ``Tool`` object and cached on it.

A frozen ``Tool`` is replayed many times (every rebuild re-adds the same objects), so its
validity, effective name, schemas, validators and provider definitions are derived once
and stored in the tool's private ``_record`` slot. ``tool.replace(...)`` makes a new
object, which starts with an empty slot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldeck._tool import AnyTool, Tool
from tooldeck.host.registry import names
from tooldeck.host.schema import derive as schema
from tooldeck.host.schema.frozen import FrozenDict


class ToolRecord:
    """What the registry knows about one tool object. Schemas and validators are lazy."""

    __slots__ = (
        "_input_schema",
        "_output_schema",
        "definitions",
        "effective",
        "input_python",
        "input_validator",
        "output_validator",
        "problem",
        "tool",
    )

    def __init__(self, tool: AnyTool, effective: str, problem: str | None) -> None:
        self.tool = tool
        self.effective = effective
        self.problem = problem
        self._input_schema: FrozenDict | None = None
        self._output_schema: FrozenDict | None = None
        self.definitions: dict[str, FrozenDict] = {}
        # JSON text → value, and mapping → value; they raise InputIssues or pydantic's
        # ValidationError (translated once, at the execution boundary).
        self.input_validator: Callable[[Any], Any] | None = None
        self.input_python: Callable[[Any], Any] | None = None
        self.output_validator: Callable[[Any], Any] | None = None

    @property
    def input_schema(self) -> FrozenDict:
        """The derived input schema (always an object schema)."""
        if self._input_schema is None:
            self._input_schema = schema.json_schema(self.tool.input)
        return self._input_schema

    @property
    def output_schema(self) -> FrozenDict | None:
        """The derived output schema, or ``None`` when the tool declares no output."""
        if self.tool.output is None:
            return None
        if self._output_schema is None:
            self._output_schema = schema.json_schema(self.tool.output, mode="serialization")
        return self._output_schema


def record_of(tool: AnyTool) -> ToolRecord:
    """The cached ``ToolRecord`` record of ``tool``, computing it on first use."""
    record: ToolRecord | None = tool._record
    if record is None:
        record = _compile(tool)
        object.__setattr__(tool, "_record", record)
    return record


def _compile(tool: AnyTool) -> ToolRecord:
    problem = _problem(tool)
    try:
        effective = names.effective_name(tool.name, tool.namespace)
    except (TypeError, AttributeError):
        effective = repr(tool.name)
    return ToolRecord(tool, effective, problem)


def _problem(tool: AnyTool) -> str | None:
    if not isinstance(tool, Tool):
        return f"expected a tooldeck.Tool, got {type(tool).__name__}"
    problem = names.name_problem(tool.name, tool.namespace, tool.codemode)
    if problem:
        return problem
    if not isinstance(tool.description, str):
        return f"description must be a string, got {type(tool.description).__name__}"
    if not tool.description.strip():
        return "description must be a non-empty string"
    if not callable(tool.execute):
        return f"execute must be callable, got {type(tool.execute).__name__}"
    if tool.permission is not None and not (isinstance(tool.permission, str) and tool.permission):
        return "permission must be a non-empty string or None"
    return schema.schema_problem(tool.input, role="input") or schema.schema_problem(
        tool.output, role="output"
    )
