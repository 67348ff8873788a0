"""``tooldeck trust``, and what the other commands say in an untrusted folder."""

from __future__ import annotations

import io
import json

import pytest

from tooldeck.cli import main

from .conftest import GREET


class Terminal(io.StringIO):
    """Typed answers on a stdin that says it is a TTY."""

    def isatty(self):
        return True


@pytest.fixture
def repo(clean_env, monkeypatch):
    """A cloned folder: one plugin file, one project server, one allow rule; untrusted."""
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())
    root = clean_env / "repo"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "greet.py").write_text(GREET)
    (root / "tooldeck.toml").write_text(
        '[mcp.servers.evil]\ncommand = ["sh", "-c", "echo ran > marker"]\n\n'
        '[[permission]]\naction = "shell"\neffect = "allow"\n'
    )
    return root


@pytest.fixture
def run(capsys):
    def run(*args):
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_trust_shows_what_would_run_and_refuses_without_a_terminal(repo, run, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run("trust", str(repo))
    assert code == 1
    assert out.splitlines()[1:] == [
        "  Python files imported into tooldeck:",
        f"    .tooldeck/plugins/greet.py  (sha256 {out.split('sha256 ')[1][:12]})",
        "  MCP servers started (commands) or connected to (URLs):",
        "    evil: sh -c 'echo ran > marker'",
        "  permission rules that allow without asking:",
        "    allow shell on *",
    ]
    assert "run with --yes" in err
    assert run("trust", "--list")[1] == "no trusted folders\n"


@pytest.mark.parametrize(("typed", "trusted"), [("y\n", True), ("\n", False), ("no\n", False)])
def test_trust_asks_y_n_on_a_terminal(repo, run, monkeypatch, typed, trusted):
    monkeypatch.setattr("sys.stdin", Terminal(typed))
    code, out, _ = run("trust", str(repo))
    assert (code == 0) is trusted
    assert ("trusted (fingerprint" in out) is trusted
    assert (str(repo) in run("trust", "--list")[1]) is trusted


def test_yes_list_and_revoke(repo, run):
    assert run("trust", "--yes", str(repo))[0] == 0
    code, out, _ = run("trust", str(repo))
    assert (code, out.splitlines()[-1]) == (0, "already trusted")
    assert run("trust", "--list")[1].startswith(f"{repo}  (trusted ")
    assert run("trust", "--revoke", str(repo))[1] == f"no longer trusted: {repo}\n"
    assert run("trust", "--revoke", str(repo))[1] == f"was not trusted: {repo}\n"


def test_the_location_option_names_the_folder(repo, run):
    assert run("--location", str(repo), "trust", "--yes")[0] == 0
    assert run("trust", "--list")[1].startswith(f"{repo}  (trusted ")


def test_nothing_to_trust_says_so(clean_env, run):
    code, out, _ = run("trust", str(clean_env))
    assert code == 0 and "nothing here needs trust" in out


def test_untrusted_commands_print_one_line_and_rows(repo, run):
    code, out, err = run("--location", str(repo), "tools")
    assert code == 0
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]}
    assert rows == {"local:greet": "untrusted", "mcp:evil": "untrusted"}
    assert out.splitlines()[1].endswith(f"review and trust it with: tooldeck trust {repo}")
    assert err == (
        "tooldeck: this folder is not trusted; skipped its 1 plugin file, 1 MCP server, "
        f"1 allow rule. Review and trust it with: tooldeck trust {repo}\n"
    )
    assert not (repo / "marker").exists()
    code, out, err = run("--location", str(repo), "plugins", "--json")
    statuses = {p["name"]: p["status"] for p in json.loads(out)}
    assert statuses == {"mcp:evil": "untrusted", "local:greet": "untrusted"}
    assert len(err.splitlines()) == 1
    code, _, err = run("--location", str(repo), "call", "greet", '{"name": "x"}')
    assert code == 1 and err.splitlines()[0].startswith("tooldeck: this folder is not trusted")


def test_a_change_after_trust_is_named(repo, run):
    run("trust", "--yes", str(repo))
    (repo / ".tooldeck" / "plugins" / "greet.py").write_text(GREET + "\n# edited\n")
    _, _, err = run("--location", str(repo), "tools")
    assert err.startswith("tooldeck: this folder changed since it was trusted;")
    _, out, _ = run("trust", str(repo))
    assert out.splitlines()[-2:] == [
        "  changed since it was trusted:",
        "    changed plugin file .tooldeck/plugins/greet.py (its content differs)",
    ]


def test_trust_lists_a_principal_and_each_of_its_allow_rules(clean_env, run):
    root = clean_env / "served"
    root.mkdir()
    (root / "tooldeck.toml").write_text(
        '[mcp.serve.principals.alice]\ntoken_env = "ALICE_TOKEN"\n'
        '[[mcp.serve.principals.alice.permission]]\naction = "shell"\neffect = "allow"\n'
    )
    code, out, _ = run("trust", "--yes", str(root))
    assert code == 0
    assert out.splitlines()[1:5] == [
        "  principals `tooldeck mcp serve` lets in with their own token:",
        "    alice: logs in with the token in $ALICE_TOKEN, under 1 rule of its own",
        "  permission rules that allow without asking:",
        "    allow shell on * (principal alice)",
    ]
