"""``@public``: a class or function exported from ``tooldeck`` reports that as its module.

The public names are defined in private modules (``tooldeck.host.execution.snapshot``)
and exported lazily from ``tooldeck``; reprs, tracebacks and pickles should name the
public home (``<class 'tooldeck.Snapshot'>``; a pickle resolves ``tooldeck.Snapshot``,
which imports the defining module). So each one is decorated where it is defined, and
carries its home from the moment that module is imported, whichever way it was reached.

A class's string annotations are read by ``typing.get_type_hints`` (and pydantic) in
the module its ``__module__`` names. Each is therefore kept as a ``ForwardRef`` bound to
the module that wrote it: resolved on demand, there, as it would have been before the
move (a name only a type checker sees still fails to resolve, as it did).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ForwardRef, TypeVar

HOME = "tooldeck"

Defined = TypeVar("Defined", bound=type[Any] | Callable[..., Any])


def public(value: Defined) -> Defined:
    """Make ``value`` (a class or function defined at module level) report ``tooldeck``
    as its module; its annotations keep resolving where they were written."""
    written_in = value.__module__
    if isinstance(value, type):
        _bind_annotations(value, written_in)
    value.__module__ = HOME
    return value


def _bind_annotations(cls: type[Any], module: str) -> None:
    annotations = vars(cls).get("__annotations__")
    if not annotations:
        return
    bound = {
        name: ForwardRef(text, is_argument=False, is_class=True, module=module)
        for name, text in map(_unbound, annotations.items())
        if text is not None
    }
    annotations.update(bound)  # in place: a NamedTuple's ``__new__`` shares this dict
    for field in getattr(cls, "__dataclass_fields__", {}).values():
        field.type = bound.get(field.name, field.type)


def _unbound(item: tuple[str, Any]) -> tuple[str, str | None]:
    """An annotation's text, unless it is resolved or already bound to a module
    (``typing.NamedTuple`` turns the strings into ``ForwardRef`` s bound to none)."""
    name, annotation = item
    if isinstance(annotation, str):
        return name, annotation
    if isinstance(annotation, ForwardRef) and annotation.__forward_module__ is None:
        return name, annotation.__forward_arg__
    return name, None
