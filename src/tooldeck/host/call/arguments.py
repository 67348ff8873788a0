"""The fast path of a ``tool(fn)`` call: the call's input straight to the function's
keyword arguments, built at the tool's first call and kept on its ``FunctionExecutor``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, NotRequired, Required

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo
from typing_extensions import TypedDict  # pydantic needs this one on Python 3.11

from tooldeck._function_tool import FunctionExecutor
from tooldeck.host.schema.closed import Validate, closed_validators

Arguments = Callable[[Any], dict[str, Any]]
"""JSON text or a mapping -> the keyword arguments of a ``tool(fn)`` function."""


def arguments_of(execute: FunctionExecutor) -> Arguments:
    """``execute``'s arguments validator, built at its first use and kept on it."""
    arguments = execute.arguments
    if arguments is None:
        arguments = execute.arguments = _arguments_validator(execute.model, execute.function)
    return arguments


def _arguments_validator(model: type[BaseModel], function: Callable[..., Any]) -> Arguments:
    """JSON text or a mapping -> the keyword arguments that validating into ``model`` gives.

    The fast path of ``tool(fn)`` input (``bench/PROFILE-W3.md``): one pydantic-core call
    into a dict, for a ``TypedDict`` of the model's own fields, instead of building a model
    instance and copying its fields out. Valid input gives ``function`` the same arguments
    (the differential test in ``tests/host/call/test_function_fast_path.py``): a field
    left out is left to ``function``'s own default where that is the model's, and filled
    in by pydantic-core where it is not (a ``Field(...)`` default is a spec, not a value).
    Input the ``TypedDict`` refuses is validated by the model again, so a failure is the
    model's. Fields that do more than a type and its constraints (aliases, discriminators,
    default factories, mutable defaults) keep the model's own way. Both refuse extra keys
    as the model's closed schema does (``host/schema/closed.py``).
    """
    model_json, model_python = closed_validators(model)
    fields = model.model_fields
    if not all(_plain(field) for field in fields.values()):
        return lambda raw: _model_arguments(model_json, model_python, raw)
    own = inspect.signature(function).parameters
    # TypedDict's functional form, which mypy checks for literal names: these are not.
    typed_dict: Any = TypedDict
    typed = typed_dict(
        f"{model.__name__}Arguments",
        {name: _typed_field(field, own[name].default) for name, field in fields.items()},
    )
    typed.__pydantic_config__ = ConfigDict(extra="forbid")  # as the model's own keys
    validators: tuple[Arguments, Arguments] = closed_validators(typed)
    from_json, from_python = validators  # a TypedDict's validators give dicts

    def arguments(raw: Any) -> dict[str, Any]:
        try:
            return from_json(raw) if isinstance(raw, str) else from_python(raw)
        except ValidationError:
            return _model_arguments(model_json, model_python, raw)

    return arguments


_IMMUTABLE_DEFAULTS = (type(None), bool, int, float, str, bytes)


def _plain(field: FieldInfo) -> bool:
    return (
        field.alias is None
        and field.validation_alias is None
        and field.discriminator is None
        and field.default_factory is None
        and not field.validate_default
        and (field.is_required() or type(field.default) in _IMMUTABLE_DEFAULTS)
    )


def _typed_field(field: FieldInfo, own_default: Any) -> Any:
    metadata = list(field.metadata)
    if not field.is_required() and own_default is not field.default:
        metadata.append(Field(field.default))
    annotated: Any = Annotated[(field.annotation, *metadata)] if metadata else field.annotation
    return Required[annotated] if field.is_required() else NotRequired[annotated]


def _model_arguments(from_json: Validate, from_python: Validate, raw: Any) -> dict[str, Any]:
    instance = from_json(raw) if isinstance(raw, str) else from_python(raw)
    return dict(instance.__dict__)
