"""Input and output validators for a tool's schema sources (built once per tool object:
``ToolRecord`` owns them).

Input arrives as JSON text or a mapping. Pydantic-model inputs are validated by the
model's own pydantic-core validator (``validate_json`` parses and validates in one
pass); JSON-Schema inputs by ``jsonschema_fast`` (proven to agree with ``jsonschema``),
against the schema as advertised (closed where derivation closed it). Every failure is
``SchemaIssues`` or pydantic's ``ValidationError``; ``issues_of`` turns either into
``(path, message)`` pairs for the execution boundary to show the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError
from pydantic_core import from_json, to_jsonable_python

from tooldeck.host.schema.derive import is_model_class, is_type_adapter

if TYPE_CHECKING:
    from pydantic import TypeAdapter

Validator = Callable[[Any], Any]
Issue = tuple[str, str]
"""(path, message): ``path`` is ``root``, ``a.b`` or ``items[2].name``."""

_JSON_SCALARS = frozenset({int, float, str, bool, type(None)})


class SchemaIssues(Exception):
    """Raised by validators; carries every problem found, in a stable order."""

    def __init__(self, issues: list[Issue]) -> None:
        super().__init__(issues)
        self.issues = issues


class InputValidators(NamedTuple):
    """A tool's input validators: ``json`` takes JSON text, ``python`` a parsed mapping."""

    json: Validator
    python: Validator


def issues_of(exc: SchemaIssues | ValidationError, raw: Any = None) -> list[Issue]:
    """The ``(path, message)`` issues of a validator's exception (``raw``: the input it
    refused).

    Invalid JSON reads the same whichever validator parsed it: pydantic-core's parse
    error is replaced by the one ``json.loads`` gives for the same text.
    """
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        if isinstance(raw, str) and errors and errors[0]["type"] == "json_invalid":
            issue = json_issue(raw)
            if issue is not None:
                return [issue]
        return pydantic_issues(exc)
    return exc.issues


def json_issue(text: str) -> Issue | None:
    """``("root", "invalid JSON: ...")`` for text ``json.loads`` refuses, else ``None``."""
    try:
        json.loads(text)
    except ValueError as exc:
        return ("root", f"invalid JSON: {exc}")
    return None


# -- input -----------------------------------------------------------------------------------
def input_validators(source: Any) -> InputValidators:
    """The validators for a tool's input: they return what the executor receives.

    ``source`` is a pydantic model class, a ``TypeAdapter``, ``None``, or for a JSON
    Schema input the schema as advertised (``ToolRecord.input_schema``): derivation
    closes open objects (``additionalProperties: false``), and a call is judged by what
    the model was told, so an extra key is refused, not accepted and silently dropped
    (a pydantic model's own keys too: ``closed.py``).
    """
    if is_model_class(source) or is_type_adapter(source):
        # pydantic-core parses and validates JSON in one pass; its errors are translated
        # by the boundary, so the bound methods are used as they are (no wrapper call).
        # They refuse the extra keys their closed schema refuses (``closed.py``).
        from tooldeck.host.schema.closed import closed_validators

        return InputValidators(*closed_validators(source))
    if source is None:
        return InputValidators(_empty_input, _empty_input)
    checker = _schema_input(source)
    return InputValidators(checker, checker)


def _empty_input(raw: Any) -> Any:
    value = _loads(raw)
    if not isinstance(value, Mapping):
        raise SchemaIssues([("root", f"expected an object, got {_json_type(value)}")])
    return {}


def _schema_input(schema: Mapping[str, Any]) -> Validator:
    """Validate against ``schema``; keys of objects it leaves open that it does not
    declare are dropped from the copy the tool receives."""
    from tooldeck.host.schema.jsonschema_fast import SchemaValidationError, SchemaValidator

    checker = SchemaValidator(schema, drop_undeclared=True)

    def validate(raw: Any) -> Any:
        try:
            return checker.validate(_loads(raw))
        except SchemaValidationError as exc:
            raise SchemaIssues([(format_path(i.path), i.message) for i in exc.issues]) from None

    return validate


def _loads(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    # The fast path: pydantic-core parses JSON text several times faster than json.loads
    # (bench/PROFILE-W3.md). Where it succeeds it returns what json.loads returns
    # (tests/host/schema/test_validators.py, over generated texts); what it refuses
    # (invalid JSON, but also deep nesting, and lone surrogates: a TypeError) goes to
    # json.loads, which accepts it or says what is wrong.
    try:
        return from_json(raw)
    except (ValueError, TypeError):
        pass
    try:
        return json.loads(raw)
    except ValueError:
        raise SchemaIssues([json_issue(raw) or ("root", "invalid JSON")]) from None


# -- output ----------------------------------------------------------------------------------
def output_validator(source: Any) -> Validator:
    """The validator for a ``Tool.output``: executor output → JSON-compatible output."""
    if source is None:
        return _no_output
    if is_model_class(source):
        return _model_output(source)
    if is_type_adapter(source):
        return _adapter_output(source)
    return _schema_output(source)


def _no_output(value: Any) -> Any:
    return value


def _model_output(model: type[Any]) -> Validator:
    def validate(value: Any) -> Any:
        try:
            instance = value if isinstance(value, model) else model.model_validate(value)
        except ValidationError as exc:
            raise SchemaIssues(pydantic_issues(exc)) from None
        return instance.model_dump(mode="json")

    return validate


_SCALAR_CORE_TYPES = {"int": int, "str": str, "float": float, "bool": bool}


def _adapter_output(adapter: TypeAdapter[Any]) -> Validator:
    """Validate, then encode with the adapter's own serializers (an ``Annotated`` scalar
    with a ``PlainSerializer``, a ``TypedDict`` field's ``field_serializer``...)."""
    validate_python = adapter.validate_python
    dump_python = adapter.dump_python
    # A bare int/str/float/bool annotation accepts a value of exactly that class as is:
    # with no serializer in its schema, dumping it would return it unchanged.
    core = adapter.core_schema
    exact = _SCALAR_CORE_TYPES.get(core["type"]) if set(core) <= {"type", "metadata"} else None

    def validate(value: Any) -> Any:
        if value.__class__ is exact:
            return value
        try:
            checked = validate_python(value)
        except ValidationError as exc:
            raise SchemaIssues(pydantic_issues(exc)) from None
        return dump_python(checked, mode="json")

    return validate


_EXACT_CLASSES: dict[str, frozenset[type]] = {
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
    "string": frozenset({str}),
    "boolean": frozenset({bool}),
}


def _schema_output(schema: Mapping[str, Any]) -> Validator:
    """A JSON Schema output must already be JSON: nothing is converted (a ``set`` would
    silently become a list), and what JSON cannot hold is an issue naming where it is."""
    from tooldeck.host.schema.jsonschema_fast import SchemaValidationError, SchemaValidator

    checker = SchemaValidator(schema)
    # Hot: a bare ``{"type": ...}`` of a scalar (the usual declared output) accepts a value
    # of exactly a class it names as is, without calling the checker; pinned to the
    # checker by ``tests/host/schema/test_validators.py``.
    kind = schema["type"] if set(schema) == {"type"} else None
    exact = _EXACT_CLASSES.get(kind, frozenset()) if isinstance(kind, str) else frozenset()

    def validate(value: Any) -> Any:
        if value.__class__ in exact:
            return value
        if value.__class__ not in _JSON_SCALARS:
            problem = not_json(value)
            if problem is not None:
                raise SchemaIssues([problem])
            value = to_jsonable_python(value)  # tuples become lists, as in JSON
        try:
            return checker.validate(value)
        except SchemaValidationError as exc:
            raise SchemaIssues([(format_path(i.path), i.message) for i in exc.issues]) from None

    return validate


_NOT_JSON = "which is not JSON (use objects, arrays, strings, numbers, booleans and null)"


def not_json(value: Any) -> Issue | None:
    """Where ``value`` holds something JSON cannot (``json.dumps`` without ``default``
    would refuse it, or turn it into something else), as an issue; ``None`` if it is JSON.

    Arrays may be lists or tuples; object keys must be strings; numbers must be finite.
    Walked without recursion, so a deep value cannot exhaust the stack.
    """
    pending: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while pending:
        path, item = pending.pop()
        cls = item.__class__
        if cls is dict or isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return format_path(path), f"has the key {key!r}, {_NOT_JSON}"
                pending.append(((*path, key), child))
        elif cls is list or cls is tuple or isinstance(item, list | tuple):
            pending.extend(((*path, index), child) for index, child in enumerate(item))
        elif cls is float or isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return format_path(path), f"is {item!r}, {_NOT_JSON}"
        elif not isinstance(item, str | int | bool) and item is not None:
            article = "an" if cls.__name__[:1].lower() in "aeiou" else "a"
            return format_path(path), f"is {article} {cls.__name__}, {_NOT_JSON}"
    return None


# -- formatting ------------------------------------------------------------------------------
def pydantic_issues(exc: ValidationError) -> list[Issue]:
    """Turn a pydantic ``ValidationError`` into ``(path, message)`` pairs."""
    return [(format_path(error["loc"]), error["msg"]) for error in exc.errors()]


def format_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("a", 0, "b")`` → ``a[0].b``; the empty path is ``root``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "root"


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return names.get(type(value), type(value).__name__)
