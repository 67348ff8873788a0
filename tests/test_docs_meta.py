"""Every hookspec is documented and tested (STYLE habit 3); the documented matrix holds.

The hooks are found from the markers in ``tooldeck.hookspecs``, not from a list kept by
hand, so a hook added without docs or tests fails here. "Documented" means a ``## ``
section of ``docs/hooks.md`` whose heading names the hook; "tested" means some test
module under ``tests/`` (other than the meta-tests, which name every hook generically)
mentions the hook by name.

``docs/compat-matrix.md`` says ``py311-deps-min`` pins the *lowest declared* versions of
the core dependencies; a test keeps ``tox.ini`` and ``pyproject.toml`` agreeing.

Every fenced block of every page (``docs/*.md`` and ``README.md``) is run by a test or
marked ``<!-- not run: reason -->``: the page runners in ``RUNNERS`` take the blocks they
run from the shared ``tests/docs_blocks.page(doc)`` when they are imported, and the last
tests import them all and ask each page for what nobody took.
"""

from __future__ import annotations

import configparser
import importlib
import inspect
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tooldeck import hookspecs

from .docs_blocks import Page, page, pages

TESTS = Path(__file__).resolve().parent
HOOKS_DOC = TESTS.parent / "docs" / "hooks.md"
META_TESTS = {"test_docs_meta.py", "test_hookspecs.py"}
ROOT = TESTS.parent
DEPS_MIN = "testenv:py{311,312,313}-deps-min"
CORE = ("importlib-metadata", "jsonschema", "pluggy", "pydantic")
RUNNERS = (  # the modules that take blocks of the pages, at import
    "tests.cli.test_pending",
    "tests.cli.test_store",
    "tests.host.trust.test_security_doc",
    "tests.mcp.client.oauth.test_docs",
    "tests.mcp.serve.test_balanced",
    "tests.mcp.test_docs",
    "tests.telemetry.test_doc",
    "tests.test_architecture",
    "tests.test_examples",
    "tests.test_hookspecs",
    "tests.test_public_surface",
    "tests.test_readme",
    "tests.testing.test_docs",
)


def specified_hooks() -> list[str]:
    """Names of the functions in ``tooldeck.hookspecs`` carrying the hookspec marker."""
    marker = f"{hookspecs.PROJECT}_spec"
    return sorted(
        name
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, marker)
    )


def documented_hooks(text: str) -> set[str]:
    """Identifiers named in the ``## `` headings of a markdown document."""
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    return {word for heading in headings for word in re.findall(r"\w+", heading)}


def read_test_sources() -> dict[str, str]:
    return {
        str(path.relative_to(TESTS)): path.read_text(encoding="utf-8")
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in META_TESTS
    }


def hooks_mentioned_in(hooks: list[str], sources: dict[str, str]) -> set[str]:
    return {
        hook for hook in hooks if any(re.search(rf"\b{hook}\b", text) for text in sources.values())
    }


def test_the_hookspecs_are_found_from_their_markers():
    hooks = specified_hooks()
    assert hooks == sorted(hookspecs.HOOKS)
    assert "hookimpl" not in hooks and "hookspec" not in hooks


@pytest.mark.parametrize("hook", specified_hooks())
def test_every_hook_has_a_section_in_the_hook_reference(hook):
    assert hook in documented_hooks(HOOKS_DOC.read_text(encoding="utf-8")), (
        f"hookspec {hook!r} has no '## ' section in {HOOKS_DOC.relative_to(TESTS.parent)}"
    )


@pytest.mark.parametrize("hook", specified_hooks())
def test_every_hook_is_referenced_by_a_test(hook):
    assert hook in hooks_mentioned_in([hook], read_test_sources()), (
        f"hookspec {hook!r} is not mentioned by any test under tests/ "
        f"(meta-tests {sorted(META_TESTS)} do not count)"
    )


def test_the_checks_catch_an_undocumented_untested_hook():
    doc = "# Hooks\n\n## `tool_transform(editor, location)`\n\nnew_hook is mentioned here.\n"
    assert "new_hook" not in documented_hooks(doc)
    assert "tool_transform" in documented_hooks(doc)
    sources = {"test_a.py": "def test_x():\n    plugin.tool_transform_extra()\n"}
    assert hooks_mentioned_in(["new_hook", "tool_transform"], sources) == set()
    sources["test_b.py"] = "def test_y(editor):\n    Plugin().tool_transform(editor)\n"
    assert hooks_mentioned_in(["tool_transform"], sources) == {"tool_transform"}


def lower_bounds() -> dict[str, Version]:
    """``>=`` bounds of ``[project] dependencies``, by canonical name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for line in project["dependencies"]:
        requirement = Requirement(line)
        for spec in requirement.specifier:
            if spec.operator == ">=":
                bounds[canonicalize_name(requirement.name)] = Version(spec.version)
    return bounds


def deps_min_pins() -> dict[str, Version]:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read_string((ROOT / "tox.ini").read_text(encoding="utf-8"))
    pins = {}
    lines = map(str.strip, tox[DEPS_MIN]["deps"].splitlines())
    for line in (line for line in lines if line and not line.startswith("#")):
        name, _, version = line.partition("==")
        pins[canonicalize_name(name)] = Version(version)
    return pins


def test_deps_min_pins_exactly_the_declared_lower_bounds():
    pins, bounds = deps_min_pins(), lower_bounds()
    assert set(CORE) <= set(bounds), f"pyproject.toml must give {CORE} a >= bound"
    assert pins == bounds, "tox.ini's deps-min pins drifted from pyproject.toml's lower bounds"


def test_a_page_runner_answers_for_every_block_or_a_reason():
    sample = Page(
        "page.md",
        "```toml\na = 1\n```\n\n<!-- not run: a load balancer's config -->\n```nginx\nx;\n```\n"
        "\n<!-- not run: -->\n```bash\nmake\n```\n\n```python\nprint(1)\n```\n",
    )
    toml = sample.take("toml", "a = 1")
    assert toml.line == 1
    with pytest.raises(AssertionError, match="taken twice"):
        sample.claim(toml)
    with pytest.raises(AssertionError, match="marked not run"):
        sample.take("nginx", "x;")
    with pytest.raises(AssertionError, match="0 python blocks"):
        sample.take("python", "print(2)")
    # the marked block counts as answered; an empty reason does not
    assert sample.unclaimed() == ["page.md:11 (bash): 'make'", "page.md:15 (python): 'print(1)'"]


def test_every_module_that_takes_blocks_is_a_runner():
    """A runner left out of ``RUNNERS`` would pass in a whole run (collection imports it)
    and fail when the meta test runs alone."""
    takers = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in ("docs_blocks.py", "test_docs_meta.py")
        and re.search(r"^from \.+docs_blocks import .*\bpage\b", path.read_text(), re.M)
    }
    assert takers == set(RUNNERS)


@pytest.mark.parametrize("doc", pages())
def test_every_block_of_every_page_runs_or_says_why(doc):
    for runner in RUNNERS:
        importlib.import_module(runner)
    assert page(doc).unclaimed() == [], (
        "take it in a test of one of RUNNERS, or put <!-- not run: why --> right before it"
    )
