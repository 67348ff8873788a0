"""The public surface: complete, documented, and the only thing that leaves the package.

**Complete.** Every type a public signature mentions is public itself (STYLE habit 1).

The walk starts from what the public modules export and reads the annotations of every
public function, method, property and field *as written* (strings, under ``from
__future__ import annotations``), so aliases such as ``Reply`` keep their names. Each
name is resolved through the import statements of the module that wrote it,
``TYPE_CHECKING`` blocks included, down to the module that defines it. Every
tooldeck-defined name reached must be exported by a public module, and its own
signatures are walked in turn; names defined outside tooldeck (``typing``, ``pathlib``,
pydantic, ...) end the walk.

**Documented.** ``docs/api.md`` has one entry per public name — a ``### `name``` heading,
a python block with its signature, a sentence — and nothing else. Each signature is
compared with the source's own AST: parameters, annotations, defaults (``...`` in the
doc matches any default), decorators (but ``@public``), fields and aliases; a class
entry shows every public method and field its class defines. These comparisons are how
the page's signature blocks are taken (its trust example runs in
``tests/host/trust/test_security_doc.py``).

**The only thing that leaves.** The examples, the example packs, the README and every
python block of ``docs/`` import only public modules and the names they export
(STYLE habit 14).
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, ForwardRef, NamedTuple, TypeVar

import pytest

import tooldeck

from .docs_blocks import fenced, page

ROOT = Path(__file__).resolve().parent.parent
API_DOC = ROOT / "docs" / "api.md"

PUBLIC_MODULES = (
    "tooldeck",
    "tooldeck.errors",
    "tooldeck.hookspecs",
    "tooldeck.integrations.openai_agents",
    "tooldeck.integrations.pydantic_ai",
    "tooldeck.paths",
    "tooldeck.providers",
    "tooldeck.testing",
)

# Classes whose instances tooldeck builds for you: their constructors wire internal
# parts together and are not part of the surface (their other members are).
BUILT_FOR_YOU = {
    "tooldeck.host.plugins.host.Host": "built by Host.open()",
    "tooldeck.host.execution.snapshot.Snapshot": "built by service.snapshot()",
    "tooldeck.host.handles.Registration": "returned by service.transform()",
    "tooldeck.host.handles.SessionScope": "returned by service.session()",
    "tooldeck.host.registry.catalog.Catalog": "built by replay, read as service.catalog",
    "tooldeck.host.permissions.permission.PermissionService": "read as location.permission",
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
def defined_in(obj: Any) -> str:
    """The module whose source defines ``obj`` (a public name says ``tooldeck``)."""
    module = obj.__module__
    return tooldeck._LOCATIONS[obj.__name__] if module == "tooldeck" else module


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
        isinstance(node, ast.Attribute) and node.attr == "Literal"
    )


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
        yield from ((defined_in(value), a) for a in function_annotations(value) if a)
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
    qualified = f"{defined_in(cls)}.{cls.__qualname__}"
    for klass in cls.__mro__:
        if not klass.__module__.startswith("tooldeck"):
            continue
        module = defined_in(klass)
        if klass is not cls and not klass.__name__.startswith("_"):
            yield module, klass.__name__  # a public base is public too
        yield from ((module, a) for a in field_annotations(klass, module))
        for member, value in vars(klass).items():
            if member.startswith("_") and member not in SPECIAL_MEMBERS:
                continue
            if member == "__init__" and qualified in BUILT_FOR_YOU:
                continue
            yield from ((module, a) for a in function_annotations(value) if a)


def field_annotations(klass: type, module: str) -> list[str]:
    """The annotations of ``klass``'s public fields as its source writes them (read from
    the source: a public class's own ``__annotations__`` are bound to their module by
    ``@public``, and the walk wants the names as written)."""
    node = definitions(Name(module, klass.__name__))[-1]
    return [
        ast.unparse(statement.annotation)
        for statement in getattr(node, "body", [])
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and not statement.target.id.startswith("_")
    ]


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
    return {
        id(getattr(importlib.import_module(m), n)): f"{m}.{n}"
        for m in PUBLIC_MODULES
        for n in exported_names(m)
    }


# -- the tests ------------------------------------------------------------------------------
@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_module_has_a_sorted_all_of_names_it_really_has(module):
    names = exported_names(module)
    assert names == sorted(names), f"{module}.__all__ is not sorted"
    for name in names:
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"


def test_every_type_in_a_public_signature_is_exported():
    public = exported_values()
    missing = [
        f"{name}  (in {', '.join(sorted(who))})"
        for name, who in reached().items()
        if id(name.value) not in public
    ]
    assert not missing, "not exported by any public module:\n" + "\n".join(sorted(missing))


def test_the_walk_follows_aliases_fields_methods_and_type_checking_imports():
    found = {str(name) for name in reached()}
    assert "tooldeck.host.permissions.request.Reply" in found  # alias inside an alias
    assert "tooldeck.host.permissions.permission.PermissionGate" in found  # TYPE_CHECKING import
    assert "tooldeck.host.boundary.outcome.ToolError" in found  # a NamedTuple field
    assert "tooldeck.host.registry.editor.CatalogEntry" in found  # a Protocol method
    assert not any(n.endswith((".InT", ".OutT")) for n in found)  # TypeVars are not types


def test_the_walk_resolves_names_to_where_they_are_defined():
    assert home("tooldeck.hookspecs", "ToolEditor") == Name(
        "tooldeck.host.registry.editor", "ToolEditor"
    )
    assert home("tooldeck.host.plugins.host", "Path") is None
    assert home("tooldeck.host.plugins.host", "os") is None
    assert sorted(names_in("Callable[[Q], 'R | Awaitable[R]'] | os.PathLike[str]")) == [
        "Awaitable",
        "Callable",
        "Q",
        "R",
        "R",
        "os",
        "str",
    ]


# -- docs/api.md: one entry per public name, its signature as in the source ------------------
_ENTRY = re.compile(
    r"^### `(?P<key>[\w.]+)`\n\n```python\n(?P<stub>.*?)^```\n\n(?P<text>[^#\s].*?)(?=^#|\Z)",
    re.S | re.M,
)
_DOCUMENTED_SPECIAL = frozenset({"__init__", "__call__"})


class Entry(NamedTuple):
    key: str
    stub: str
    text: str


def api_entries(text: str) -> list[Entry]:
    return [Entry(m["key"], m["stub"], m["text"].strip()) for m in _ENTRY.finditer(text)]


def public_keys() -> dict[str, Name]:
    """How ``docs/api.md`` names each public object (bare if ``tooldeck`` exports it)."""
    top = {id(getattr(tooldeck, n)) for n in tooldeck.__all__}
    keys = {}
    for module in PUBLIC_MODULES:
        for name in exported_names(module):
            value = getattr(importlib.import_module(module), name)
            key = name if id(value) in top else f"{module}.{name}"
            keys.setdefault(key, home(module, name) or Name(module, name))
    return keys


def definitions(target: Name) -> list[ast.stmt]:
    """Every top-level statement binding ``target`` (overloads included)."""
    found = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If | ast.Try):
                visit(node.body)
                visit(node.orelse)
            elif _binds(node) == target.name:
                found.append(node)

    visit(_tree(target.module).body)
    return found


def _binds(node: ast.stmt) -> str | None:
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    return None


def _shown(node: ast.AST) -> str:
    return ast.unparse(node)


def _signature(
    doc: ast.FunctionDef | ast.AsyncFunctionDef, source: ast.FunctionDef | ast.AsyncFunctionDef
) -> tuple[str, str]:
    """Both signatures as text, with ``...`` defaults of the doc applied to the source.

    The source's ``@public`` is left out: it only sets the module a name reports
    (``tooldeck._public``), and is no part of how the name is called."""
    source = copy.deepcopy(source)
    source.decorator_list = [d for d in source.decorator_list if _shown(d) != "public"]
    # strict=False: a doc with other parameters than the source fails the comparison below
    pairs = [
        *zip(doc.args.defaults[::-1], source.args.defaults[::-1], strict=False),
        *zip(doc.args.kw_defaults, source.args.kw_defaults, strict=False),
    ]
    for mine, theirs in pairs:
        if _is_ellipsis(mine) and theirs is not None:
            theirs.__dict__.update(mine.__dict__)
    shown = []
    for node in (doc, source):
        stub = copy.copy(node)
        stub.body = [ast.Expr(ast.Constant(...))]
        shown.append(_shown(stub))
    return shown[0], shown[1]


def _is_ellipsis(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is ...


def _field_matches(doc: ast.AnnAssign, source: ast.AnnAssign) -> list[str]:
    problems = []
    if _shown(doc.annotation) != _shown(source.annotation):
        problems.append(f"annotated {_shown(doc.annotation)}, source: {_shown(source.annotation)}")
    if doc.value is None and source.value is not None:
        problems.append(f"has no default, source: = {_shown(source.value)}")
    elif (
        doc.value is not None
        and not _is_ellipsis(doc.value)
        and (source.value is None or _shown(doc.value) != _shown(source.value))
    ):
        shown = "none" if source.value is None else _shown(source.value)
        problems.append(f"defaults to {_shown(doc.value)}, source: {shown}")
    return problems


def _instance_attribute(cls_node: ast.ClassDef, name: str) -> ast.AnnAssign | bool:
    """``self.name`` set in ``__init__``: its annotated assignment, or just True."""
    for node in cls_node.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for stmt in ast.walk(node):
                targets = (
                    stmt.targets
                    if isinstance(stmt, ast.Assign)
                    else ([stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
                )
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and target.attr == name
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        return stmt if isinstance(stmt, ast.AnnAssign) else True
    return False


def _members(cls_node: ast.ClassDef) -> dict[str, ast.stmt]:
    return {name: node for node in cls_node.body if (name := _binds(node)) is not None}


def compare_class(doc: ast.ClassDef, target: Name) -> list[str]:
    cls = target.value
    nodes = [
        definitions(Name(defined_in(k), k.__name__))[-1]
        for k in cls.__mro__
        if k.__module__.startswith("tooldeck")
    ]
    source = nodes[0]
    problems = []
    if [_shown(b) for b in doc.bases] != [_shown(b) for b in source.bases]:
        problems.append(
            f"bases ({', '.join(map(_shown, doc.bases))}), source: "
            f"({', '.join(map(_shown, source.bases))})"
        )
    shown: set[str] = set()
    for node in doc.body:
        name = _binds(node)
        if name is None:
            continue
        shown.add(name)
        found = next((m[name] for m in map(_members, nodes) if name in m), None)
        problems += [f"{name}: {p}" for p in _compare_member(node, found, source)]
    wanted = {
        name
        for name, node in _members(source).items()
        if (not name.startswith("_") or name in _DOCUMENTED_SPECIAL)
        and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.AnnAssign)
        and not (name == "__init__" and str(target) in BUILT_FOR_YOU)
    }
    problems += [f"{name}: not shown" for name in sorted(wanted - shown)]
    return problems


def _compare_member(node: ast.stmt, found: ast.stmt | None, source: ast.ClassDef) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if not isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
            return ["no such method in the source"]
        mine, theirs = _signature(node, found)
        return [] if mine == theirs else [f"\n  doc:    {mine}\n  source: {theirs}"]
    if isinstance(node, ast.AnnAssign):
        if isinstance(found, ast.AnnAssign):
            return _field_matches(node, found)
        attribute = _instance_attribute(source, _binds(node) or "")
        if isinstance(attribute, ast.AnnAssign):
            return _field_matches(
                node, ast.AnnAssign(node.target, attribute.annotation, node.value, simple=1)
            )
        return [] if attribute else ["no such field or attribute in the source"]
    return ["only methods and fields belong in a class entry"]


def compare_stub(entry: Entry, target: Name) -> list[str]:
    problems = []
    sources = definitions(target)
    for node in ast.parse(entry.stub).body:
        if _binds(node) != target.name:
            problems.append(f"the stub defines {_binds(node)!r}, not {target.name!r}")
        elif isinstance(node, ast.ClassDef):
            problems += compare_class(node, target)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            pairs = [
                _signature(node, s)
                for s in sources
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            if not any(mine == theirs for mine, theirs in pairs):
                problems += [f"\n  doc:    {m}\n  source: {t}" for m, t in pairs]
        elif _shown(node) != _shown(sources[-1]):
            problems.append(f"\n  doc:    {_shown(node)}\n  source: {_shown(sources[-1])}")
    return problems


ENTRIES = api_entries(API_DOC.read_text(encoding="utf-8"))


def take_entries() -> None:
    """Count each entry's signature block of the page as run: the test below compares it."""
    stubs = {entry.stub for entry in ENTRIES}
    api = page("api.md")
    for block in api.blocks:
        if block.lang == "python" and block.code in stubs:
            api.claim(block)


take_entries()


def test_the_api_reference_documents_exactly_the_public_names():
    keys = [entry.key for entry in ENTRIES]
    assert len(keys) == len(set(keys)), "a name documented twice"
    assert len(keys) == API_DOC.read_text(encoding="utf-8").count("\n### "), (
        "an entry without a python signature block and a sentence"
    )
    public = public_keys()
    assert sorted(set(public) - set(keys)) == [], "public but not in docs/api.md"
    assert sorted(set(keys) - set(public)) == [], "in docs/api.md but not public"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.key)
def test_each_api_entry_shows_the_signature_of_the_source(entry):
    target = public_keys().get(entry.key)
    if target is None:
        pytest.fail(f"{entry.key} is not public")
    problems = compare_stub(entry, target)
    assert not problems, f"docs/api.md, {entry.key}: " + "; ".join(problems)


def test_the_api_checks_catch_drift():
    target = Name("tooldeck.host.permissions.request", "PermissionRequest")
    stub = "class PermissionRequest:\n    action: int\n    session_id: str = 'x'\n"
    assert compare_stub(Entry("PermissionRequest", stub, ""), target) == [
        "action: annotated int, source: str",
        "session_id: defaults to 'x', source: ''",
        "metadata: not shown",
        "resources: not shown",
        "save: not shown",
        "source: not shown",
    ]
    run = Name("tooldeck.host.boundary.boundary", "run_tool_call")
    stub = "async def run_tool_call(snapshot: Snapshot, call: ToolCall) -> ToolCallOutcome: ..."
    assert compare_stub(Entry("run_tool_call", stub, ""), run) != []
    assert (
        compare_stub(Entry("x", "PROJECT = 'other'", ""), Name("tooldeck.hookspecs", "PROJECT"))
        != []
    )


def test_readme_lists_the_api_reference():
    assert "(docs/api.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


# -- only public names leave the package -----------------------------------------------------
def python_sources() -> list[tuple[str, str]]:
    """``(where, code)`` for the example files and every python block of the docs."""
    files = sorted([*ROOT.glob("examples/**/*.py"), *ROOT.glob("example_plugins/**/*.py")])
    found = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in files]
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        where = str(doc.relative_to(ROOT))
        for block in fenced(doc.read_text(encoding="utf-8"), where):
            if block.lang in ("python", "py"):
                found.append((str(block), block.code))
    return found


def private_imports(code: str) -> list[str]:
    """The imports of tooldeck modules or names that are not public."""
    bad = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            bad += [
                a.name
                for a in node.names
                if a.name.startswith("tooldeck.") and a.name not in PUBLIC_MODULES
            ]
        elif (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and node.module
            and (node.module == "tooldeck" or node.module.startswith("tooldeck."))
        ):
            if node.module not in PUBLIC_MODULES:
                bad.append(node.module)
                continue
            exported = set(exported_names(node.module))
            bad += [
                f"{node.module}.{a.name}"
                for a in node.names
                if a.name not in exported and f"{node.module}.{a.name}" not in PUBLIC_MODULES
            ]
    return bad


@pytest.mark.parametrize(("where", "code"), python_sources(), ids=lambda v: v[:60])
def test_examples_and_docs_import_only_public_names(where, code):
    assert private_imports(code) == [], f"{where} imports private tooldeck names"


def test_the_private_import_check_catches_each_kind():
    code = (
        "import tooldeck, tooldeck.paths, tooldeck.host.location\n"
        "from tooldeck import Tool, errors, _tool\n"
        "from tooldeck.host.permissions.permission import Reply\n"
        "from tooldeck.testing import _report, TestHost\n"
        "from . import _local\n"
    )
    assert private_imports(code) == [
        "tooldeck.host.location",
        "tooldeck._tool",
        "tooldeck.host.permissions.permission",
        "tooldeck.testing._report",
    ]
