from __future__ import annotations

import os

import pytest

from tooldeck.host.permissions.request import Reject


def envelope(*lines: str) -> str:
    return "\n".join(("*** Begin Patch", *lines, "*** End Patch"))


def text_of(outcome) -> str:
    return "".join(part.text for part in outcome.content)


@pytest.fixture
def patch(builtins):
    builtins.load("patch")

    async def call(*lines: str):
        return await builtins.call("patch", patch_text=envelope(*lines))

    return call


async def test_add_update_delete_and_move_in_one_patch(patch, root, asker):
    (root / "app.py").write_text("def f():\n    return 1\n")
    (root / "old.txt").write_text("bye\n")
    (root / "a.txt").write_text("one\ntwo\n")
    outcome = await patch(
        "*** Add File: docs/new.md",
        "+# New",
        "*** Update File: app.py",
        "@@ def f():",
        "-    return 1",
        "+    return 2",
        "*** Delete File: old.txt",
        "*** Update File: a.txt",
        "*** Move to: b/a.txt",
        " one",
        "-two",
        "+2",
    )
    assert outcome.status == "completed", text_of(outcome)
    assert text_of(outcome) == (
        "Success. Updated the following files:\nA docs/new.md\nM app.py\nD old.txt\n"
        "M a.txt -> b/a.txt"
    )
    assert (root / "docs/new.md").read_text() == "# New\n"
    assert (root / "app.py").read_text() == "def f():\n    return 2\n"
    assert not (root / "old.txt").exists()
    assert not (root / "a.txt").exists()
    assert (root / "b/a.txt").read_text() == "one\n2\n"
    files = outcome.output["files"]
    assert [(f["status"], f["additions"], f["deletions"]) for f in files] == [
        ("A", 1, 0),
        ("M", 1, 1),
        ("D", 0, 1),
        ("M", 1, 1),
    ]
    assert files[3] == {
        "status": "M",
        "path": str(root / "b/a.txt"),
        "moved_from": str(root / "a.txt"),
        "additions": 1,
        "deletions": 1,
    }


async def test_one_edit_ask_covers_every_file_with_the_combined_diff(patch, root, asker):
    (root / "a.txt").write_text("x\n")
    (root / "m.txt").write_text("m\n")
    await patch(
        "*** Update File: a.txt",
        "-x",
        "+y",
        "*** Add File: n.txt",
        "+n",
        "*** Update File: m.txt",
        "*** Move to: moved.txt",
    )
    (ask,) = asker.asked()
    assert ask.action == "edit"
    assert ask.resources == tuple(
        str(root / name) for name in ("a.txt", "n.txt", "m.txt", "moved.txt")
    )
    assert "-x\n+y\n" in ask.metadata["diff"]
    assert "+n\n" in ask.metadata["diff"]
    assert ask.metadata["operations"] == ["M a.txt", "A n.txt", "M m.txt -> moved.txt"]
    assert ask.source == {"type": "tool", "message_id": "m1", "id": "call_1"}


async def test_every_hunk_is_verified_before_anything_is_written(patch, root, asker):
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b1\nb2\n")
    outcome = await patch(
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** Update File: b.txt",
        " b1",
        "-b2",
        "+B2",
        "@@",
        " b1",
        "-nope",
        "+x",
    )
    assert outcome.status == "failed"
    message = text_of(outcome)
    assert message.startswith("Patch not applied; nothing was written.")
    assert "Hunk 2 of b.txt does not match the file" in message
    assert "     b1\n    -nope\n    +x" in message
    assert (root / "a.txt").read_text() == "a\n"
    assert (root / "b.txt").read_text() == "b1\nb2\n"
    assert asker.asked() == []


async def test_rejected_means_declined_and_nothing_written(patch, root, asker):
    asker.replies["edit"] = "reject"
    outcome = await patch("*** Add File: new.txt", "+hi")
    assert outcome.status == "declined"
    assert not (root / "new.txt").exists()


async def test_feedback_fails_the_call_with_it_and_writes_nothing(patch, root, asker):
    (root / "a.txt").write_text("a\n")
    asker.replies["edit"] = Reject("use tabs")
    outcome = await patch("*** Delete File: a.txt")
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert "use tabs" in outcome.error.message
    assert (root / "a.txt").exists()


async def test_crlf_and_bom_are_kept(patch, root):
    (root / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    outcome = await patch("*** Update File: w.txt", " one", "-two", "+2", "+2b")
    assert outcome.status == "completed", text_of(outcome)
    assert (root / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n2b\r\nthree\r\n"


async def test_outside_paths_ask_external_directory_first_once_per_directory(
    patch, root, tmp_path, asker
):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.txt").write_text("a\n")
    outcome = await patch(
        f"*** Update File: {outside / 'a.txt'}",
        "-a",
        "+b",
        f"*** Add File: {outside / 'c.txt'}",
        "+c",
    )
    assert outcome.status == "completed", text_of(outcome)
    assert [(r.action, r.resources) for r in asker.asked()] == [
        ("external_directory", (f"{outside}/*",)),
        ("edit", (str(outside / "a.txt"), str(outside / "c.txt"))),
    ]
    assert (outside / "a.txt").read_text() == "b\n"
    assert f"M {outside / 'a.txt'}" in text_of(outcome)


async def test_a_path_that_cannot_be_written_fails_before_anything_is_written(patch, root, asker):
    (root / "blocker").write_text("a regular file\n")
    (root / "c.txt").write_text("c\n")
    outcome = await patch(
        "*** Add File: a.txt",
        "+a",
        "*** Add File: blocker/x.txt",
        "+x",
        "*** Update File: c.txt",
        "-c",
        "+C",
    )
    assert outcome.status == "failed"
    assert text_of(outcome) == (
        "Patch not applied; nothing was written. '*** Add File: blocker/x.txt': Cannot "
        "write blocker/x.txt: a part of its parent path is a file, not a directory."
    )
    assert not (root / "a.txt").exists() and (root / "c.txt").read_text() == "c\n"
    assert asker.asked() == []


async def test_operations_see_earlier_ones_of_the_same_patch(patch, root):
    (root / "a.txt").write_text("old\n")
    outcome = await patch(
        "*** Delete File: a.txt",
        "*** Add File: a.txt",
        "+new",
        "*** Update File: a.txt",
        "-new",
        "+newer",
    )
    assert outcome.status == "completed", text_of(outcome)
    assert (root / "a.txt").read_text() == "newer\n"


async def test_a_move_keeps_the_mode_and_refuses_to_overwrite(patch, root):
    script = root / "run.sh"
    script.write_text("echo 1\n")
    os.chmod(script, 0o755)
    (root / "taken.sh").write_text("mine\n")
    refused = await patch("*** Update File: run.sh", "*** Move to: taken.sh")
    assert "taken.sh already exists" in text_of(refused)
    outcome = await patch("*** Update File: run.sh", "*** Move to: bin/run.sh")
    assert outcome.status == "completed", text_of(outcome)
    assert os.stat(root / "bin/run.sh").st_mode & 0o777 == 0o755
    assert (root / "taken.sh").read_text() == "mine\n"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (("*** Add File: here.txt", "+x"), "here.txt already exists. Use '*** Update File:'"),
        (("*** Update File: missing.txt", "-x"), "File not found: missing.txt."),
        (("*** Delete File: missing.txt",), "Use '*** Add File:' to create it."),
        (("*** Delete File: dir",), "dir is a directory"),
        (("*** Update File: here.txt", "*** Move to: here.txt", "-nope"), "Hunk 1 of here.txt"),
        (("*** Delete File: here.txt", "*** Delete File: here.txt"), "an earlier operation"),
    ],
)
async def test_expected_problems_fail_before_writing(patch, root, asker, lines, expected):
    (root / "here.txt").write_text("here\n")
    (root / "dir").mkdir()
    outcome = await patch(*lines)
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert text_of(outcome).startswith("Patch not applied; nothing was written.")
    assert expected in text_of(outcome)
    assert (root / "here.txt").read_text() == "here\n"
    assert asker.asked() == []


async def test_invalid_patch_text_names_the_line(builtins):
    builtins.load("patch")
    outcome = await builtins.call("patch", patch_text="*** Begin Patch\n+x\n*** End Patch")
    assert outcome.status == "failed"
    assert text_of(outcome).startswith("Invalid patch: line 2: expected '*** Add File:'")


async def test_the_tool_is_native_with_the_edit_action(builtins):
    builtins.load("patch")
    (tool,) = [t for t in builtins.service.list() if t.name == "patch"]
    assert tool.codemode is False
    assert tool.permission == "edit"
    definition = builtins.service.snapshot().definitions_for("openai")[0]["function"]
    assert definition["name"] == "patch"
    assert "*** Begin Patch" in definition["description"]
    assert "patch_text" in definition["parameters"]["properties"]
