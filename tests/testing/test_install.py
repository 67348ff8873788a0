"""``Site``: real installs of a tiny generated pack, and subprocesses that see them."""

from __future__ import annotations

import json
import os

import pytest

from tooldeck.errors import PackBuildError
from tooldeck.testing import Site, WheelCache

from .conftest import make_pack


# -- Site ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_install_a_project_and_run_the_cli_and_python(tmp_path, pack):
    site = Site.create(tmp_path / "where").install(pack)
    assert site.distributions() == {"tdtest-mini": "1.0"}
    tools = {row["name"]: row for row in json.loads(site.tooldeck("tools", "--json").stdout)}
    assert tools["mini"]["plugin"] == "tdtest-mini"
    done = site.python("import sys, tdtest_mini; print(tdtest_mini.__file__, sys.argv[1])", "x")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(site.path)) and done.stdout.endswith(" x\n")


@pytest.mark.slow
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
        PackBuildError,
        match=r"'tdtest-mini' is not installed in .* "
        r"\(installed: nothing\)",
    ):
        site.uninstall("tdtest-mini")
    with pytest.raises(PackBuildError, match=r"not a project directory or a \.whl file"):
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


# -- a site sees only its own packs --------------------------------------------------------
@pytest.mark.slow
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
    done = site.tooldeck(
        "call", "mini", PYTHONPATH=os.pathsep.join([str(site.path), str(outside.path)])
    )
    assert done.stdout.strip() == "mini 2", done.stderr
    site.uninstall("tdtest-mini")
    assert "tdtest-mini" in site.outside_packs()  # and uninstalling does not reveal it
