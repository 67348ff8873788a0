"""``.ci/run``: what CI runs, and that any failing step fails the run."""

from __future__ import annotations

import configparser
import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / ".ci" / "run"


def steps() -> list[str]:
    return [
        line
        for line in RUN.read_text().splitlines()
        if line and not line.startswith(("#", " ")) and ".venv/bin/" in line
    ]


def test_ci_runs_the_matrix_on_the_built_wheel_and_the_packs():
    text = RUN.read_text()
    assert ".venv/bin/tox -e py312,py313 --discover" in text
    assert '"$(pyenv root)"/versions/*/bin/python3' in text
    assert ".venv/bin/tox -e packs,lint,docs" in text
    tox = (ROOT / "tox.ini").read_text()
    assert "package = wheel" in tox and "--discover $(pyenv root)/versions/*/bin/python3" in tox


def test_ci_builds_the_release_checks_it_and_runs_the_wheel_alone():
    """The sdist and the wheel as PyPI would get them, then the wheel in a venv of its
    own (nothing of the checkout on the path), answering in an empty folder."""
    text = RUN.read_text()
    assert ".venv/bin/python -m build" in text
    assert ".venv/bin/twine check --strict dist/*" in text
    assert 'python3 -m venv "$clean/venv"' in text
    assert '"$clean/venv/bin/pip" install dist/tooldeck-*-py3-none-any.whl' in text
    assert 'cd "$clean/empty" && "$clean/venv/bin/tooldeck" --version' in text
    assert '"$clean/venv/bin/tooldeck" tools' in text


def test_the_docs_env_builds_the_site_strictly():
    tox = configparser.ConfigParser(interpolation=None)
    tox.read_string((ROOT / "tox.ini").read_text())
    assert "mkdocs build --strict" in tox["testenv:docs"]["commands"]
    assert tox["testenv:docs"]["extras"].strip() == "docs"


def test_every_step_records_its_failure():
    for step in steps():
        assert step.rstrip().endswith("|| status=$?") or step.endswith("\\"), step
    assert RUN.read_text().rstrip().endswith('exit "$status"')


def test_a_failing_step_fails_the_run(tmp_path):
    """The script itself, with every tool it calls replaced by one that fails."""
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in ("python3", "pyenv", "apt-get"):
        tool = fake / name
        tool.write_text("#!/bin/sh\nexit 3\n")
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    (checkout / ".ci" / "run").write_text(RUN.read_text())
    env = {**os.environ, "PATH": f"{fake}:/usr/bin:/bin"}
    done = subprocess.run(
        ["bash", str(checkout / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0


def test_ci_installs_the_postgresql_server_the_store_tests_start():
    text = RUN.read_text()
    assert "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql" in text


def test_ci_runs_the_mcp_conformance_suite_against_the_server():
    text = RUN.read_text()
    assert ".venv/bin/python tests/mcp/conformance/run.py || status=$?" in text
    assert "apt-get install -y npm" in text  # the suite and Node 22 come from npm


def test_ci_mounts_the_reference_server_everything_from_the_shared_install():
    text = RUN.read_text()
    step = ".venv/bin/python tests/mcp/client/everything/run.py"
    step += ' --install "$TOOLDECK_CONFORMANCE_CACHE"'
    assert step in text
