"""The layering of ``docs/architecture.md``, checked over the real import graph.

Every module under ``src/tooldeck`` is parsed, never imported. Each import statement
that runs is an edge, at module level or inside a function (a lazy import is still a
dependency); imports under ``if TYPE_CHECKING:`` are left out, since annotations do not
run. ``from tooldeck import Name`` is an import of the root package, the public
surface; ``from tooldeck import errors`` is an import of the submodule.

``CONTRACT`` is the doc's table "What each package may import" written as data, and a
test keeps the two equal: changing a rule means changing both. The doc's import graph
is compared with the real one the same way, so neither goes stale.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

import pytest

import tooldeck

from .docs_blocks import page

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
TESTS = ROOT / "tests"
DOC = ROOT / "docs" / "architecture.md"
RULES_HEADING = "## What each package may import"
GRAPH_HEADING = "## The import graph"

ANYTHING = ("*",)
HOST_PACKAGES = (
    "schema",
    "registry",
    "features",
    "config",
    "store",
    "trust",
    "permissions",
    "location",
    "call",
    "search",
    "execution",
    "boundary",
    "handles",
    "service",
)
(
    SCHEMA,
    REGISTRY,
    FEATURES,
    CONFIG,
    STORE,
    TRUST,
    PERMISSIONS,
    LOCATION,
    CALL,
    SEARCH,
    EXECUTION,
    BOUNDARY,
    HANDLES,
    SERVICE,
) = (f"tooldeck.host.{name}" for name in HOST_PACKAGES)
PLUGINS = "tooldeck.host.plugins"
# The groups the doc's table names in words.
GROUPS = {
    "core": (
        "tooldeck.errors",
        "tooldeck._tool",
        "tooldeck._peer",
        "tooldeck._public",
        "tooldeck._resource",
        "tooldeck._prompt",
    ),
    "public": (
        "tooldeck",
        "tooldeck._public",
        "tooldeck._resource",
        "tooldeck._prompt",
        "tooldeck.errors",
        "tooldeck.hookspecs",
        "tooldeck._tool",
        "tooldeck._peer",
        "tooldeck._function_tool",
        "tooldeck.paths",
    ),
    "host": tuple(f"tooldeck.host.{name}" for name in HOST_PACKAGES),
    "anything": ANYTHING,
    "nothing": (),
}
CORE, PUBLIC, HOST = GROUPS["core"], GROUPS["public"], GROUPS["host"]
BUILTINS = (*PUBLIC, "tooldeck.builtin_plugins")

CONTRACT: dict[str, tuple[str, ...]] = {
    # unit (a package or module): what it may import besides itself
    "tooldeck": ANYTHING,
    "tooldeck._public": (),
    "tooldeck.errors": ("tooldeck._public",),
    "tooldeck._tool": ("tooldeck.errors", "tooldeck._public", "tooldeck._peer"),
    "tooldeck._peer": ("tooldeck._public",),
    "tooldeck._resource": ("tooldeck.errors", "tooldeck._public"),
    "tooldeck._prompt": (
        "tooldeck.errors",
        "tooldeck._public",
        "tooldeck._tool",
        "tooldeck._resource",
    ),
    "tooldeck.hookspecs": CORE,
    "tooldeck._function_tool": CORE,
    "tooldeck.paths": ("tooldeck.host.config.paths",),
    "tooldeck.host": (),
    SCHEMA: CORE,
    REGISTRY: (*CORE, SCHEMA),
    FEATURES: (*CORE, REGISTRY),
    CONFIG: CORE,
    STORE: (*CORE, CONFIG),
    TRUST: (*CORE, CONFIG),
    PERMISSIONS: (*CORE, SCHEMA, CONFIG, STORE),
    LOCATION: (*CORE, CONFIG, STORE, PERMISSIONS),
    CALL: (*CORE, "tooldeck._function_tool", SCHEMA, REGISTRY, CONFIG),
    SEARCH: (*CORE, SCHEMA, REGISTRY, PERMISSIONS),
    EXECUTION: (*CORE, SCHEMA, REGISTRY, CALL, SEARCH, "tooldeck.providers.formats"),
    BOUNDARY: (*CORE, REGISTRY, PERMISSIONS, STORE, CALL, EXECUTION),
    HANDLES: (*CORE, SCHEMA, REGISTRY, EXECUTION),
    SERVICE: (*CORE, SCHEMA, REGISTRY, LOCATION, SEARCH, EXECUTION, BOUNDARY, HANDLES),
    PLUGINS: (
        *CORE,
        *HOST,
        "tooldeck",
        "tooldeck.hookspecs",
        "tooldeck.builtin_plugins",
        "tooldeck.codemode",
        "tooldeck.mcp.client",
        "tooldeck.telemetry",
    ),
    "tooldeck.providers": (*PUBLIC, *HOST, "tooldeck.providers.formats"),
    "tooldeck.providers.formats": (*CORE, SCHEMA, REGISTRY),
    "tooldeck.codemode": (*PUBLIC, *HOST),
    "tooldeck.mcp": (),
    "tooldeck.mcp.sdk": (),
    "tooldeck.mcp.client": (
        *PUBLIC,
        *HOST,
        "tooldeck.mcp.sdk",
        "tooldeck.telemetry.propagation",
    ),
    "tooldeck.mcp.serve": (
        *PUBLIC,
        *HOST,
        "tooldeck.mcp.sdk",
        "tooldeck.providers",
        "tooldeck.telemetry.propagation",
    ),
    "tooldeck.telemetry": (*PUBLIC, *HOST),
    "tooldeck.builtin_plugins": BUILTINS,
    "tooldeck.builtin_plugins._run.question": (*BUILTINS, "tooldeck.host.location.questions"),
    "tooldeck.builtin_plugins._run.files": (
        *BUILTINS,
        "tooldeck.host.call.bounding",
        "tooldeck.host.call.sizes",
    ),
    "tooldeck.builtin_plugins._run.read": (*BUILTINS, "tooldeck.host.call.images"),
    "tooldeck.builtin_plugins._run.shell": (
        *BUILTINS,
        "tooldeck.host.call.bounding",
        "tooldeck.host.call.sizes",
    ),
    "tooldeck.builtin_plugins._run.write": (*BUILTINS, "tooldeck.host.call.sizes"),
    "tooldeck.integrations": (
        *PUBLIC,
        "tooldeck.providers",
        "tooldeck.host.boundary.outcome",
        "tooldeck.host.schema.strict",
    ),
    "tooldeck.cli": ANYTHING,
    "tooldeck.testing": ANYTHING,
    "tooldeck.__main__": ("tooldeck.cli",),
}
PARENTS = ("tooldeck", "tooldeck.host", "tooldeck.mcp")
"""Units that hold only their own ``__init__``: every module inside has a unit of its own."""
NAMES_ONLY = ("tooldeck._tool", "tooldeck._peer", "tooldeck._function_tool")
"""Modules the built-ins may take only the names ``tooldeck`` exports from."""


class Import(NamedTuple):
    """One import that runs: who imports what, and where."""

    module: str
    path: Path
    line: int
    target: str
    names: tuple[str, ...]  # ``from target import names``; () for a module import

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def source_modules() -> dict[str, Path]:
    """Every module under ``src/tooldeck`` by dotted name."""
    found = {}
    for path in sorted((SRC / "tooldeck").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runs(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and every node inside it, leaving out ``if TYPE_CHECKING:`` bodies."""
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        for statement in node.orelse:
            yield from _runs(statement)
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _runs(child)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*parts, *([node.module] if node.module else [])])


def runtime_imports(module: str, path: Path, known: Mapping[str, Path]) -> Iterator[Import]:
    """The imports of tooldeck modules that ``module`` runs."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in _runs(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            subs = [a.name for a in node.names if f"{base}.{a.name}" in known]
            names = tuple(a.name for a in node.names if a.name not in subs)
            targets = [(f"{base}.{sub}", ()) for sub in subs] + ([(base, names)] if names else [])
        else:
            continue
        for target, names in targets:
            if target == "tooldeck" or target.startswith("tooldeck."):
                yield Import(module, path, node.lineno, target, names)


def import_graph() -> list[Import]:
    known = source_modules()
    return [i for module, path in known.items() for i in runtime_imports(module, path, known)]


def _inside(module: str, unit: str) -> bool:
    return module == unit or module.startswith(unit + ".")


def unit_of(module: str) -> str:
    """The most specific unit of ``CONTRACT`` that ``module`` belongs to."""
    return max((u for u in CONTRACT if _inside(module, u)), key=len)


def package_of(module: str) -> str:
    """The outermost unit below the parents: what the doc's graph calls a package."""
    units = [u for u in CONTRACT if _inside(module, u) and u not in PARENTS]
    return min(units, key=len) if units else unit_of(module)


def allows(rule: tuple[str, ...], target: str) -> bool:
    # The root unit allows only itself: every other module has a more specific unit.
    return rule == ANYTHING or any(
        target == allowed or (allowed != "tooldeck" and _inside(target, allowed))
        for allowed in rule
    )


def short(unit: str) -> str:
    """A unit as the doc writes it: ``tooldeck.host.schema`` → ``host.schema``."""
    return unit if unit == "tooldeck" else unit.removeprefix("tooldeck.")


def violation(edge: Import) -> str | None:
    unit = unit_of(edge.module)
    if unit_of(edge.target) == unit or allows(CONTRACT[unit], edge.target):
        return None
    allowed = ", ".join(short(u) for u in CONTRACT[unit]) or "nothing from tooldeck"
    return (
        f"{edge.where}: {edge.module} imports {edge.target}, but {short(unit)} may "
        f"import only: {allowed} (docs/architecture.md, '{RULES_HEADING[3:]}')"
    )


# -- the layering ---------------------------------------------------------------------------
def test_every_module_belongs_to_a_unit_of_the_contract():
    strays = [m for m in source_modules() if unit_of(m) in PARENTS and m not in PARENTS]
    assert strays == [], f"{strays}: give each a row in CONTRACT here and in docs/architecture.md"


def test_every_import_follows_the_layering():
    problems = [p for p in map(violation, import_graph()) if p is not None]
    assert problems == [], "\n".join(problems)


def test_no_import_that_runs_closes_a_circle():
    """Modules that import each other at import or call time (a lazy import counts)
    load in an order that depends on who came first; only annotations may close one."""
    assert import_circles(import_graph()) == []


def test_a_lazy_import_back_is_a_circle(tmp_path):
    edges = [
        Import("tooldeck.cli.a", tmp_path, 1, "tooldeck.cli.b", ()),
        Import("tooldeck.cli.b", tmp_path, 9, "tooldeck.cli.c", ()),
        Import("tooldeck.cli.c", tmp_path, 4, "tooldeck.cli.a", ()),
        Import("tooldeck.cli.c", tmp_path, 5, "tooldeck.errors", ()),
    ]
    assert import_circles(edges) == [["tooldeck.cli.a", "tooldeck.cli.b", "tooldeck.cli.c"]]


def import_circles(edges: list[Import]) -> list[list[str]]:
    """The groups of modules that reach each other through ``edges`` (Tarjan's strongly
    connected components of two or more), each sorted."""
    targets: dict[str, set[str]] = {}
    for edge in edges:
        targets.setdefault(edge.module, set()).add(edge.target)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(targets.get(module, ())):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(targets):
        if module not in order:
            visit(module)
    return sorted(circles)


def test_the_core_types_errors_and_hookspecs_import_nothing_from_host():
    edges = [
        f"{e.where}: {e.module} imports {e.target} at runtime"
        for e in import_graph()
        if e.module in ("tooldeck._tool", "tooldeck.errors", "tooldeck.hookspecs")
        and _inside(e.target, "tooldeck.host")
    ]
    assert edges == [], "\n".join(edges)


def test_the_registry_imports_no_permission_or_location_code():
    edges = [
        f"{e.where}: the registry authorizes nothing, yet imports {e.target}"
        for e in import_graph()
        if _inside(e.module, REGISTRY)
        and (_inside(e.target, LOCATION) or _inside(e.target, PERMISSIONS))
    ]
    assert edges == [], "\n".join(edges)


def test_builtins_take_only_exported_names_from_the_core_modules():
    exported = set(tooldeck.__all__)
    problems = [
        f"{e.where}: {name} from {e.target} is not exported by tooldeck"
        for e in import_graph()
        if _inside(e.module, "tooldeck.builtin_plugins") and e.target in NAMES_ONLY
        for name in e.names
        if name not in exported
    ]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "from tooldeck.host.permissions.permission import Reject\n",
            ["tooldeck.host.permissions.permission"],
        ),
        (
            "def f():\n    from tooldeck.host.permissions import permission\n",
            ["tooldeck.host.permissions.permission"],
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from tooldeck.host.location.location import Location\n",
            [],
        ),
        (
            "import typing\nif typing.TYPE_CHECKING:\n    import tooldeck.host.service\n"
            "else:\n    import tooldeck.host.schema\n",
            ["tooldeck.host.schema"],
        ),
        ("from ..config import config\n", ["tooldeck.host.config.config"]),
        ("from .names import normalize\n", ["tooldeck.host.registry.names"]),
        ("from tooldeck import Tool, errors\n", ["tooldeck.errors", "tooldeck"]),
    ],
)
def test_the_graph_counts_what_runs(tmp_path, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    edges = runtime_imports("tooldeck.host.registry.probe", path, source_modules())
    assert [e.target for e in edges] == expected


def test_a_violation_names_the_module_line_and_rule():
    edge = Import(
        "tooldeck.host.registry.editor",
        SRC / "tooldeck/host/registry/editor.py",
        12,
        "tooldeck.host.permissions.permission",
        ("PermissionService",),
    )
    assert violation(edge) == (
        "src/tooldeck/host/registry/editor.py:12: tooldeck.host.registry.editor imports "
        "tooldeck.host.permissions.permission, but host.registry may import only: errors, "
        "_tool, _peer, _public, _resource, _prompt, host.schema (docs/architecture.md, "
        "'What each package may import')"
    )
    assert violation(edge._replace(module="tooldeck.host.location.location")) is None
    assert violation(edge._replace(module="tooldeck.builtin_plugins._run.read")) is not None
    assert (
        violation(
            edge._replace(
                module="tooldeck.builtin_plugins._run.question",
                target="tooldeck.host.location.questions",
            )
        )
        is None
    )


# -- the doc --------------------------------------------------------------------------------
def _section(heading: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    assert heading in text, f"docs/architecture.md has no '{heading}' section"
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def _unit(word: str) -> str:
    return word if word == "tooldeck" else f"tooldeck.{word}"


def documented_rules() -> dict[str, set[str]]:
    """The doc's table: unit → what it may import (groups expanded)."""
    rules = {}
    for row in re.findall(r"^\| *`([^`]+)` *\|([^|]*)\|", _section(RULES_HEADING), flags=re.M):
        unit, cell = row
        allowed: set[str] = set()
        for token in (t.strip() for t in cell.split(",")):
            allowed.update([_unit(token.strip("`"))] if token.startswith("`") else GROUPS[token])
        rules[_unit(unit)] = allowed
    return rules


def test_the_doc_states_the_same_contract():
    documented = documented_rules()
    expected = {unit: set(rule) for unit, rule in CONTRACT.items()}
    drifts = [
        f"`{short(unit)}`: the doc says {sorted(map(short, documented.get(unit, ())))}, "
        f"CONTRACT says {sorted(map(short, expected.get(unit, ())))}"
        for unit in sorted(documented.keys() | expected.keys())
        if documented.get(unit) != expected.get(unit)
    ]
    assert drifts == [], "\n".join(drifts)


def package_graph() -> dict[str, list[str]]:
    """Which package imports which, from the real import graph."""
    graph: dict[str, set[str]] = {}
    for edge in import_graph():
        source, target = package_of(edge.module), package_of(edge.target)
        if source != target:
            graph.setdefault(short(source), set()).add(short(target))
    return {source: sorted(targets) for source, targets in sorted(graph.items())}


def test_the_doc_draws_the_real_import_graph():
    assert GRAPH.code in _section(GRAPH_HEADING)
    lines = re.findall(r"^(\S+) +→ +(.+)$", GRAPH.code, flags=re.M)
    documented = {source: [t.strip() for t in targets.split(",")] for source, targets in lines}
    width = max(map(len, package_graph()))
    expected = "\n".join(f"{s:<{width}} → {', '.join(t)}" for s, t in package_graph().items())
    assert documented == package_graph(), f"the graph today, for docs/architecture.md:\n{expected}"


# -- the tests ------------------------------------------------------------------------------
def test_tests_mirror_the_package_layout():
    test_dirs = {
        p.parent.relative_to(TESTS)
        for p in TESTS.rglob("test_*.py")
        if "packs" not in p.relative_to(TESTS).parts
    }
    strays = [
        str(d) for d in sorted(test_dirs) if not (SRC / "tooldeck" / d / "__init__.py").is_file()
    ]
    assert strays == [], f"no package under src/tooldeck for tests/{', tests/'.join(strays)}"
    host = SRC / "tooldeck" / "host"
    untested = [
        p.name
        for p in sorted(host.iterdir())
        if (p / "__init__.py").is_file() and not (TESTS / "host" / p.name).is_dir()
    ]
    assert untested == [], f"host packages without tests/host/<package>/: {untested}"


# -- the doc's drawings ----------------------------------------------------------------------
PAGE = page("architecture.md")
TREE = PAGE.take("", "src/tooldeck/\n")
FLOW = PAGE.take("", "installed packs, built-ins")
GRAPH = PAGE.take("", "_function_tool  ")
_TREE_ENTRY = re.compile(r"^(?P<indent> {2,18})(?P<name>[\w.]+(?:/|\.py))(?= |$)")


def tree_entries() -> dict[str, str]:
    """``{path under src/: its description}`` of every entry of the package tree."""
    entries: dict[str, str] = {}
    stack: list[str] = []
    path = ""
    for line in TREE.code.splitlines()[1:]:
        found = _TREE_ENTRY.match(line)
        if found:
            depth = len(found["indent"]) // 2 - 1
            stack[depth:] = [found["name"]]
            path = "tooldeck/" + "".join(stack)
            entries[path] = ""
        entries[path] += line[found.end() if found else 0 :] + " "
    return entries


def test_the_package_tree_names_real_files_and_every_package():
    entries = tree_entries()
    missing = [path for path in entries if not (SRC / path).exists()]
    assert missing == [], f"docs/architecture.md names what is not there: {missing}"
    for package in ("tooldeck", "tooldeck/host"):
        real = {
            f"{package}/{p.name}/"
            for p in sorted((SRC / package).iterdir())
            if (p / "__init__.py").is_file() and p.name != "__pycache__"
        }
        assert real <= set(entries), f"packages the tree leaves out: {sorted(real - set(entries))}"
    for path, text in entries.items():
        if path.endswith("/"):
            for named in re.findall(r"(?<![/\w])(\w+\.py)\b", text):  # not tests/...
                assert list((SRC / path).rglob(named)), f"{path}: no {named} under it"


def test_the_flow_names_real_modules():
    modules = re.findall(r"\b((?:host|codemode|mcp)/[\w/]+\.py)\b", FLOW.code)
    assert len(modules) >= 5
    missing = [m for m in modules if not (SRC / "tooldeck" / m).is_file()]
    assert missing == [], f"the flow in docs/architecture.md names missing modules: {missing}"
