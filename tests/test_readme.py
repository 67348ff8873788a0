"""Every fenced block of ``README.md`` runs, or says why it cannot.

* The main job's command: this environment is the venv it creates and installs into, so
  its ``tooldeck tools`` runs through this venv's console script in an empty folder, and
  lists the built-in tools.
* The test command is the one ``.ci/run`` runs first (the suite cannot run itself here).
* The two ``python`` blocks run in this process; the greeting prints what its comment
  says, and ``tool(fn)`` reads the docstring the block shows.
* The ``toml`` rule loads as a project file, and does what the text around it says:
  without it ``tooldeck call`` does not run ``git status`` and names a rule to add;
  with it (the folder trusted) the call runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Location, ToolService
from tooldeck.host.config.config_files import load_config

from .docs_blocks import ROOT, page

PAGE = page("README.md")
MAIN_JOB = PAGE.take("bash", ".venv/bin/tooldeck tools")
TEST_COMMAND = PAGE.take("bash", "pip install -e '.[test]'")
EMBEDDING = PAGE.take("python", "ToolService(Location(")
TOOL_FN = PAGE.take("python", "@tool\ndef add")
SHELL_RULE = PAGE.take("toml", 'resource = "git status*"')

CONSOLE_SCRIPT = Path(sys.executable).parent / "tooldeck"
BUILTINS = ("edit", "glob", "grep", "patch", "question", "read", "shell", "webfetch", "write")


def tooldeck(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The console script, with no terminal (stdin closed), as a script runs it."""
    return subprocess.run(
        [str(CONSOLE_SCRIPT), *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def run_python(code: str, name: str) -> dict[str, object]:
    namespace = {"__name__": "__doc_example__"}
    exec(compile(code, name, "exec"), namespace)
    return namespace


def test_the_main_job_lists_the_builtin_catalog(clean_env):
    steps = MAIN_JOB.code.strip().split(" && ")
    assert steps[:2] == ["python3 -m venv .venv", ".venv/bin/pip install -e ."]
    assert steps[2:] == [".venv/bin/tooldeck tools"]
    assert CONSOLE_SCRIPT.parent.name == "bin" and (CONSOLE_SCRIPT.parent / "pip").exists()
    done = tooldeck("tools", cwd=clean_env)
    assert done.returncode == 0, done.stderr
    names = {line.split()[0] for line in done.stdout.splitlines()[1:]}
    assert names >= set(BUILTINS)  # and whatever packs this environment has installed


def test_ci_runs_the_test_command_first():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (command,) = TEST_COMMAND.code.strip().splitlines()
    steps = [
        line
        for line in ci.splitlines()
        if not line.startswith("#") and (line.startswith(".venv/") or "venv" in line)
    ]
    assert steps[0].startswith(command), steps[0]


def test_the_embedding_block_greets(clean_env, monkeypatch, capsys):
    monkeypatch.chdir(clean_env)
    namespace = run_python(EMBEDDING.code, str(EMBEDDING))
    assert capsys.readouterr().out == "Hello, Ada!\n"
    names = [d["function"]["name"] for d in namespace["tools_for_model"]]
    assert "greet" in names


def test_tool_reads_the_docstring(clean_env):
    add = run_python(TOOL_FN.code, str(TOOL_FN))["add"]
    service = ToolService(Location(clean_env))
    service.transform(lambda editor: editor.add(add.replace(codemode=False)), source="readme")
    (definition,) = service.snapshot().definitions_for("openai")
    assert definition["function"]["description"] == "Add two integers."
    properties = definition["function"]["parameters"]["properties"]
    assert properties["a"]["description"] == "The first addend."
    assert properties["b"]["description"] == "The second addend."


def test_the_shell_rule_loads_and_lets_git_status_run(clean_env):
    project = clean_env / "project"
    project.mkdir()
    call = ("call", "shell", '{"command": "git status"}')
    refused = tooldeck(*call, cwd=project)
    assert refused.returncode == 1
    assert "not run: it needs permission (shell on git status)" in refused.stderr
    assert 'action = "shell"\nresource = "git status"\neffect = "allow"' in refused.stderr

    (project / "tooldeck.toml").write_text(SHELL_RULE.code)
    rules = load_config(project).permission
    assert [(r.action, r.resource, r.effect) for r in rules] == [("shell", "git status*", "allow")]
    assert tooldeck("trust", "--yes", cwd=project).returncode == 0
    ran = tooldeck(*call, cwd=project)
    assert ran.returncode == 0, ran.stderr
    assert "not a git repository" in ran.stdout + ran.stderr  # git ran, in no repository


# -- the figures and the claims in the text ---------------------------------------------------
def readme_figures():
    """``bench/readme_figures.py``, the script that rewrites the README's test figures."""
    import importlib.util

    path = ROOT / "bench" / "readme_figures.py"
    spec = importlib.util.spec_from_file_location("readme_figures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_figures_are_in_the_form_the_refresh_script_rewrites():
    script = readme_figures()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    stated = script.figures_in_readme(text)
    assert stated.tests >= 1000 and 1 <= stated.minutes <= 30
    assert script.rewrite(text, stated) == text  # the sentence round-trips exactly


def test_the_refresh_script_reads_a_runs_summary_and_rewrites_the_sentence():
    script = readme_figures()
    output = "....\n2784 passed, 3 skipped, 2 deselected in 201.52s (0:03:21)\n"
    figures = script.figures_of_run(output)
    assert figures == (2790, 3)  # skipped ones ran; deselected ones did not
    text = "The default run (about 1,000 tests) takes about 9 minutes on an idle box."
    assert script.rewrite(text, figures) == (
        "The default run (about 2,790 tests) takes about 3 minutes on an idle box."
    )


@pytest.mark.slow
def test_the_stated_test_count_is_within_a_tenth_of_what_the_suite_collects():
    """Collecting imports every test module (tens of seconds): CI's slow run checks it."""
    stated = readme_figures().figures_in_readme((ROOT / "README.md").read_text("utf-8"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    collected = sum(1 for line in done.stdout.splitlines() if "::" in line)
    assert abs(collected - stated.tests) <= stated.tests / 10, (
        f"README says about {stated.tests:,} tests, the default run collects {collected:,}: "
        "run python bench/readme_figures.py"
    )


def test_every_builtin_is_native_as_the_readme_says(clean_env):
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    listed = text.split("Every built-in is native (", 1)[1].split(")", 1)[0]
    named = {name.strip(" `") for name in listed.split(",")}
    assert named == set(BUILTINS)
    done = tooldeck("tools", "--json", cwd=clean_env)
    modes = {row["name"]: row["mode"] for row in json.loads(done.stdout)}
    assert {modes[name] for name in BUILTINS} == {"native"}
