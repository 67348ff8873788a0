"""Every example in ``docs/testing.md`` runs, as the pack author would run it.

Each fenced ``python``/``toml`` block starts with ``# <path>``: the blocks are written to
those paths in a pack folder (``my_pack.py``, ``pyproject.toml``, ``tests/test_*.py``) and
the tests run in one inner pytest session with the ``tooldeck`` plugin. The ``text``
block showing a failure message is checked against the real message.
"""

from __future__ import annotations

import re

import pytest

from ..docs_blocks import DOCS, page

DOC = DOCS / "testing.md"
PAGE = page("testing.md")
FILES = [PAGE.claim(b) for b in PAGE.blocks if b.lang in ("python", "toml")]
MESSAGE = PAGE.take("text", "AssertionError: no tool 'gret'")
FIXTURES = (
    "tooldeck_host",
    "tooldeck_asker",
    "tooldeck_answerer",
    "tooldeck_location",
    "tooldeck_env",
    "tooldeck_install",
    "tooldeck_loop_guard",
)

MESSAGE_TEST = """\
import pytest

import my_pack


def test_the_documented_failure_message(tooldeck_host):
    host = tooldeck_host([my_pack], builtins=False)
    with pytest.raises(AssertionError) as excinfo:
        host.assert_tool("gret")
    assert "AssertionError: " + str(excinfo.value) == EXPECTED


EXPECTED = """


def examples():
    """``{path: source}`` of every python/toml block of the doc."""
    found = {}
    for body in (block.code for block in FILES):
        first = body.splitlines()[0]
        assert first.startswith("# "), f"a block must start with '# <path>': {first}"
        path = first[2:].strip()
        assert path not in found, f"two blocks for {path}"
        found[path] = body
    return found


def test_every_block_names_its_file_and_every_fixture_has_an_example():
    found = examples()
    assert {"my_pack.py", "pyproject.toml"} <= set(found)
    tests = "".join(body for path, body in found.items() if path.startswith("tests/"))
    for fixture in FIXTURES:
        assert re.search(rf"def test_\w+\([^)]*\b{fixture}\b", tests), fixture
        assert f"## `{fixture}`" in DOC.read_text(), fixture


@pytest.mark.slow
def test_the_examples_pass(inner):
    found = examples()
    pack = inner.path / "pack"
    for path, body in found.items():
        (pack / path).parent.mkdir(parents=True, exist_ok=True)
        (pack / path).write_text(body)
    message = MESSAGE.code.strip()
    (pack / "tests" / "test_doc_message.py").write_text(MESSAGE_TEST + repr(message) + "\n")
    inner.syspathinsert(pack)
    result = inner.runpytest_inprocess(str(pack / "tests"), "-p", "no:cacheprovider")
    count = sum(
        len(re.findall(r"^(?:async )?def test_", body, re.MULTILINE))
        for path, body in found.items()
        if path.startswith("tests/")
    )
    assert count >= len(FIXTURES)
    result.assert_outcomes(passed=count + 1)
