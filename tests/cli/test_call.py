"""``tooldeck call``: input forms, permission asks, exit codes."""

from __future__ import annotations

import io
import json

import pytest

from .conftest import trust


class Terminal(io.StringIO):
    """Typed answers on a stdin that says it is a TTY."""

    def isatty(self):
        return True


def test_inline_json(tooldeck):
    assert tooldeck("call", "greet", '{"name": "Ada"}') == (0, "HELLO, ADA!\n", "")


def test_json_from_a_file_and_from_stdin(tooldeck, tmp_path, monkeypatch):
    (tmp_path / "in.json").write_text('{"name": "Bo"}')
    assert tooldeck("call", "greet", f"@{tmp_path / 'in.json'}")[:2] == (0, "HELLO, BO!\n")
    monkeypatch.setattr("sys.stdin", io.StringIO('{"name": "Cy"}'))
    assert tooldeck("call", "greet", "-")[:2] == (0, "HELLO, CY!\n")


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("{nope", "input is not valid JSON"),
        ("[1]", "input must be a JSON object, got list"),
        ("@/no/such/file.json", "cannot read /no/such/file.json"),
    ],
)
def test_bad_input_is_a_usage_error(tooldeck, argument, message):
    code, _, err = tooldeck("call", "greet", argument)
    assert code == 2 and message in err


def test_a_failed_call_exits_1(tooldeck):
    code, out, err = tooldeck("call", "greet", "{}")
    assert (code, out) == (1, "")
    assert "greet: failed (tool.execution)" in err and "name" in err


def test_an_unknown_tool_exits_1(tooldeck):
    code, _, err = tooldeck("call", "nope")
    assert code == 1 and "Tool 'nope' is not available" in err


def test_without_a_terminal_asks_are_declined_saying_no_one_could_be_asked(tooldeck):
    code, out, err = tooldeck("call", "secret")
    assert (code, out) == (1, "")
    assert "declined this tool call" not in err
    assert err == (
        "tooldeck: secret: not run: it needs permission (secret on vault) and no one could be "
        "asked (stdin is not a terminal).\n"
        'Allow it for this run with --yes (answers "once" to every ask), or from now on with '
        "a rule in tooldeck.toml (a project's allow rules count once the folder is trusted: "
        "run `tooldeck trust` after adding it):\n\n"
        '[[permission]]\naction = "secret"\nresource = "vault"\neffect = "allow"\n'
    )


def test_the_rule_the_message_names_allows_the_call(tooldeck, project):
    (project / "tooldeck.toml").write_text(tooldeck("call", "secret")[2].split("\n\n", 1)[1])
    assert tooldeck("call", "secret")[0] == 1  # a new allow rule: untrusted until reviewed
    trust(project)
    assert tooldeck("call", "secret")[:2] == (0, "the secret\n")


def test_yes_allows_once(tooldeck):
    assert tooldeck("call", "secret", "--yes")[:2] == (0, "the secret\n")
    assert tooldeck("call", "secret")[0] == 1  # nothing was saved


def test_terminal_prompt_once(tooldeck, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal("?\nonce\n"))
    code, out, err = tooldeck("call", "secret")
    assert (code, out) == (0, "the secret\n")
    assert "permission requested: secret on vault" in err
    assert err.count("[o]nce, [a]lways, [r]eject, reject with [f]eedback? ") == 2


def test_terminal_prompt_always_saves_the_approval(tooldeck, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal("a\n"))
    assert tooldeck("call", "secret")[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert tooldeck("call", "secret")[:2] == (0, "the secret\n")


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("r\n", "secret: declined"),
        ("", "secret: declined"),  # end of input counts as reject
        ("f\nuse the public key\n", "not allowed: use the public key"),
    ],
)
def test_terminal_prompt_rejections(tooldeck, monkeypatch, typed, expected):
    monkeypatch.setattr("sys.stdin", Terminal(typed))
    code, out, err = tooldeck("call", "secret")
    assert (code, out) == (1, "")
    assert expected in err


def server_question(message: str, schema: dict):
    """The request a mounted server ``talk``'s form question becomes for the asker."""
    from types import MappingProxyType

    from tooldeck import PermissionRequest

    return PermissionRequest(
        "elicitation",
        ("talk",),
        (),
        MappingProxyType({"server": "talk", "message": message, "schema": schema}),
        MappingProxyType({"type": "mcp", "server": "talk"}),
    )


def test_a_mounted_servers_question_is_shown_with_what_accepting_sends(monkeypatch, capsys):
    from tooldeck.cli.call import ask_on_terminal

    schema = {"properties": {"colour": {"type": "string", "default": "teal"}, "name": {}}}
    request = server_question("Which colour?", schema)
    monkeypatch.setattr("sys.stdin", io.StringIO("o\n"))
    assert ask_on_terminal(request) == "once"
    shown = capsys.readouterr().err
    assert "MCP server 'talk' asks: Which colour?" in shown
    assert "colour: 'teal'" in shown and "name: (no default)" in shown


def test_a_page_on_a_look_alike_host_is_flagged_on_the_terminal(monkeypatch, capsys):
    from dataclasses import replace
    from types import MappingProxyType

    from tooldeck.cli.call import ask_on_terminal

    question = server_question("Sign in", {})
    metadata = {**question.metadata, "url": "https://\u0430pple.com/signin"}
    monkeypatch.setattr("sys.stdin", io.StringIO("r\n"))
    assert ask_on_terminal(replace(question, metadata=MappingProxyType(metadata))) == "reject"
    shown = capsys.readouterr().err
    assert "  it wants you to open: https://\u0430pple.com/signin\n" in shown
    assert "  careful: the page's host 'xn--pple-43d.com' is written with non-ASCII" in shown


def test_the_terminal_prompt_shows_what_the_tool_attached(clean_env, monkeypatch, capsys):
    """The user approves what they see: an edit's diff, a command's description."""
    from tooldeck.cli import main

    root = clean_env / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "")  # the built-ins only
    monkeypatch.setattr("sys.stdin", Terminal("o\n"))
    edit = '{"path": "a.txt", "old_string": "one", "new_string": "two"}'
    assert main(["--location", str(root), "call", "edit", edit]) == 0
    err = capsys.readouterr().err
    assert f"permission requested: edit on {root / 'a.txt'}\n" in err
    assert "\n-one\n+two\n" in err  # the diff, as the tool attached it
    assert (root / "a.txt").read_text() == "two\n"


def test_prompt_metadata_is_shown_short(monkeypatch, capsys):
    from types import MappingProxyType

    from tooldeck import PermissionRequest
    from tooldeck.cli.call import ask_on_terminal

    metadata = {
        "path": "/p/NOTES.md",  # the question names it already: not repeated
        "note": "Ship on Friday",
        "files": ["a", "b"],
        "big": "x" * 500,
        "n": 3,
    }
    request = PermissionRequest(
        "edit", ("/p/NOTES.md",), (), MappingProxyType(metadata), MappingProxyType({})
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("r\n"))
    assert ask_on_terminal(request) == "reject"
    shown = capsys.readouterr().err.splitlines()
    assert shown[:5] == [
        "tooldeck: permission requested: edit on /p/NOTES.md",
        "  note: Ship on Friday",
        '  files: ["a", "b"]',
        f"  big: {'x' * 197}...",
        "  n: 3",
    ]


def test_a_question_is_printed_not_obeyed(monkeypatch, capsys):
    """A repository's file name or a mounted server's form may hold an escape sequence
    that would redraw the terminal; it is shown as an escape instead."""
    from types import MappingProxyType

    from tooldeck import PermissionRequest
    from tooldeck.cli.call import ask_on_terminal

    edit = PermissionRequest(
        "edit", ("/p/\x1b[2Ka.txt",), (), MappingProxyType({}), MappingProxyType({})
    )
    form = {"properties": {"ok\x1b]0;owned\x07": {}, "x\nallow": {"default": "y"}}}
    question = server_question("Sure?", form)
    monkeypatch.setattr("sys.stdin", io.StringIO("r\nr\n"))
    assert ask_on_terminal(edit) == ask_on_terminal(question) == "reject"
    shown = capsys.readouterr().err
    assert "\x1b" not in shown and "\x07" not in shown
    assert "edit on /p/\\x1b[2Ka.txt\n" in shown
    assert "  ok\\x1b]0;owned\\x07: (no default)\n" in shown
    assert "  x\\x0aallow: 'y'\n" in shown


# -- --json -----------------------------------------------------------------------------------
def test_json_prints_the_whole_outcome(tooldeck):
    code, out, err = tooldeck("call", "greet", '{"name": "Ada"}', "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "status": "completed",
        "content": [{"type": "text", "text": "HELLO, ADA!"}],
        "metadata": {},
        "output": None,
        "error": None,
    }
    assert list(json.loads(out)) == ["status", "content", "metadata", "output", "error"]


def test_json_of_a_failed_call_exits_1_with_the_error_on_stdout(tooldeck):
    code, out, err = tooldeck("call", "greet", "{}", "--json")
    outcome = json.loads(out)
    assert (code, err) == (1, "")
    assert outcome["status"] == "failed" and outcome["error"]["type"] == "tool.execution"
    assert outcome["content"][0]["text"].startswith("Invalid input for tool 'greet':")


def test_json_of_an_unasked_decline_still_says_what_would_allow_it(tooldeck):
    code, out, err = tooldeck("call", "secret", "--json")
    assert code == 1 and json.loads(out)["status"] == "declined"
    assert err.startswith("tooldeck: secret: not run: it needs permission (secret on vault)")


# -- plugins that failed ----------------------------------------------------------------------
def test_a_plugin_that_failed_to_load_is_named_on_stderr(tooldeck, project, monkeypatch):
    (project / ".tooldeck" / "plugins" / "d_broken.py").write_text("import no_such_module_x\n")
    trust(project)
    monkeypatch.setenv(
        "TOOLDECK_LOAD_PLUGINS", "local:a_greet,local:b_loud,local:c_secret,local:d_broken"
    )
    code, out, err = tooldeck("call", "greet", '{"name": "Ada"}')
    assert (code, out) == (0, "HELLO, ADA!\n")
    assert err == (
        "tooldeck: 1 plugin failed to load: local:d_broken (executing d_broken.py raised "
        "ModuleNotFoundError: No module named 'no_such_module_x') — tooldeck plugins\n"
    )


@pytest.mark.parametrize("command", ["call", "run-code"])
def test_help_states_the_exit_codes(tooldeck, monkeypatch, command):
    """Scripts branch on them, and the docs send readers here for them."""
    monkeypatch.setenv("COLUMNS", "2000")  # one line per paragraph
    code, out, _ = tooldeck(command, "--help")
    assert code == 0
    assert (
        "Exit status: 0 when the call completed; 1 when it failed, was declined or was "
        "interrupted (an ask no one could answer included); 2 when the command could not "
        "make the call (input that is not a JSON object, a config or store error, no "
        "code-mode tools for run-code)." in out
    )
