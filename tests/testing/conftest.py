"""What the tests of ``tooldeck.testing`` share.

``pytester`` runs generated test files through the shipped plugin, as a pack author would.
In-process inner runs drop every module they imported when they end, so what tooldeck
imports lazily is imported here once: otherwise each inner run would get a fresh
pydantic while modules kept from the outer run still hold the old one.

``make_pack`` writes a tiny real tool pack (one module adding one tool) for the wheel
and site tests; the ``pack`` fixture is one in ``tmp_path/pack``.
"""

from __future__ import annotations

import importlib

import pytest

from tooldeck.builtin_plugins import BUILTIN_PLUGINS

pytest_plugins = ["pytester"]

PRELOADED = (
    "tooldeck.testing.host",
    "tooldeck.testing.asker",
    "tooldeck.testing.install",
    "tooldeck.testing.wheels",
    "tooldeck.testing._toml",
    *(f"tooldeck.builtin_plugins.{m}" for m in BUILTIN_PLUGINS),
)
for _module in PRELOADED:
    importlib.import_module(_module)

INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
filterwarnings = error
"""


@pytest.fixture
def inner(pytester):
    """``pytester`` with the inner runs' ini: pytest-asyncio in auto mode, warnings as errors."""
    pytester.makeini(INI)
    return pytester


@pytest.fixture
def pack_tests(inner):
    """``pack_tests(source, *args)``: run one generated test file in-process; the result.

    The inner run loads the ``tooldeck`` plugin through its ``pytest11`` entry point.
    """

    def run(source, *args):
        inner.makepyfile(test_pack=source)
        return inner.runpytest_inprocess("-p", "no:cacheprovider", *args)

    return run


PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "{backend}"
{backend_path}
[project]
name = "tdtest-mini"
version = "{version}"

[project.entry-points.tooldeck]
mini = "tdtest_mini"

[tool.setuptools]
py-modules = ["tdtest_mini"]
"""

MODULE = """\
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="mini", description="Mini.", codemode=False,
                    execute=lambda i, c: ToolResult(content="{says}")))
"""


def make_pack(
    where, *, says="mini 1", version="1.0", backend="setuptools.build_meta", backend_path=""
):
    where.mkdir(parents=True, exist_ok=True)
    (where / "pyproject.toml").write_text(
        PYPROJECT.format(backend=backend, backend_path=backend_path, version=version)
    )
    (where / "tdtest_mini.py").write_text(MODULE.format(says=says))
    return where


@pytest.fixture
def pack(tmp_path):
    return make_pack(tmp_path / "pack")
