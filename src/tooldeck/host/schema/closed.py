"""A pydantic input validated as closed as the schema the model was shown.

Derivation closes an object schema (``additionalProperties: false``) unless it allows
extra keys, so the model is told a misspelt argument is not allowed. A pydantic model's
own validator would drop that key silently (pydantic's default ``extra`` is
``"ignore"``), and the call would run without the argument the model meant to give. So
input is validated with pydantic's ``extra="forbid"``: the instance is still the tool's
own model class, and the extra key is refused with its name.

That override reaches every model, dataclass and ``TypedDict`` in the input, so it is
used only when none of them allows extra keys: where one does (``extra="allow"``: its
schema is open, and must stay so), the input is validated by their own settings. Where
every one forbids them already (``tool(fn)``'s own input of plain values), the
validators are used as they are, which saves the override's cost on each call
(``bench/RESULTS.md``). Which settings an input holds is read from its pydantic-core
schema, where pydantic has already resolved every annotation, alias and generic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, TypeAdapter

Validate = Callable[[Any], Any]


def closed_validators(source: Any) -> tuple[Validate, Validate]:
    """The validators of JSON text and of Python data for ``source`` (a model class, a
    ``TypeAdapter``, or a type such as a ``TypedDict``), refusing extra keys."""
    if isinstance(source, type) and issubclass(source, BaseModel):
        source.__pydantic_validator__.validate_json  # noqa: B018 - builds a deferred model
        core, schema = source.__pydantic_validator__, source.__pydantic_core_schema__
    else:
        adapter = source if isinstance(source, TypeAdapter) else TypeAdapter(source)
        core, schema = adapter.validator, adapter.core_schema
    settings = set(extra_settings(schema))
    if "allow" in settings or settings <= {"forbid"}:  # open somewhere, or closed already
        return core.validate_json, core.validate_python
    return _forbidding(core.validate_json), _forbidding(core.validate_python)


def _forbidding(validate: Callable[..., Any]) -> Validate:
    # A closure, not functools.partial: a partial merges its keywords on every call,
    # which costs three times what this frame does (bench/RESULTS.md).
    def closed(raw: Any) -> Any:
        return validate(raw, extra="forbid")

    return closed


_OBJECTS = frozenset({"model", "dataclass", "typed-dict"})
"""The pydantic-core schemas that take keys: each has an ``extra`` setting."""


def extra_settings(schema: Any) -> Iterator[str]:
    """The ``extra`` setting of each object a pydantic-core ``schema`` validates (a
    model, a dataclass, a ``TypedDict``, wherever it is nested): ``"ignore"`` (also
    where none is set: pydantic's default), ``"forbid"`` or ``"allow"``."""
    if isinstance(schema, list):
        for item in schema:
            yield from extra_settings(item)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind in _OBJECTS:
        config = schema.get("config") or {}
        yield schema.get("extra_behavior") or config.get("extra_fields_behavior") or "ignore"
    elif kind in ("model-fields", "dataclass-args") and "extra_behavior" in schema:
        yield schema["extra_behavior"]
    for key, value in schema.items():
        if key not in ("metadata", "config", "cls", "ref"):
            yield from extra_settings(value)
