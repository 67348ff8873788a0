"""``[format]``: the formatter ``write``, ``edit`` and ``patch`` run on what they changed."""

from __future__ import annotations

import shlex
import sys

import pytest

from tooldeck.host.config.config import Config
from tooldeck.host.location.location import Location

UPPER = "import sys; p = sys.argv[1]; t = open(p).read(); open(p, 'w').write(t.upper())"
MANGLE_THEN_FAIL = "import sys; open(sys.argv[1], 'w').write('half'); print('bad input'); exit(3)"


def formatting(builtins, root, tmp_path, asker, script: str, pattern: str = "*.txt"):
    """The write tools on a Location whose ``[format]`` runs ``script`` on ``pattern``."""
    config = Config.model_validate(
        {"format": {pattern: [sys.executable, "-c", script, "$FILE"]}}, strict=False
    )
    location = Location(root, config=config, data_dir=tmp_path / "data2", asker=asker)
    return type(builtins)(location).load("write", "edit", "patch")


def text(outcome) -> str:
    return "\n".join(part.text for part in outcome.content)


async def test_write_runs_the_formatter_and_says_the_text_changed(builtins, root, tmp_path, asker):
    tools = formatting(builtins, root, tmp_path, asker, UPPER)
    outcome = await tools.call("write", path="a.txt", content="hello\n")
    assert outcome.status == "completed"
    assert (root / "a.txt").read_text() == "HELLO\n"
    command = shlex.join([sys.executable, "-c", UPPER, str(root / "a.txt")])
    assert text(outcome) == (
        f"Created a.txt (1 line, 6 bytes).\nFormatted with {command}: the text changed."
    )
    assert outcome.metadata["formatted"] == [
        {"path": str(root / "a.txt"), "command": command, "status": "changed"}
    ]
    assert [r.action for r in asker.requests] == ["edit", "shell"]
    assert asker.asked("shell")[0].resources == (command,)


async def test_edit_and_patch_format_each_file_they_changed(builtins, root, tmp_path, asker):
    tools = formatting(builtins, root, tmp_path, asker, UPPER)
    (root / "a.txt").write_text("one\n")
    edited = await tools.call("edit", path="a.txt", old_string="one", new_string="two")
    assert edited.metadata["formatted"][0]["status"] == "changed"
    assert (root / "a.txt").read_text() == "TWO\n"
    patch = "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** Add File: c.md\n+sea\n*** End Patch"
    patched = await tools.call("patch", patch_text=patch)
    assert patched.status == "completed"
    assert [f["path"] for f in patched.metadata["formatted"]] == [str(root / "b.txt")]
    assert (root / "b.txt").read_text() == "BEE\n" and (root / "c.md").read_text() == "sea\n"


async def test_a_formatter_that_changes_nothing_says_so(builtins, root, tmp_path, asker):
    tools = formatting(builtins, root, tmp_path, asker, "pass")
    outcome = await tools.call("write", path="a.txt", content="x\n")
    assert text(outcome).endswith("left the text unchanged.")
    assert outcome.metadata["formatted"][0]["status"] == "unchanged"


async def test_a_failing_formatter_leaves_the_file_as_written(builtins, root, tmp_path, asker):
    tools = formatting(builtins, root, tmp_path, asker, MANGLE_THEN_FAIL)
    outcome = await tools.call("write", path="a.txt", content="as written\n")
    assert outcome.status == "completed"
    assert (root / "a.txt").read_text() == "as written\n"
    assert "failed (exit code 3: bad input); a.txt stays as written (the write itself " in (
        text(outcome)
    )
    assert outcome.metadata["formatted"][0]["status"] == "failed"


async def test_a_formatter_that_cannot_start_says_so(builtins, root, tmp_path, asker):
    config = Config.model_validate({"format": {"*": ["no-such-formatter-x", "$FILE"]}})
    location = Location(root, config=config, data_dir=tmp_path / "d", asker=asker)
    tools = type(builtins)(location).load("write")
    outcome = await tools.call("write", path="a.txt", content="x\n")
    assert outcome.status == "completed" and (root / "a.txt").read_text() == "x\n"
    assert "The formatter no-such-formatter-x" in text(outcome)
    assert "could not start" in text(outcome)


async def test_declining_the_formatter_writes_nothing(builtins, root, tmp_path, asker):
    tools = formatting(builtins, root, tmp_path, asker, UPPER)
    asker.replies["shell"] = "reject"
    outcome = await tools.call("write", path="a.txt", content="x\n")
    assert outcome.status == "declined"
    assert not (root / "a.txt").exists()


async def test_patterns_with_a_slash_match_the_path_and_outside_files_are_left(
    builtins, root, tmp_path, asker
):
    tools = formatting(builtins, root, tmp_path, asker, UPPER, pattern="src/*.txt")
    await tools.call("write", path="src/a.txt", content="a\n")
    await tools.call("write", path="a.txt", content="a\n")
    await tools.call("write", path=str(tmp_path / "outside.txt"), content="a\n")
    assert (root / "src/a.txt").read_text() == "A\n"
    assert (root / "a.txt").read_text() == "a\n"
    assert (tmp_path / "outside.txt").read_text() == "a\n"


@pytest.mark.slow
async def test_a_formatter_that_times_out_is_stopped(builtins, root, tmp_path, asker):
    script = "import sys, time; open(sys.argv[1], 'w').write('half'); time.sleep(60)"
    tools = formatting(builtins, root, tmp_path, asker, script)
    outcome = await tools.call("write", path="a.txt", content="whole\n")
    assert outcome.status == "completed"
    assert "timed out after 10 s; a.txt stays as written" in text(outcome)
    assert (root / "a.txt").read_text() == "whole\n"


def test_a_formatter_must_name_a_program():
    with pytest.raises(ValueError, match="must start with the program to run"):
        Config.model_validate({"format": {"*.py": []}})
