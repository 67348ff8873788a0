"""A module's pydantic models as they are with ``from __future__ import annotations``.

A few modules that every ``Host.open`` imports leave their annotations unpostponed, so
that making their models compiles and evaluates no annotation text
(``bench/DECISIONS.md``). Their tests compare each model with the one the same source
makes with postponed annotations: the trick may change the cost, never the model.
"""

from __future__ import annotations

import ast
import inspect
import sys
import types
from typing import Any

from pydantic import BaseModel


def postponed_models(module: types.ModuleType) -> dict[str, type[BaseModel]]:
    """``module``'s source run again, its annotations postponed, as a fresh module."""
    lines = inspect.getsource(module).splitlines(keepends=True)
    first = ast.parse("".join(lines)).body[0]
    after_docstring = first.end_lineno if isinstance(first, ast.Expr) else 0
    lines.insert(after_docstring or 0, "from __future__ import annotations\n")
    source = "".join(lines)
    name = f"{module.__name__}_postponed"
    copy = types.ModuleType(name)
    copy.__file__ = module.__file__
    sys.modules[name] = copy  # pydantic resolves a model's annotations in its module
    try:
        exec(compile(source, f"<postponed {module.__name__}>", "exec"), copy.__dict__)
    finally:
        del sys.modules[name]
    return models_of(copy)


def models_of(module: types.ModuleType) -> dict[str, type[BaseModel]]:
    """The pydantic models ``module`` defines (``@public`` ones say ``tooldeck``)."""
    return {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ in (module.__name__, "tooldeck")
    }


def described(model: type[BaseModel]) -> dict[str, Any]:
    """What makes a model the model it is: its fields, validators and both schemas."""
    return {
        "fields": {name: repr(field) for name, field in model.model_fields.items()},
        "validators": sorted(model.__pydantic_decorators__.field_validators)
        + sorted(model.__pydantic_decorators__.model_validators),
        "config": dict(model.model_config),
        "validation": model.model_json_schema(),
        "serialization": model.model_json_schema(mode="serialization"),
    }
