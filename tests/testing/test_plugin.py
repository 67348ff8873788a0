"""The pytest plugin as pack authors meet it: generated test files run by ``pytester``.

Each test writes the kind of test module a pack author would, runs it in an inner
pytest session that loads the ``tooldeck`` plugin through its ``pytest11`` entry
point, and checks the inner outcomes.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PACK = """
from tooldeck import Tool, ToolResult, hookimpl

class GreetPack:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(Tool(
            name="greet", description="Greet someone.", codemode=False,
            input={"type": "object", "properties": {"name": {"type": "string"}},
                   "required": ["name"]},
            execute=lambda i, c: ToolResult(content=f"Hello, {i['name']}!")))
"""


def test_tooldeck_host_sync_and_async(pack_tests):
    result = pack_tests(
        PACK
        + """
from tooldeck.testing import text_of

def test_sync(tooldeck_host):
    host = tooldeck_host([GreetPack()], builtins=False)
    host.assert_tool("greet", mode="native", provided_by="GreetPack", overrides=[])
    assert text_of(host.call_sync("greet", name="Ada")) == "Hello, Ada!"

async def test_async(tooldeck_host):
    host = tooldeck_host([GreetPack()])
    outcome = await host.call("greet", name="Bo")
    assert outcome.status == "completed"
    host.assert_tool("read", provided_by="builtin:read")
"""
    )
    result.assert_outcomes(passed=2)


def test_a_failed_catalog_assertion_reads_well(pack_tests):
    result = pack_tests(
        PACK
        + """
def test_typo(tooldeck_host):
    tooldeck_host([GreetPack()], builtins=False).assert_tool("gret")
"""
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E * AssertionError: no tool 'gret' is offered to the model",
            "E *   offered: greet (native, from GreetPack)",
            "E *   did you mean: 'greet'",
        ]
    )


def test_asker_and_answerer_are_fresh_per_test(pack_tests):
    result = pack_tests("""
from tooldeck.testing import ScriptedAnswerer, ScriptedAsker

def test_first(tooldeck_asker, tooldeck_answerer):
    assert isinstance(tooldeck_asker, ScriptedAsker)
    assert isinstance(tooldeck_answerer, ScriptedAnswerer)
    tooldeck_asker.replies["shell"] = "reject"
    tooldeck_answerer.on("DB", "Postgres")

def test_second(tooldeck_asker, tooldeck_answerer):
    assert tooldeck_asker.replies == {} and tooldeck_asker.default == "once"
    assert tooldeck_answerer.by_question == {} and tooldeck_answerer.default is None
""")
    result.assert_outcomes(passed=2)


def test_location_is_an_empty_project_wired_to_the_scripted_user(pack_tests):
    result = pack_tests("""
async def test_location(tooldeck_location, tooldeck_asker, tooldeck_answerer, tmp_path):
    assert tooldeck_location.root == tmp_path / "project"
    assert list(tooldeck_location.root.iterdir()) == []
    assert tooldeck_location.data_dir == tmp_path / "data"
    gate = tooldeck_location.permission.gate({"type": "tool"})
    await gate.assert_("shell", ["make"])
    assert tooldeck_asker.asked("shell")[0].resources == ("make",)
    tooldeck_answerer.on("DB", "SQLite")
    answers = await tooldeck_location.question.gate({}).ask(
        [{"question": "Which?", "header": "DB"}])
    assert answers == [["SQLite"]]
""")
    result.assert_outcomes(passed=1)


def test_the_environment_cannot_change_what_a_test_loads(pytester, pack_tests, monkeypatch):
    # The conftest runs in this process (inline pytester): monkeypatch undoes it afterwards,
    # so later tests and their subprocesses do not inherit the variable.
    monkeypatch.setitem(os.environ, "TOOLDECK_DISABLE_PLUGINS", "builtin:read")
    pytester.makeconftest("""
import os
os.environ["TOOLDECK_DISABLE_PLUGINS"] = "builtin:read"
""")
    result = pack_tests("""
import os

def test_isolated(tooldeck_host, tooldeck_env, tmp_path):
    assert "TOOLDECK_DISABLE_PLUGINS" not in os.environ
    assert os.environ["XDG_CONFIG_HOME"] == str(tmp_path / "xdg-config")
    assert tooldeck_env == tmp_path
    tooldeck_host(builtins=["read"]).assert_tool("read")

def test_restored_afterwards():
    assert os.environ["TOOLDECK_DISABLE_PLUGINS"] == "builtin:read"
""")
    result.assert_outcomes(passed=2)


def test_config_mappings_and_text(pack_tests):
    result = pack_tests(
        PACK
        + """
def test_deny_hides(tooldeck_host):
    deny = {"permission": [{"action": "greet", "resource": "*", "effect": "deny"}]}
    host = tooldeck_host([GreetPack()], builtins=False, config=deny)
    host.assert_no_tool("greet")

def test_text(tooldeck_host):
    host = tooldeck_host(builtins=False, config="[output]\\nmax_lines = 7\\n")
    assert host.location.config.output.max_lines == 7
"""
    )
    result.assert_outcomes(passed=2)


def test_tooldeck_install_builds_once_and_runs_the_cli(pack_tests):
    result = pack_tests('''
import json
import pytest

PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"
[project]
name = "tdtest-wave"
version = "1.0"
[project.entry-points.tooldeck]
wave = "tdtest_wave"
[tool.setuptools]
py-modules = ["tdtest_wave"]
"""
MODULE = """
from tooldeck import Tool, ToolResult, hookimpl
@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="wave", description="Wave.", codemode=False,
                    execute=lambda i, c: ToolResult(content="o/")))
"""

@pytest.fixture(scope="session")
def pack(tmp_path_factory):
    root = tmp_path_factory.mktemp("tdtest-wave")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tdtest_wave.py").write_text(MODULE)
    return root

WHEELS = []

def test_cli(tooldeck_install, tooldeck_wheels, pack):
    site = tooldeck_install(pack)
    assert tooldeck_install() is site
    done = site.tooldeck("call", "wave")
    assert (done.returncode, done.stdout.strip()) == (0, "o/"), done.stderr
    WHEELS.append(tooldeck_wheels.wheel(pack))

def test_python_and_uninstall(tooldeck_install, tooldeck_wheels, pack):
    site = tooldeck_install(pack)
    WHEELS.append(tooldeck_wheels.wheel(pack))
    assert WHEELS[0] == WHEELS[1]  # built once per session
    code = "from tooldeck import Host; host = Host.open('.', plugins=['tdtest-wave'])"
    done = site.python(code + "; print({p.name: p.status for p in host.plugins}['tdtest-wave'])")
    assert done.stdout.split() == ["active"], done.stderr
    site.uninstall("tdtest-wave")
    assert site.distributions() == {}
''')
    result.assert_outcomes(passed=2)


@pytest.mark.slow
def test_the_entry_point_loads_the_plugin_in_a_fresh_interpreter(inner):
    inner.makepyfile(
        test_pack=PACK
        + """
def test_catalog(tooldeck_host):
    tooldeck_host([GreetPack()], builtins=False).assert_tool("greet")
"""
    )
    result = inner.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_fixtures_are_listed_with_their_docs(inner):
    result = inner.runpytest_inprocess("--fixtures", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*fixtures defined from tooldeck.testing.plugin*",
            "tooldeck_env*",
            "*No ``TOOLDECK_*`` variables*",
        ]
    )
    for name in (
        "tooldeck_asker",
        "tooldeck_answerer",
        "tooldeck_location",
        "tooldeck_host",
        "tooldeck_install",
        "tooldeck_wheels",
    ):
        result.stdout.fnmatch_lines([f"{name}*"])


def test_loading_the_plugin_imports_nothing_heavy():
    code = "import sys, tooldeck.testing.plugin; print(*sorted(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = done.stdout.split()
    assert "tooldeck.testing.plugin" in loaded
    heavy = [
        n
        for n in loaded
        if n.split(".")[0] in ("pydantic", "jsonschema", "httpx")
        or n.startswith(("tooldeck.host", "tooldeck.testing.", "tooldeck.builtin"))
    ]
    assert heavy == ["tooldeck.testing.plugin"]
