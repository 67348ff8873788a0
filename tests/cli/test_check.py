"""``tooldeck check``: one pack alone, with the built-ins."""

from __future__ import annotations

import sys
import types

import pytest

from tooldeck import Tool, ToolResult, hookimpl

from .conftest import trust


@pytest.fixture
def builtin_read(monkeypatch):
    module = types.ModuleType("tooldeck.builtin_plugins.fake_read")
    module.tool_transform = hookimpl(
        lambda editor: editor.add(
            Tool(
                name="read",
                description="Read.",
                codemode=False,
                execute=lambda i, c: ToolResult(content=""),
            )
        )
    )
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ("fake_read",))


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_good_project(tooldeck, project):
    code, out, _ = tooldeck("check", str(project))
    assert code == 0
    assert out.splitlines() == [
        "local:a_greet: ok (fun_joke)",
        "local:b_loud: ok (greet)",
        "local:c_secret: ok (secret)",
        "no problems found",
    ]


def test_one_file(tooldeck, project):
    code, out, _ = tooldeck("check", str(project / ".tooldeck" / "plugins" / "a_greet.py"))
    assert code == 0
    assert out.splitlines()[0] == "local:a_greet: ok (fun_joke, greet)"


def test_problems_are_all_reported(tooldeck, tmp_path, builtin_read):
    bad = write(
        tmp_path / "bad.py",
        """
from tooldeck import Tool, ToolResult, hookimpl
run = lambda i, c: ToolResult(content="")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="read", description="Mine.", execute=run))
    editor.add(Tool(name="x" * 70, description="too long a name", execute=run))
    editor.add(Tool(name="bad_schema", description="x", execute=run, input={"type": 5}))
""",
    )
    code, out, _ = tooldeck("check", str(bad))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "local:bad: problems (read)"
    assert sum(line.startswith("    refused: ") for line in lines) == 2
    assert (
        "    collision: tool 'read' replaces the built-in from builtin:fake_read "
        "(intended? pass --allow-override read)"
    ) in lines
    assert lines[-1] == "3 problems found"


def test_an_intended_override_is_reported_but_allowed(tooldeck, tmp_path, builtin_read):
    pack = write(
        tmp_path / "safer.py",
        """
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="read", description="Safer.", execute=lambda i, c: ToolResult("")))
""",
    )
    code, out, _ = tooldeck("check", "--allow-override", "read", str(pack))
    assert code == 0
    assert "    overrides: tool 'read' replaces the built-in from builtin:fake_read (allowed)" in (
        out.splitlines()
    )
    assert out.splitlines()[-1] == "no problems found"


def test_a_signature_problem(tooldeck, tmp_path):
    bad = write(
        tmp_path / "sig.py",
        "from tooldeck import hookimpl\n@hookimpl\ndef tool_transform(editor, extra): pass\n",
    )
    code, out, _ = tooldeck("check", str(bad))
    assert code == 1
    assert out.startswith("local:sig: failed: invalid hookimpl: ")
    assert "Traceback" in out and out.endswith("1 problem found\n")


def test_a_source_tree_with_entry_points(tooldeck, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.path", list(sys.path))
    monkeypatch.delitem(sys.modules, "cktest_pack", raising=False)
    write(
        tmp_path / "pack" / "pyproject.toml",
        '[project]\nname = "CkTest_Pack"\n'
        'version = "2.0"\n[project.entry-points.tooldeck]\nmain = "cktest_pack:Plugin"\n',
    )
    write(
        tmp_path / "pack" / "src" / "cktest_pack.py",
        """
from tooldeck import Tool, ToolResult, hookimpl

class Plugin:
    @hookimpl
    def tool_transform(editor):
        editor.add(Tool(name="ck", description="Ck.", execute=lambda i, c: ToolResult()))
""",
    )
    code, out, _ = tooldeck("check", str(tmp_path / "pack"))
    assert (code, out) == (0, "cktest-pack: ok (ck)\nno problems found\n")


def test_targets_that_are_not_packs(tooldeck, tmp_path):
    (tmp_path / "notes.txt").write_text("")
    assert tooldeck("check", str(tmp_path / "notes.txt"))[0] == 2
    assert tooldeck("check", str(tmp_path))[0] == 2
    assert tooldeck("check", "./missing")[0] == 2
    code, _, err = tooldeck("check", "no-such-dist-anywhere")
    assert code == 2 and "no installed distribution 'no-such-dist-anywhere'" in err


def test_session_transforms_are_run_and_checked(tooldeck, tmp_path, builtin_read):
    good = write(
        tmp_path / "todo.py",
        """
from tooldeck import Tool, ToolResult, hookimpl
run = lambda i, c: ToolResult(content="")

@hookimpl
def session_transform(editor, session_id):
    editor.add(Tool(name="todo_read", description="Read.", execute=run))
""",
    )
    code, out, _ = tooldeck("check", str(good))
    assert (code, out.splitlines()) == (
        0,
        ["local:todo: ok (no tools; per session: todo_read)", "no problems found"],
    )

    bad = write(
        tmp_path / "bad.py",
        """
from tooldeck import Tool, ToolResult, hookimpl
run = lambda i, c: ToolResult(content="")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="fine", description="Fine.", execute=run))

@hookimpl
def session_transform(editor, session_id):
    editor.add(Tool(name="x" * 70, description="too long a name", execute=run))
    editor.add(Tool(name="kept", description="Kept.", execute=run))
""",
    )
    code, out, _ = tooldeck("check", str(bad))
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == "local:bad: problems (fine; per session: kept)"
    assert lines[1].startswith("    refused in a session: source 'local:bad', tool 'xxx")
    assert lines[-1] == "1 problem found"

    raising = write(
        tmp_path / "raising.py",
        """
from tooldeck import hookimpl

@hookimpl
def session_transform(session_id):
    raise LookupError(f"no credentials for {session_id}")
""",
    )
    code, out, _ = tooldeck("check", str(raising))
    assert code == 1
    assert (
        "    session_transform failed: transform raised PluginError: plugin "
        "'local:raising': hook 'session_transform' raised LookupError: no credentials "
        "for tooldeck-check; source disabled"
    ) in out.splitlines()
    assert "Traceback" in out


def test_each_refused_tool_is_printed_once_and_missed_targets_are_warnings(tooldeck, tmp_path):
    pack = write(
        tmp_path / "typo.py",
        """
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="x" * 70, description="too long", execute=lambda i, c: None))
    editor.update("raed", lambda tool: tool.replace(description="Typo."))
    editor.remove("shel")
""",
    )
    code, out, err = tooldeck("check", str(pack))
    assert code == 1
    assert (out + err).count("name must be 1-64 characters") == 1
    assert out.splitlines()[2:] == [
        "    warning: source 'local:typo', tool 'raed': update('raed') did nothing: no tool "
        "has that effective name here",
        "    warning: source 'local:typo', tool 'shel': remove('shel') did nothing: no tool "
        "has that effective name here",
        "1 problem found (2 warnings)",
    ]


def test_warnings_alone_are_not_problems(tooldeck, tmp_path):
    pack = write(
        tmp_path / "other.py",
        """
from tooldeck import hookimpl

@hookimpl
def tool_transform(editor):
    editor.remove("git_push")   # another pack's tool, not loaded by check
""",
    )
    code, out, _ = tooldeck("check", str(pack))
    assert code == 0
    assert out.splitlines()[0] == "local:other: ok (no tools)"
    assert out.splitlines()[-1] == "no problems found (1 warning)"


def untrusted_folder(tmp_path):
    """A folder never trusted whose local plugin would leave a mark when imported."""
    folder = tmp_path / "cloned"
    mark = tmp_path / "imported"
    write(
        folder / ".tooldeck" / "plugins" / "sneaky.py",
        f"import pathlib\nfrom tooldeck import hookimpl\n"
        f"pathlib.Path({str(mark)!r}).write_text('ran')\n"
        "@hookimpl\ndef tool_transform(editor): pass\n",
    )
    return folder, mark


def test_a_folders_local_plugins_are_not_imported_unless_it_is_trusted(tooldeck, tmp_path):
    folder, mark = untrusted_folder(tmp_path)
    code, _, err = tooldeck("check", str(folder))
    assert code == 2 and not mark.exists()
    assert (
        f"{folder}: its .tooldeck/plugins (1 plugin file) were not imported: this folder is "
        f"not trusted. Review them, then run tooldeck check --trust {folder} (or trust the "
        f"folder: tooldeck trust {folder})"
    ) in err


def test_trust_imports_a_folders_local_plugins_for_the_check(tooldeck, tmp_path):
    folder, mark = untrusted_folder(tmp_path)
    code, out, _ = tooldeck("check", "--trust", str(folder))
    assert (code, out) == (0, "local:sneaky: ok (no tools)\nno problems found\n")
    assert mark.read_text() == "ran"


def test_a_trusted_folders_local_plugins_are_checked(tooldeck, tmp_path):
    folder, mark = untrusted_folder(tmp_path)
    trust(folder)
    assert tooldeck("check", str(folder))[:2] == (
        0,
        "local:sneaky: ok (no tools)\nno problems found\n",
    )
    assert mark.exists()


def test_an_untrusted_source_tree_checks_its_entry_points_alone(tooldeck, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.path", list(sys.path))
    monkeypatch.delitem(sys.modules, "cktest_solo", raising=False)
    folder, mark = untrusted_folder(tmp_path)
    write(
        folder / "pyproject.toml",
        '[project]\nname = "cktest-solo"\n[project.entry-points.tooldeck]\nmain = "cktest_solo"\n',
    )
    write(
        folder / "cktest_solo.py",
        "from tooldeck import hookimpl\n@hookimpl\ndef tool_transform(editor): pass\n",
    )
    code, out, err = tooldeck("check", str(folder))
    assert (code, out) == (0, "cktest-solo: ok (no tools)\nno problems found\n")
    assert "were not imported: this folder is not trusted" in err and not mark.exists()
