"""``pytester`` runs generated test files through the shipped plugin, as a pack author would.

In-process inner runs drop every module they imported when they end, so what tooldeck
imports lazily is imported here once: otherwise each inner run would get a fresh
pydantic while modules kept from the outer run still hold the old one.
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
