"""The examples and the guides are tested: what they show is what tooldeck does.

* ``examples/agent_loop.py`` runs in a subprocess and its transcript is checked.
* Every ``python`` block of the guides in ``DOCS`` (code mode's too) runs on its own, in an empty
  temporary directory, unless it is a file of an example project or has a test of its own
  below.
* A block preceded by ``<!-- file: PATH -->`` is a file of an example project instead:
  those of one guide are written out together, then ``tooldeck check`` and the
  project's own tests (``pytest``) run on them.
* Every ``toml`` block that is not a file is a tooldeck config snippet and must load.
* The ``tox.ini`` of ``docs/compat-matrix.md`` parses and covers its matrix.
* A ``bash`` block preceded by ``<!-- shell -->`` is a step of the pack author's path;
  ``tests_packs/test_pack_guide.py`` runs those steps literally, in an empty folder (with
  the compatibility page's files), and a test here checks it reads exactly these blocks.

Each block is taken from the shared ``docs_blocks.page`` at import, so
``tests/test_docs_meta.py`` knows which blocks of these pages run.
"""

from __future__ import annotations

import ast
import configparser
import importlib
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Host, PermissionGate
from tooldeck.host.config.config_files import load_config

from .docs_blocks import Block, page
from .docs_blocks import blocks as all_blocks

ROOT = Path(__file__).resolve().parent.parent
AGENT_LOOP = ROOT / "examples" / "agent_loop.py"
DOCS = (
    "host-embedding.md",
    "pack-author-guide.md",
    "codemode.md",
    "integrations.md",
    "tool-search.md",
    "approvals.md",
)


def blocks(doc: str) -> list[Block]:
    found = all_blocks(doc)
    for block in found:
        marker = block.marker
        if marker not in (None, "shell") and not block.file and block.not_run is None:
            raise ValueError(
                f"{doc}: unknown marker <!-- {marker} --> (shell, file: PATH, not run: why)"
            )
    return found


def take(block: Block) -> Block:
    return page(block.doc).claim(block)


ALL = [block for doc in DOCS for block in blocks(doc)]
COMPAT = blocks("compat-matrix.md")
# blocks with a test of their own below
STUBS = page("codemode.md").take("python", "class tools_weather:")
POSTGRES = page("approvals.md").take("python", "PostgresStore(")
ASSERT_SIGNATURE = page("pack-author-guide.md").take(
    "python", "assert_(action, resources, save=None"
)
GUIDE_TREE = page("pack-author-guide.md").take("text", "tooldeck-notes/\n├──")
CHECK_COMMANDS = page("pack-author-guide.md").take("bash", "tooldeck check tooldeck-notes")
CHECK_OUTPUT = page("pack-author-guide.md").take("text", "$ tooldeck check .")
TOX_INI = page("compat-matrix.md").take("ini", "[tox]")
OWN_TEST = {STUBS, POSTGRES, ASSERT_SIGNATURE}


def runs(block: Block) -> bool:
    return block.lang == "python" and block.marker is None and block not in OWN_TEST


RUN = [take(b) for b in ALL if runs(b)]
CONFIGS = [take(b) for b in ALL if b.lang == "toml" and not b.file]
FILES = [take(b) for b in ALL if b.file]
SHELL_STEPS = [take(b) for b in ALL + COMPAT if b.marker == "shell"]
PACK_FILES = [take(b) for b in COMPAT if b.file and b != TOX_INI]  # tests_packs writes them


@pytest.fixture
def env(monkeypatch, tmp_path):
    """No ``TOOLDECK_*`` variables, user config and data inside ``tmp_path``, cwd in it."""
    for name in [n for n in os.environ if n.startswith("TOOLDECK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def subprocess_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
    env.update(
        XDG_CONFIG_HOME=str(home / "xdg-config"),
        XDG_DATA_HOME=str(home / "xdg-data"),
        PYTHONDONTWRITEBYTECODE="1",
        **extra,
    )
    return env


# -- examples/agent_loop.py ----------------------------------------------------------------
@pytest.fixture(scope="module")
def transcripts(tmp_path_factory):
    """The example's transcript per provider SDK (both run in one process)."""
    home = tmp_path_factory.mktemp("agent-loop")
    done = subprocess.run(
        [sys.executable, str(AGENT_LOOP)],
        cwd=home,
        env=subprocess_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == "", done.stderr
    _, openai, anthropic = re.split(r"^== (?:openai|anthropic) ==$", done.stdout, flags=re.M)
    return {"openai": openai, "anthropic": anthropic}


@pytest.fixture(params=["openai", "anthropic"])
def transcript(request, transcripts):
    return transcripts[request.param]


def test_the_agent_loop_offers_the_real_builtins(transcript):
    tools = transcript.strip().splitlines()[0]
    for name in ("edit", "grep", "read", "shell", "write"):
        assert f" {name}" in tools.replace(",", " "), tools


def test_every_call_gets_an_outcome_in_order(transcript):
    outcomes = re.findall(r"^  < (call_\d+) (.+)$", transcript, flags=re.M)
    assert outcomes == [
        ("call_1", "completed"),  # read app.py
        ("call_2", "completed"),  # read logo.png: an image
        ("call_3", "completed"),  # grep
        ("call_4", "failed (tool.execution)"),  # invalid arguments
        ("call_5", "completed"),  # the corrected edit, approved once
        ("call_6", "failed (tool.execution)"),  # rejected with feedback
        ("call_7", "declined"),  # rejected
    ]


def test_the_image_reaches_the_model(transcript):
    assert "|   [image/png image, " in transcript.split("< call_2 ")[1].split("< call_3")[0]
    assert transcript.count("(the model received 1 image)") == 1


def test_read_and_grep_show_the_file(transcript):
    assert '|   3:     return "hi " + name' in transcript
    assert "Found 2 matches in 1 file" in transcript
    assert 'L7:     return "bye " + name  # TODO: capitalize' in transcript


def test_invalid_arguments_are_explained_and_never_run(transcript):
    failure = transcript.split("< call_4 ")[1].split("assistant:")[0]
    assert "- old_string: Input should be a valid string" in failure
    assert "- new_string: Field required" in failure
    assert "Correct the arguments and call 'edit' again." in failure


def test_the_asker_sees_each_ask_with_its_diff_and_replies(transcript):
    asks = re.findall(r"^  \? permission: (\w+) (.+)$", transcript, flags=re.M)
    assert [(action, resources.split(",")[0]) for action, resources in asks] == [
        ("edit", "app.py"),
        ("shell", "rm -rf build && make"),
        ("edit", "SUMMARY.md"),
    ]
    assert '|   +    return f"Hello, {name}!"' in transcript
    replies = re.findall(r"^  ! user replies: (.+)$", transcript, flags=re.M)
    assert replies == [
        "'once'",
        'Reject(feedback="Don\'t delete build/, it is shared.")',
        "'reject'",
    ]


def test_feedback_reaches_the_model_and_decline_ends_the_turn(transcript):
    assert "Don't delete build/, it is shared." in transcript.split("< call_6 ")[1]
    declined = transcript.split("< call_7 ")[1]
    assert "The user declined this tool call." in declined
    assert "(a call was declined: the turn ends and the user decides what next)" in declined
    assert "assistant:" not in declined  # no model request after the decline
    assert "SUMMARY.md exists: False" in transcript


def test_the_edit_landed(transcript):
    final = transcript.split("app.py now:\n")[1]
    assert 'return f"Hello, {name}!"' in final and "say hello properly" not in final


def test_each_provider_keeps_its_own_message_count(transcripts):
    # Chat Completions: user, then per turn the assistant message, one tool message per
    # call and a user message for the turn's image; Anthropic: one user message per turn.
    assert transcripts["openai"].rstrip().endswith("messages: 14")
    assert transcripts["anthropic"].rstrip().endswith("messages: 11")


# -- the guides ------------------------------------------------------------------------------
def test_the_guides_have_runnable_examples():
    for doc in DOCS:
        runnable = [b for b in RUN if b.doc == doc]
        skipped = [b for b in ALL if b.doc == doc and b.not_run]
        assert len(runnable) >= 2, f"{doc}: only {len(runnable)} runnable python blocks"
        assert len(skipped) <= 2, f"{doc}: not run is for the odd fragment, not {len(skipped)}"


def run_python(code: str, name: str) -> dict[str, object]:
    namespace = {"__name__": "__doc_example__"}
    exec(compile(code, name, "exec"), namespace)
    return namespace


@pytest.mark.parametrize("block", RUN, ids=str)
def test_python_block_runs(block, env):
    run_python(block.code, str(block))


@pytest.mark.parametrize("block", CONFIGS, ids=str)
def test_config_snippet_loads(block, env):
    (env / "work" / "tooldeck.toml").write_text(block.code)
    load_config(env / "work")


def write_project(doc: str, where: Path) -> dict[str, Path]:
    """Write the ``file:`` blocks of ``doc`` under ``where``; return the project dirs."""
    projects = {}
    for block in (b for b in ALL if b.doc == doc and b.file):
        path = where / block.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.code, encoding="utf-8")
        top = Path(block.file).parts[0]
        projects[top] = where / top
    return projects


@pytest.fixture(scope="module")
def guide_pack(tmp_path_factory):
    where = tmp_path_factory.mktemp("guide")
    projects = write_project("pack-author-guide.md", where)
    assert list(projects) == ["tooldeck-notes"]
    return projects["tooldeck-notes"]


@pytest.mark.slow
def test_the_guide_pack_passes_tooldeck_check(guide_pack, tmp_path):
    """Both documented forms, through the console script: the source tree from its folder,
    and the distribution by name once installed (into a folder on ``PYTHONPATH``)."""
    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    install += ["--no-build-isolation", "--target", str(site), str(guide_pack)]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    env = subprocess_env(tmp_path, PYTHONPATH=str(site))
    commands = [line.partition("#")[0].split() for line in CHECK_COMMANDS.code.splitlines()]
    assert commands == [["tooldeck", "check", "."], ["tooldeck", "check", "tooldeck-notes"]]
    (shown_command, *shown_output) = CHECK_OUTPUT.code.splitlines()
    assert shown_command == "$ tooldeck check ."
    for command in commands:
        console_script = Path(sys.executable).parent / command[0]
        done = subprocess.run(
            [str(console_script), *command[1:]],
            cwd=guide_pack,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines() == shown_output  # the guide shows the real output


@pytest.mark.slow
def test_the_guide_pack_tests_pass(guide_pack, tmp_path):
    env = subprocess_env(tmp_path, PYTHONPATH=str(guide_pack / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=guide_pack,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^10 passed", done.stdout, flags=re.M), done.stdout


def test_the_guides_location_plugin_works_from_dot_tooldeck_plugins(env, capsys):
    [block] = [b for b in ALL if b.code.startswith("# .tooldeck/plugins/words.py\n")]
    project = env / "work"
    (project / ".tooldeck" / "plugins").mkdir(parents=True)
    (project / ".tooldeck" / "plugins" / "words.py").write_text(block.code)
    (project / "README.md").write_text("three short words\n")
    from tooldeck.cli import main

    assert main(["tools"]) == 0
    assert re.search(r"^local:words +untrusted", capsys.readouterr().out, re.M)
    assert main(["trust", "--yes"]) == 0
    capsys.readouterr()
    assert main(["tools"]) == 0
    assert re.search(r"^word_count +native +local:words ", capsys.readouterr().out, re.M)
    assert main(["call", "word_count", '{"path": "README.md"}']) == 0
    assert capsys.readouterr().out == "3\n"
    outside = json.dumps({"path": str(env / "secret.txt")})
    (env / "secret.txt").write_text("not the project's\n")
    assert main(["call", "word_count", outside]) == 1  # asked first; no terminal: refused
    assert f"external_directory on {env}/*" in capsys.readouterr().err


def test_the_guide_tree_shows_the_guides_files():
    paths, stack = set(), []
    for line in GUIDE_TREE.code.splitlines()[1:]:
        name = line.lstrip("│├└─ ").split()[0]
        depth = (len(line) - len(line.lstrip("│├└─ "))) // 4
        stack[depth - 1 :] = [name]
        if not name.endswith("/"):
            paths.add("tooldeck-notes/" + "".join(stack))
    assert GUIDE_TREE.code.splitlines()[0] == "tooldeck-notes/"
    assert paths == {b.file for b in FILES if b.doc == "pack-author-guide.md"}


def test_tests_packs_runs_the_shell_steps_and_writes_the_files(tmp_path):
    """The shell steps and the compatibility page's files are run by the slow
    ``tests_packs/test_pack_guide.py``: it reads exactly the blocks taken here."""
    path = ROOT / "tests_packs" / "test_pack_guide.py"
    spec = importlib.util.spec_from_file_location("tests_packs_pack_guide", path)
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    steps = runner.shell_steps("pack-author-guide.md") + runner.shell_steps("compat-matrix.md")
    assert steps == [b.code for b in SHELL_STEPS]
    written = runner.write_files("compat-matrix.md", tmp_path)
    assert written == [b.file for b in COMPAT if b.file]


def test_the_code_mode_stubs_are_what_the_model_sees(env):
    [first] = [b for b in RUN if b.doc == "codemode.md" and "class Weather" in b.code]
    weather = run_python(first.code, str(first))["Weather"]
    with Host.open(".", plugins=[weather()]) as host:
        definitions = host.snapshot().definitions_for("mcp")
    [execute] = [d for d in definitions if d["name"] == "execute"]
    assert STUBS.code in execute["description"]


def test_the_postgres_store_example_opens_a_host(env, postgres_dsn):
    code = re.sub(r'"postgresql://[^"]*"', repr(postgres_dsn), POSTGRES.code, count=1)
    assert code != POSTGRES.code
    namespace = run_python(code, str(POSTGRES))
    store, host = namespace["store"], namespace["host"]
    try:
        assert host.location.store is store
    finally:
        host.close()
        store.close()


def test_the_permission_assert_signature_is_the_gates():
    [call] = ast.parse(ASSERT_SIGNATURE.code.strip().removeprefix("await ")).body
    shown = call.value
    assert ast.unparse(shown.func) == "ctx.permission.assert_"
    shown_args = [a.id for a in shown.args] + [
        f"{k.arg}={ast.unparse(k.value)}" for k in shown.keywords
    ]
    parameters = list(inspect.signature(PermissionGate.assert_).parameters.values())[1:]
    real = [p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in parameters]
    assert shown_args == real


def test_the_compat_matrix_tox_ini_covers_its_matrix():
    config = configparser.ConfigParser(interpolation=None)
    config.read_string(TOX_INI.code)
    env_list = config["tox"]["env_list"].split()
    deps = config["testenv"]["deps"]
    # by default one cell per Python and the neighbours; the tooldeck axis behind -m full
    assert env_list == ["py{311,312,313}", "py312-neighbours"]
    full = config["tox"]["labels"].strip()
    assert full.startswith("full = ")
    for factor in ("py{311,312,313}-tooldeck{01,latest}", "tooldecknext", "neighbours"):
        assert factor in full
    for factor in ("tooldeck01:", "tooldecklatest:", "tooldecknext:", "neighbours:"):
        assert factor in deps
    assert config["testenv"]["package"] == "wheel"
    assert "tox-uv" in config["tox"]["requires"]
    # uv reads UV_FIND_LINKS only: the documented PIP_FIND_LINKS must reach it
    assert "UV_FIND_LINKS = {env:PIP_FIND_LINKS:}" in config["testenv"]["set_env"]
    assert "git+" not in TOX_INI.code  # local paths and wheel URLs only


def test_the_matrix_script_parses_and_runs_tox_in_parallel(tmp_path):
    [script] = [b for b in COMPAT if b.file == "tooldeck-notes/matrix.sh"]
    done = subprocess.run(
        ["bash", "-n"], input=script.code, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert script.code.rstrip().endswith('.venv/bin/tox p "$@"')
    assert 'export PIP_FIND_LINKS="$PWD/../wheels"' in script.code


@pytest.mark.parametrize(
    ("shown_as", "function"),
    [
        ("Host.open", Host.open),
        ("run_tool_call", "tooldeck:run_tool_call"),
        ("run_tool_calls", "tooldeck.providers:run_tool_calls"),
    ],
)
def test_the_signatures_host_embedding_spells_out_are_the_real_ones(shown_as, function):
    """The guide writes these three out in prose; a keyword added later (``on_ask``,
    ``store``, ``telemetry``) is missing for a reader unless the page grows with it."""
    if isinstance(function, str):
        module, name = function.split(":")
        function = getattr(importlib.import_module(module), name)
    text = page("host-embedding.md").text
    spelt = re.search(rf"`{re.escape(shown_as)}\(([^`]*?\*[^`]*?)\)`", text, re.S)
    assert spelt is not None, f"host-embedding.md spells out no {shown_as}(...) signature"
    shown = ast.parse(f"def f({spelt[1]}): pass").body[0].args
    shown_defaults = [None] * (len(shown.args) - len(shown.defaults)) + shown.defaults
    pairs = [
        *zip(shown.args, shown_defaults, strict=True),
        *zip(shown.kwonlyargs, shown.kw_defaults, strict=True),
    ]
    written = [
        (a.arg, ast.literal_eval(d) if d is not None else inspect.Parameter.empty) for a, d in pairs
    ]
    real = [(p.name, p.default) for p in inspect.signature(function).parameters.values()]
    assert written == real
