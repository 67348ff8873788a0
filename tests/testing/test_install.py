"""``WheelCache`` and ``Site``: real builds and installs of a tiny generated pack."""

from __future__ import annotations

import json
import os
import zipfile

import pytest

from tooldeck.errors import TooldeckError
from tooldeck.testing import Site, WheelCache

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

IN_TREE_BACKEND = "from setuptools.build_meta import *  # noqa: F403\n"


def make_pack(
    where, *, says="mini 1", version="1.0", backend="setuptools.build_meta", backend_path=""
):
    where.mkdir(parents=True, exist_ok=True)
    (where / "pyproject.toml").write_text(
        PYPROJECT.format(backend=backend, backend_path=backend_path, version=version)
    )
    (where / "tdtest_mini.py").write_text(MODULE.format(says=says))
    return where


def touch_later(path):
    """Move ``path``'s mtime forward: coarse filesystem clocks must not hide an edit."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def module_text(wheel):
    with zipfile.ZipFile(wheel) as archive:
        return archive.read("tdtest_mini.py").decode()


@pytest.fixture
def pack(tmp_path):
    return make_pack(tmp_path / "pack")


# -- WheelCache ------------------------------------------------------------------------------
def test_a_wheel_is_built_once_per_source_state(tmp_path, pack):
    cache = WheelCache(tmp_path / "cache")
    first = cache.wheel(pack)
    assert first.name == "tdtest_mini-1.0-py3-none-any.whl"
    assert cache.wheel(pack) == first
    assert sorted(p.name for p in pack.iterdir()) == ["pyproject.toml", "tdtest_mini.py"]
    (pack / "tdtest_mini.py").write_text(MODULE.format(says="mini 2"))
    touch_later(pack / "tdtest_mini.py")
    second = cache.wheel(pack)
    assert second != first
    assert "mini 2" in module_text(second) and "mini 1" in module_text(first)


def test_several_packs_build_in_parallel_in_order(tmp_path):
    one = make_pack(tmp_path / "one")
    two = make_pack(tmp_path / "two", version="2.0")
    cache = WheelCache(tmp_path / "cache")
    assert [w.name.split("-")[1] for w in cache.wheels(two, one, two)] == ["2.0", "1.0", "2.0"]


def test_the_project_backend_is_used_with_its_backend_path(tmp_path):
    pack = make_pack(tmp_path / "pack", backend="backend", backend_path='backend-path = ["_b"]')
    (pack / "_b").mkdir()
    (pack / "_b" / "backend.py").write_text(IN_TREE_BACKEND)
    assert WheelCache(tmp_path / "cache").wheel(pack).suffix == ".whl"


def test_a_failed_build_shows_the_backend_output(tmp_path):
    pack = make_pack(tmp_path / "pack", backend="no_such_backend")
    with pytest.raises(
        TooldeckError,
        match=r"(?s)building a wheel of .*pack failed "
        r"\(build_wheel exited 1, 0 wheels\):.*"
        r"No module named 'no_such_backend'",
    ):
        WheelCache(tmp_path / "cache").wheel(pack)
    with pytest.raises(TooldeckError, match="not a Python project"):
        WheelCache(tmp_path / "cache").wheel(tmp_path)


# -- Site ------------------------------------------------------------------------------------
def test_install_a_project_and_run_the_cli_and_python(tmp_path, pack):
    site = Site.create(tmp_path / "where").install(pack)
    assert site.distributions() == {"tdtest-mini": "1.0"}
    tools = {row["name"]: row for row in json.loads(site.tooldeck("tools", "--json").stdout)}
    assert tools["mini"]["plugin"] == "tdtest-mini"
    done = site.python("import sys, tdtest_mini; print(tdtest_mini.__file__, sys.argv[1])", "x")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(site.path)) and done.stdout.endswith(" x\n")


def test_install_a_wheel_upgrade_and_uninstall(tmp_path, pack):
    cache = WheelCache(tmp_path / "cache")
    site = Site.create(tmp_path / "where", wheels=cache).install(cache.wheel(pack))
    make_pack(pack, version="2.0")
    site.install(pack)
    assert site.distributions() == {"tdtest-mini": "2.0"}
    copy = site.copy(tmp_path / "copy")
    site.uninstall("TDTEST_Mini")
    assert site.distributions() == {}
    assert sorted(p.name for p in site.path.iterdir()) == []
    assert copy.distributions() == {"tdtest-mini": "2.0"}
    with pytest.raises(
        TooldeckError,
        match=r"'tdtest-mini' is not installed in .* "
        r"\(installed: nothing\)",
    ):
        site.uninstall("tdtest-mini")
    with pytest.raises(TooldeckError, match=r"not a project directory or a \.whl file"):
        site.install(tmp_path / "missing.whl")


def test_uninstall_never_deletes_outside_the_site(tmp_path, pack):
    site = Site.create(tmp_path / "where").install(pack)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (record,) = site.path.glob("*.dist-info/RECORD")
    record.write_text(record.read_text() + "../../outside.txt,,\n")
    site.uninstall("tdtest-mini")
    assert outside.read_text() == "keep"


def test_the_environment_is_the_site_without_tooldeck_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    site = Site.create(tmp_path / "where")
    env = site.env(EXTRA="1")
    assert "TOOLDECK_LOAD_PLUGINS" not in env and env["EXTRA"] == "1"
    assert env["PYTHONPATH"] == os.pathsep.join([str(site.path), "/elsewhere"])
    assert env["XDG_CONFIG_HOME"] == str(site.home / "config")
    done = site.run(
        "-c", "import os, sys; print(os.getcwd(), sys.stdin.read())", stdin="hi", TOOLDECK_X="1"
    )
    assert done.stdout == f"{site.home} hi\n"


# -- the build requirements, checked up front ---------------------------------------------
def test_a_missing_build_requirement_says_what_to_install(tmp_path):
    pack = make_pack(tmp_path / "pack")
    text = (pack / "pyproject.toml").read_text()
    (pack / "pyproject.toml").write_text(text.replace(
        'requires = ["setuptools>=68"]', 'requires = ["setuptools>=9999", "tdtest-absent>=1"]'))
    from importlib.metadata import version

    with pytest.raises(TooldeckError) as raised:
        WheelCache(tmp_path / "cache").wheel(pack)
    assert str(raised.value) == (
        "cannot build pack: its [build-system] requires 'setuptools>=9999', but this "
        f"environment has setuptools {version('setuptools')}. tooldeck_install builds "
        "without isolation, with this environment's packages: install it here "
        "(python -m pip install 'setuptools>=9999'), for example through the pack's test "
        "extra.")
    (pack / "pyproject.toml").write_text(text.replace(
        'requires = ["setuptools>=68"]', 'requires = ["tdtest-absent>=1"]'))
    with pytest.raises(TooldeckError, match=r"this environment has no tdtest-absent\. "):
        WheelCache(tmp_path / "cache").wheel(pack)


def test_a_requirement_for_another_platform_is_not_checked(tmp_path):
    pack = make_pack(tmp_path / "pack")
    text = (pack / "pyproject.toml").read_text()
    (pack / "pyproject.toml").write_text(text.replace(
        'requires = ["setuptools>=68"]',
        'requires = ["setuptools>=68", "tdtest-absent; sys_platform == \'nowhere\'"]'))
    assert WheelCache(tmp_path / "cache").wheel(pack).suffix == ".whl"


# -- a site sees only its own packs --------------------------------------------------------
def test_the_running_environments_packs_are_disabled_in_a_site(tmp_path, pack, monkeypatch):
    outside = Site.create(tmp_path / "outside").install(pack)  # stands for the venv's packs
    monkeypatch.syspath_prepend(str(outside.path))
    site = Site.create(tmp_path / "site")
    assert "tdtest-mini" in site.outside_packs()
    disabled = site.env(TOOLDECK_DISABLE_PLUGINS="x")["TOOLDECK_DISABLE_PLUGINS"].split(",")
    assert disabled[0] == "x" and "tdtest-mini" in disabled
    shown = site.tooldeck("plugins", "--json", PYTHONPATH=str(outside.path))
    mini = {p["name"]: p for p in json.loads(shown.stdout)}["tdtest-mini"]
    assert mini["status"] == "disabled", mini
    site.install(make_pack(tmp_path / "newer", says="mini 2", version="2.0"))
    assert "tdtest-mini" not in site.outside_packs()  # the site holds it: its copy loads
    done = site.tooldeck("call", "mini", PYTHONPATH=os.pathsep.join(
        [str(site.path), str(outside.path)]))
    assert done.stdout.strip() == "mini 2", done.stderr
    site.uninstall("tdtest-mini")
    assert "tdtest-mini" in site.outside_packs()  # and uninstalling does not reveal it
