"""The entry point: exit codes, usage errors, and what ``--help`` must not import."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tooldeck import __version__
from tooldeck.cli import COMMANDS, build_parser, main
from tooldeck.cli._help import print_top_help

HEAVY = ("pydantic", "jsonschema", "pluggy", "importlib.metadata", "importlib_metadata")

PROBE = f"""
import json, sys
import tooldeck.cli
codes = [tooldeck.cli.main(args) for args in (["--version"], ["--help"], ["tools", "--help"],
                                              ["plugins", "--help"], ["call", "--help"],
                                              ["run-code", "--help"], ["check", "--help"])]
print(json.dumps({{"codes": codes, "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


def test_help_and_version_import_nothing_heavy():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"codes": [0, 0, 0, 0, 0, 0, 0], "heavy": []}


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"tooldeck {__version__}\n"


def test_python_dash_m_runs_the_cli():
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", "--version"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (0, f"tooldeck {__version__}\n")


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "a command is required" in capsys.readouterr().err


def test_no_command_names_every_command(capsys):
    """The list was five of the eleven: pending, resume, trust and new-pack were missing."""
    from tooldeck.cli import COMMANDS

    assert main([]) == 2
    assert f"a command is required: {', '.join(COMMANDS)}" in capsys.readouterr().err


def test_unknown_command_is_a_usage_error(capsys):
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_missing_location_is_a_usage_error(tmp_path, capsys):
    assert main(["--location", str(tmp_path / "nope"), "tools"]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_the_location_may_follow_the_command_and_wins_there(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "")  # the built-ins only
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / "tooldeck.toml").write_text('[tools."read"]\ndefer_loading = true\n')
    for argv, expected in (
        (["tools", "--location", str(second)], True),
        (["--location", str(first), "tools"], False),
        (["--location", str(first), "tools", "--location", str(second)], True),
    ):
        assert main([*argv, "--json"]) == 0
        rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
        assert rows["read"]["deferred"] is expected, argv


@pytest.mark.parametrize(
    "argv",
    [
        ["pending", "show", "ID", "--location", "here"],
        ["approvals", "migrate", "--location", "here"],
        ["mcp", "serve", "--location", "here"],
        ["mcp", "login", "NAME", "--location", "here"],
        ["--location", "there", "call", "read", "--location", "here"],
        ["--location", "here", "pending", "show", "ID"],
    ],
)
def test_the_location_is_taken_before_or_after_a_command_or_its_action(argv):
    assert build_parser(argv).parse_args(argv).location == "here"


def test_a_config_error_exits_2_with_the_message_and_no_traceback(project, tooldeck):
    (project / "tooldeck.toml").write_text('[plugins]\ndisable = "x"\n')
    code, _, err = tooldeck("tools")
    assert code == 2
    assert err.endswith("plugins.disable: expected a list of strings, got 'x'\n")
    assert "Traceback" not in err


def test_a_key_of_a_feature_not_in_this_version_exits_2_naming_it(project, tooldeck, monkeypatch):
    from tooldeck.host.config import config

    # Every feature has landed: pretend [output] configures one still to come.
    monkeypatch.setitem(config.NOT_YET_AVAILABLE, "output", config.Unavailable("a feature"))
    (project / "tooldeck.toml").write_text("[output]\nmax_lines = 5\n")
    code, _, err = tooldeck("tools")
    assert code == 2
    assert err.endswith(
        "tooldeck.toml: output.max_lines: not available in this version "
        "of tooldeck (a feature); remove it\n"
    )


def test_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from tooldeck.cli import main\n"
        "sys.exit(main(['--location', sys.argv[1], 'tools']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before anything is written
    _, err = proc.communicate(timeout=60)
    assert b"BrokenPipeError" not in err and b"Traceback" not in err


@pytest.mark.parametrize("columns", ["80", "200", "50", "20"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help_is_what_argparse_prints(monkeypatch, capsys, columns, flag):
    """The fast path (no argparse) prints argparse's exact text, or lets argparse do it."""
    monkeypatch.setenv("COLUMNS", columns)
    expected = build_parser().format_help()
    assert main([flag]) == 0
    assert capsys.readouterr().out == expected


def test_the_fast_help_is_used_when_it_fits(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    assert print_top_help(COMMANDS) is True
    assert capsys.readouterr().out.startswith("usage: tooldeck [-h]")
    monkeypatch.setenv("COLUMNS", "50")  # argparse would wrap: leave it to argparse
    assert print_top_help(COMMANDS) is False
    assert capsys.readouterr().out == ""


def test_help_and_version_do_not_import_argparse():
    probe = (
        "import sys, tooldeck.cli as c; c.main(['--version']); c.main(['--help']); "
        "print('argparse' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "100"},
        timeout=120,
    )
    assert done.stdout.splitlines()[-1] == "False"
