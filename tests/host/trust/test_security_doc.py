"""Every fenced block of ``docs/security.md`` runs, in a project that has a plugin to trust.

* The ``bash`` block's ``tooldeck trust`` lines run through the installed console script
  (``[DIR]`` the project), with no terminal as a script has, and each does what its
  comment and the page say; the y/N question is answered once on a real terminal too.
* The embedding host's ``python`` block runs in this process with the project as its
  working directory, its ``input()`` answered no, then yes, then not at all (a trusted
  folder asks nothing), then no after the plugin changed.
* ``docs/api.md``'s trust example (the same steps, shorter) runs the same way.

``tests/test_docs_meta.py`` keeps every block of the page run or marked
``<!-- not run: reason -->``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import grant_trust, trust_status, trusted_folders

from ...docs_blocks import Block, page

PAGE = page("security.md")
TRUST_COMMANDS = PAGE.take("bash", "tooldeck trust --yes [DIR]")
EMBEDDING = PAGE.take("python", "tooldeck.trust_status(path)")
API_EXAMPLE = page("api.md").take("python", "tooldeck.trust_status(path)")

CONSOLE_SCRIPT = Path(sys.executable).parent / "tooldeck"
PLUGIN = """\
import pathlib

pathlib.Path(__file__).with_name("imported").touch()  # proof that the file ran

from tooldeck import hookimpl, tool


@tool
def hello() -> str:
    '''Say hello.'''
    return "hello"


@hookimpl
def tool_transform(editor):
    editor.add(hello)
"""


@pytest.fixture
def project(clean_env: Path) -> Path:
    """A folder whose project brings one plugin file (XDG dirs and no TOOLDECK_* vars from
    ``clean_env``, so the trust store is this test's own)."""
    root = clean_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "hello.py").write_text(PLUGIN)
    return root


def imported(root: Path) -> bool:
    return (root / ".tooldeck" / "plugins" / "imported").exists()


# -- tooldeck trust -----------------------------------------------------------------------
def tooldeck(
    *args: str, stdin: int | None = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE_SCRIPT), *args], stdin=stdin, capture_output=True, text=True, timeout=60
    )


def documented_commands() -> list[list[str]]:
    """Each line of the block without its comment, split into words."""
    return [line.partition("#")[0].split() for line in TRUST_COMMANDS.code.splitlines()]


def test_the_trust_commands_do_what_the_page_says(project, tmp_path):
    other = tmp_path / "other"  # trusted beforehand, so --list has something to show
    (other / ".tooldeck" / "plugins").mkdir(parents=True)
    (other / ".tooldeck" / "plugins" / "x.py").write_text("")
    grant_trust(trust_status(other))
    shown = trust_status(project).describe()
    seen = []
    for words in documented_commands():
        assert words[:2] == ["tooldeck", "trust"]
        args = [str(project) if word == "[DIR]" else word for word in words[2:]]
        done = tooldeck("trust", *args)
        seen.append(args[0] if args[0].startswith("--") else "ask")
        trusted = trust_status(project).trusted
        if seen[-1] == "ask":  # no terminal, no --yes: exits 1 at once, stays untrusted
            assert (done.returncode, trusted) == (1, False)
            assert done.stdout == shown + "\n"  # exactly what would run
            assert "run with --yes" in done.stderr
        elif seen[-1] == "--yes":
            assert (done.returncode, trusted) == (0, True), done.stderr
            assert done.stdout.startswith(shown + "\n")
        elif seen[-1] == "--revoke":
            assert (done.returncode, trusted) == (0, False), done.stderr
            assert done.stdout == f"no longer trusted: {project.resolve()}\n"
        elif seen[-1] == "--list":
            assert (done.returncode, trusted) == (0, False), done.stderr
            listed = [line.split("  (trusted ")[0] for line in done.stdout.splitlines()]
            assert listed == [str(p) for p in trusted_folders()] == [str(other.resolve())]
            assert not imported(project)  # nothing of the project ran along the way
        else:
            pytest.fail(f"no check for the documented command {' '.join(words)!r}")
    assert seen == ["ask", "--yes", "--revoke", "--list"]


def test_trust_asks_y_n_on_a_terminal(project):
    """The first line's "y/N on a terminal": a real pseudo-terminal answers y."""
    terminal, answer_end = os.openpty()
    try:
        os.write(terminal, b"y\n")
        done = tooldeck("trust", str(project), stdin=answer_end)
    finally:
        os.close(terminal)
        os.close(answer_end)
    assert done.returncode == 0, done.stderr
    assert "Trust this folder? [y/N] trusted (fingerprint " in done.stdout
    assert trust_status(project).trusted


# -- an embedding host ----------------------------------------------------------------------
def run_embedding(
    answers: str, monkeypatch: pytest.MonkeyPatch, capsys, block: Block = EMBEDDING
) -> list[str]:
    """The block's output lines, its ``input()`` reading ``answers``."""
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    exec(compile(block.code, str(block), "exec"), {"__name__": "__doc_example__"})
    return capsys.readouterr().out.splitlines()


def test_the_embedding_example_asks_records_and_opens(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    status = trust_status(project)
    no = run_embedding("n\n", monkeypatch, capsys)
    assert "\n".join(no[:-2]) == status.describe()  # the CLI's text: what would run
    assert no[-2] == f"Trust this folder? [y/N] {status.notice()}"
    assert no[-2].endswith(f"Review and trust it with: tooldeck trust {project.resolve()}")
    assert no[-1] == "untrusted ['untrusted']"
    assert not imported(project)

    yes = run_embedding("y\n", monkeypatch, capsys)
    assert "\n".join(yes[:-1]) == status.describe()
    assert yes[-1] == "Trust this folder? [y/N] store ['active']"  # no notice: trusted
    assert imported(project)
    assert trust_status(project).fingerprint == status.fingerprint  # what was shown

    assert run_embedding("", monkeypatch, capsys) == ["store ['active']"]  # nothing asked

    plugin = project / ".tooldeck" / "plugins" / "hello.py"
    plugin.write_text(plugin.read_text() + "\n# edited after trust\n")  # a `git pull`
    (project / ".tooldeck" / "plugins" / "imported").unlink()
    changed = run_embedding("n\n", monkeypatch, capsys)
    assert "  changed since it was trusted:" in changed
    assert "    changed plugin file .tooldeck/plugins/hello.py (its content differs)" in changed
    assert "tooldeck: this folder changed since it was trusted; " in changed[-2]
    assert changed[-1] == "untrusted ['untrusted']"
    assert not imported(project)


def test_the_api_reference_example_asks_and_opens(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    shown = trust_status(project).describe()
    no = run_embedding("n\n", monkeypatch, capsys, API_EXAMPLE)
    assert "\n".join(no[:-1]) == shown
    assert no[-1] == "Trust this folder? [y/N] False untrusted"
    assert not imported(project)
    yes = run_embedding("y\n", monkeypatch, capsys, API_EXAMPLE)
    assert yes[-1] == "Trust this folder? [y/N] True store"
    assert imported(project)
    assert run_embedding("", monkeypatch, capsys, API_EXAMPLE) == ["True store"]
