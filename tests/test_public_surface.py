"""Every type a public signature mentions is public itself (STYLE habit 1).

The walk starts from what the public modules export and reads the annotations of every
public function, method, property and field *as written* (strings, under ``from
__future__ import annotations``), so aliases such as ``Reply`` keep their names. Each
name is resolved through the import statements of the module that wrote it,
``TYPE_CHECKING`` blocks included, down to the module that defines it. Every
tooldeck-defined name reached must be exported by a public module, and its own
signatures are walked in turn; names defined outside tooldeck (``typing``, ``pathlib``,
pydantic, ...) end the walk.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from functools import cache
from typing import Any, ForwardRef, NamedTuple, TypeVar

import pytest

PUBLIC_MODULES = (
    "tooldeck",
    "tooldeck.config",
    "tooldeck.errors",
    "tooldeck.hookspecs",
    "tooldeck.paths",
    "tooldeck.testing",
)

# Classes whose instances tooldeck builds for you: their constructors wire internal
# parts together and are not part of the surface (their other members are).
BUILT_FOR_YOU = {
    "tooldeck.host.plugins.host.Host": "built by Host.open()",
    "tooldeck.host.execution.snapshot.Snapshot": "built by service.snapshot()",
    "tooldeck.host.service.Registration": "returned by service.transform()",
    "tooldeck.host.registry.state.Catalog": "built by replay, read as service.catalog",
    "tooldeck.host.location.permission.PermissionService": "read as location.permission",
    "tooldeck.host.location.questions.QuestionService": "read as location.question",
}

SPECIAL_MEMBERS = frozenset({"__init__", "__call__", "__enter__", "__aenter__"})


class Name(NamedTuple):
    """A top-level name and the module that binds it."""

    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def value(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)


# -- resolving names through the source ---------------------------------------------------
@cache
def _tree(module: str) -> ast.Module:
    return ast.parse(inspect.getsource(importlib.import_module(module)))


@cache
def bindings(module: str) -> dict[str, ast.stmt]:
    """Top-level bindings of ``module`` (``if``/``try`` bodies included), by name."""
    found: dict[str, ast.stmt] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ImportFrom | ast.Import):
                for alias in node.names:
                    found[alias.asname or alias.name.partition(".")[0]] = node
            elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                found[node.name] = node
            elif isinstance(node, ast.Assign):
                found.update((t.id, node) for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found[node.target.id] = node
            elif isinstance(node, ast.If | ast.Try):
                visit(node.body)
                visit(node.orelse)

    visit(_tree(module).body)
    return found


def home(module: str, name: str) -> Name | None:
    """Where ``name`` as used in ``module`` is defined; ``None`` outside tooldeck."""
    for _ in range(20):
        if not module.startswith("tooldeck"):
            return None
        node = bindings(module).get(name)
        if node is None or isinstance(node, ast.Import):
            return None  # a builtin, or a whole module
        if not isinstance(node, ast.ImportFrom):
            return Name(module, name)
        if node.level or node.module is None:
            raise AssertionError(f"{module}: relative import of {name}")
        original = next(a.name for a in node.names if (a.asname or a.name) == name)
        module, name = node.module, original
    raise AssertionError(f"import cycle resolving {module}.{name}")


def names_in(expression: str) -> Iterator[str]:
    """The identifiers an annotation (or an alias's right-hand side) refers to."""
    yield from _names(ast.parse(expression, mode="eval").body)


def _names(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield from _names(node.value)  # ``os.PathLike``: the root ``os`` decides
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield from names_in(node.value)  # a quoted forward reference
    elif isinstance(node, ast.Subscript) and _is_literal(node.value):
        yield from _names(node.value)  # ``Literal["a b"]``: values, not references
    else:
        for child in ast.iter_child_nodes(node):
            yield from _names(child)


def _is_literal(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Literal") or (
        isinstance(node, ast.Attribute) and node.attr == "Literal")


# -- what a public object's signature mentions -------------------------------------------
def annotation_text(annotation: object) -> str | None:
    if isinstance(annotation, ForwardRef):
        return annotation.__forward_arg__
    return annotation if isinstance(annotation, str) else None


def function_annotations(obj: object) -> list[object]:
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    if inspect.isfunction(obj):
        return list(obj.__annotations__.values())
    return []


def mentioned(target: Name) -> Iterator[tuple[str, str]]:
    """``(module, annotation text)`` for everything ``target``'s signature mentions."""
    value = target.value
    if inspect.isfunction(value):
        yield from ((value.__module__, a) for a in function_annotations(value) if a)
    elif inspect.isclass(value):
        yield from class_mentions(value)
    else:
        yield from constant_mentions(bindings(target.module)[target.name], target.module)


def constant_mentions(node: ast.stmt, module: str) -> Iterator[tuple[str, str]]:
    """An alias stands for its right-hand side; a constant has its annotation."""
    if isinstance(node, ast.AnnAssign):
        alias = ast.unparse(node.annotation) in ("TypeAlias", "typing.TypeAlias")
        shown = node.value if alias and node.value is not None else node.annotation
        yield module, ast.unparse(shown)
    elif isinstance(node, ast.Assign) and isinstance(
        node.value, ast.Subscript | ast.BinOp | ast.Name | ast.Attribute
    ):
        yield module, ast.unparse(node.value)


def class_mentions(cls: type) -> Iterator[tuple[str, str]]:
    qualified = f"{cls.__module__}.{cls.__qualname__}"
    for klass in cls.__mro__:
        if not klass.__module__.startswith("tooldeck"):
            continue
        if klass is not cls and not klass.__name__.startswith("_"):
            yield klass.__module__, klass.__name__  # a public base is public too
        fields = vars(klass).get("__annotations__", {})
        for field, annotation in fields.items():
            if not field.startswith("_"):
                yield klass.__module__, annotation
        for member, value in vars(klass).items():
            if member.startswith("_") and member not in SPECIAL_MEMBERS:
                continue
            if member == "__init__" and qualified in BUILT_FOR_YOU:
                continue
            yield from ((klass.__module__, a) for a in function_annotations(value) if a)


def reached() -> dict[Name, set[str]]:
    """Every tooldeck name the public signatures reach, with who mentions it."""
    todo = [home(m, n) or Name(m, n) for m in PUBLIC_MODULES for n in exported_names(m)]
    seen: dict[Name, set[str]] = {}
    while todo:
        target = todo.pop()
        for module, annotation in mentioned(target):
            text = annotation_text(annotation)
            for identifier in names_in(text) if text is not None else ():
                found = home(module, identifier)
                if found is None or isinstance(found.value, TypeVar):
                    continue
                if found not in seen:
                    todo.append(found)
                seen.setdefault(found, set()).add(str(target))
    return seen


def exported_names(module: str) -> list[str]:
    return list(importlib.import_module(module).__all__)


def exported_values() -> dict[int, str]:
    return {id(getattr(importlib.import_module(m), n)): f"{m}.{n}"
            for m in PUBLIC_MODULES for n in exported_names(m)}


# -- the tests ------------------------------------------------------------------------------
@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_module_has_a_sorted_all_of_names_it_really_has(module):
    names = exported_names(module)
    assert names == sorted(names), f"{module}.__all__ is not sorted"
    for name in names:
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"


def test_every_type_in_a_public_signature_is_exported():
    public = exported_values()
    missing = [f"{name}  (in {', '.join(sorted(who))})" for name, who in reached().items()
               if id(name.value) not in public]
    assert not missing, "not exported by any public module:\n" + "\n".join(sorted(missing))


def test_the_walk_follows_aliases_fields_methods_and_type_checking_imports():
    found = {str(name) for name in reached()}
    assert "tooldeck.host.location.permission.Reply" in found       # alias inside an alias
    assert "tooldeck.host.location.permission.PermissionGate" in found  # TYPE_CHECKING import
    assert "tooldeck.host.execution.outcome.ToolError" in found    # a NamedTuple field
    assert "tooldeck.host.registry.editor.CatalogEntry" in found   # a Protocol method
    assert not any(n.endswith((".InT", ".OutT")) for n in found)   # TypeVars are not types


def test_the_walk_resolves_names_to_where_they_are_defined():
    assert home("tooldeck.hookspecs", "ToolEditor") == Name(
        "tooldeck.host.registry.editor", "ToolEditor")
    assert home("tooldeck.host.plugins.host", "Path") is None
    assert home("tooldeck.host.plugins.host", "os") is None
    assert sorted(names_in("Callable[[Q], 'R | Awaitable[R]'] | os.PathLike[str]")) == [
        "Awaitable", "Callable", "Q", "R", "R", "os", "str"]
