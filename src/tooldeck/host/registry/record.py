"""Per-tool derived data, computed once per ``Tool`` object and cached on it.

A frozen ``Tool`` is replayed many times (every rebuild re-adds the same objects), so its
validity, effective name, schemas, validators and provider definitions are derived once
and stored in the tool's private ``_record`` slot. ``tool.replace(...)`` makes a new
object, which starts with an empty slot. Schemas and validators are built on first use:
most tools of a large catalog are listed, few are called.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tooldeck._tool import AnyTool, Tool
from tooldeck.host.registry import names
from tooldeck.host.schema import derive as schema
from tooldeck.host.schema.frozen import FrozenDict

if TYPE_CHECKING:
    from tooldeck.host.schema.validators import Validator


class ToolRecord:
    """What the registry knows about one tool object. Schemas and validators are lazy.

    The validators are what execution calls on every call, so they are plain attributes:
    until first use each holds a method that builds the tool's validators, stores them
    in place of itself and runs the real one.
    """

    __slots__ = (
        "_input_schema",
        "_output_schema",
        "call_path",
        "definitions",
        "effective",
        "input_json",
        "input_python",
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
        # How execution runs a call of this tool, chosen there on the first call (the
        # registry does not know execution's types, hence ``Any``).
        self.call_path: Any = None
        # JSON text → executor input, mapping → executor input, executor output → the
        # JSON-compatible declared output. They raise ``SchemaIssues`` or pydantic's
        # ``ValidationError``, translated once, at the execution boundary.
        self.input_json: Validator = self._first_input_json
        self.input_python: Validator = self._first_input_python
        self.output_validator: Validator = self._first_output

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

    def _first_input_json(self, raw: Any) -> Any:
        self.input_json, self.input_python = _input_validators(self._input_source())
        return self.input_json(raw)

    def _first_input_python(self, raw: Any) -> Any:
        self.input_json, self.input_python = _input_validators(self._input_source())
        return self.input_python(raw)

    def _input_source(self) -> Any:
        """What the input is validated against: a JSON Schema input as advertised."""
        source = self.tool.input
        return self.input_schema if isinstance(source, Mapping) else source

    def _first_output(self, value: Any) -> Any:
        from tooldeck.host.schema.validators import output_validator

        self.output_validator = output_validator(self.tool.output)
        return self.output_validator(value)


def _input_validators(source: Any) -> tuple[Validator, Validator]:
    """A tool's input validators, built on its first call (the validators module with it)."""
    from tooldeck.host.schema.validators import input_validators

    return input_validators(source)


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
    limit = tool.timeout_s
    if limit is not None and not (
        isinstance(limit, int | float) and not isinstance(limit, bool) and 0 < limit < 1e9
    ):
        return f"timeout_s must be a positive number of seconds or None, got {limit!r}"
    most = tool.max_concurrency
    if most is not None and not (isinstance(most, int) and not isinstance(most, bool) and most > 0):
        return f"max_concurrency must be a positive int or None, got {most!r}"
    return schema.schema_problem(tool.input, role="input") or schema.schema_problem(
        tool.output, role="output"
    )
