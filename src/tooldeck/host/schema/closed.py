"""A pydantic input validated as closed as the schema the model was shown.

Derivation closes an object schema (``additionalProperties: false``) unless it allows
extra keys, so the model is told a misspelt argument is not allowed. A pydantic model's
own validator would drop that key silently (pydantic's default ``extra`` is
``"ignore"``), and the call would run without the argument the model meant to give. So
input is validated with pydantic's ``extra="forbid"``: the instance is still the tool's
own model class, and the extra key is refused with its name.

That override reaches every model in the input, so it is used only when none of them
allows extra keys: where one does (``extra="allow"``: its schema is open, and must stay
so), the input is validated by the models' own settings. Where every one forbids them
already (``tool(fn)``'s own input of plain values), the model's validators are used as
they are, which saves the override's cost on each call (``bench/RESULTS.md``).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from typing_extensions import get_type_hints, is_typeddict

Validate = Callable[[Any], Any]


def closed_validators(source: Any, nested: Any = None) -> tuple[Validate, Validate]:
    """The validators of JSON text and of Python data for ``source`` (a model class, or a
    ``TypedDict`` whose fields are ``nested``'s, a model's), refusing extra keys."""
    if isinstance(source, type) and issubclass(source, BaseModel):
        core = source.__pydantic_validator__
    else:
        from pydantic import TypeAdapter

        core = TypeAdapter(source).validator  # pydantic-core's own, without the wrapper call
    settings = extra_settings(source) | extra_settings(nested)
    if "allow" in settings or settings == {"forbid"}:  # open somewhere, or closed already
        return core.validate_json, core.validate_python
    return _forbidding(core.validate_json), _forbidding(core.validate_python)


def _forbidding(validate: Callable[..., Any]) -> Validate:
    # A closure, not functools.partial: a partial merges its keywords on every call,
    # which costs three times what this frame does (bench/RESULTS.md).
    def closed(raw: Any) -> Any:
        return validate(raw, extra="forbid")

    return closed


def extra_settings(annotation: Any, seen: set[int] | None = None) -> set[str | None]:
    """The ``extra`` setting of each model, pydantic dataclass and ``TypedDict`` in
    ``annotation`` (a type, or a generic alias of types); ``None`` is pydantic's default
    (``"ignore"``)."""
    seen = set() if seen is None else seen
    if annotation is None or id(annotation) in seen:
        return set()
    seen.add(id(annotation))
    settings: set[str | None] = set()
    config = getattr(annotation, "__pydantic_config__", None)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        settings.add(annotation.model_config.get("extra"))
        parts = [field.annotation for field in annotation.model_fields.values()]
    elif is_typeddict(annotation):
        settings.add((config or {}).get("extra"))
        parts = list(_hints(annotation).values())
    else:
        if config is not None:  # a pydantic dataclass
            settings.add(config.get("extra"))
        parts = list(typing.get_args(annotation))
    for part in parts:
        settings |= extra_settings(part, seen)
    return settings


def _hints(annotation: Any) -> dict[str, Any]:
    """A ``TypedDict``'s field types; none where they cannot be resolved (pydantic then
    validates it by its own settings, as it would anyway)."""
    try:
        return get_type_hints(annotation, include_extras=True)
    except Exception:  # any failure to resolve them means no fields are known
        return {}
