from __future__ import annotations

import os

import pytest

from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject


@pytest.fixture
def write(builtins):
    builtins.load("write")
    return builtins


def text(outcome) -> str:
    return "\n".join(part.text for part in outcome.content)


async def test_creates_a_file_and_its_parent_directories(write, root, asker):
    outcome = await write.call("write", path="docs/notes/todo.md", content="- one\n- two\n")
    assert outcome.status == "completed"
    assert (root / "docs/notes/todo.md").read_text() == "- one\n- two\n"
    assert text(outcome) == "Created docs/notes/todo.md (2 lines, 12 bytes)."
    assert outcome.output == {
        "path": str(root / "docs/notes/todo.md"),
        "created": True,
        "changed": True,
        "lines": 2,
        "bytes": 12,
    }
    [request] = asker.asked("edit")
    assert request.resources == (str(root / "docs/notes/todo.md"),)
    assert request.metadata["diff"].startswith("--- /dev/null\n+++ docs/notes/todo.md\n")
    assert outcome.metadata["diff"] == request.metadata["diff"]
    assert outcome.metadata["created"] is True


async def test_overwrites_and_reports_the_diff(write, root, asker):
    (root / "a.txt").write_text("one\ntwo\n")
    outcome = await write.call("write", path="a.txt", content="one\nthree\n")
    assert (root / "a.txt").read_text() == "one\nthree\n"
    assert text(outcome) == "Overwrote a.txt (2 lines, 10 bytes)."
    assert outcome.output["created"] is False
    diff = asker.asked("edit")[0].metadata["diff"]
    assert diff == "--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n"
    assert (outcome.metadata["additions"], outcome.metadata["deletions"]) == (1, 1)


async def test_the_same_content_is_not_written_or_asked_about(write, root, asker):
    (root / "a.txt").write_text("same\n")
    outcome = await write.call("write", path="a.txt", content="same\n")
    assert text(outcome) == "a.txt already has this content (1 line, 5 bytes); not written."
    assert outcome.output["changed"] is False
    assert asker.requests == []


async def test_a_utf8_bom_and_crlf_endings_of_the_old_file_are_kept(write, root):
    (root / "win.txt").write_bytes(b"\xef\xbb\xbfold\r\n")
    await write.call("write", path="win.txt", content="new\nlines\n")
    assert (root / "win.txt").read_bytes() == b"\xef\xbb\xbfnew\r\nlines\r\n"


async def test_a_missing_last_newline_is_marked_in_the_diff(write, root):
    outcome = await write.call("write", path="a.txt", content="x")
    assert outcome.metadata["diff"].endswith("+x\n\\ No newline at end of file\n")


async def test_a_directory_is_refused_before_asking(write, root, asker):
    (root / "src").mkdir()
    outcome = await write.call("write", path="src", content="x")
    assert outcome.error.message == "src is a directory; write needs the path of a file."
    assert asker.requests == []


async def test_a_file_in_the_parent_path_fails_clearly(write, root):
    (root / "a.txt").write_text("")
    outcome = await write.call("write", path="a.txt/b.txt", content="x")
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message == (
        "Cannot write a.txt/b.txt: a part of its parent path is a file, not a directory."
    )


# -- permission ------------------------------------------------------------------------------
async def test_a_deny_rule_writes_nothing(builtins, root, tmp_path, asker):
    deny = PermissionRule(action="edit", resource="*", effect="deny")
    location = Location(
        root, config=Config(permission=(deny,)), data_dir=tmp_path / "d", asker=asker
    )
    denied = type(builtins)(location).load("write")
    outcome = await denied.call("write", path="new/a.txt", content="x")
    assert outcome.status == "failed" and outcome.error.type == "permission.rejected"
    assert not (root / "new").exists() and asker.requests == []


async def test_a_rejection_writes_nothing(write, root, asker):
    (root / "a.txt").write_text("keep\n")
    asker.replies["edit"] = "reject"
    assert (await write.call("write", path="a.txt", content="gone")).status == "declined"
    assert (await write.call("write", path="new/b.txt", content="x")).status == "declined"
    assert (root / "a.txt").read_text() == "keep\n"
    assert not (root / "new").exists()


async def test_a_rejection_with_feedback_fails_with_the_feedback(write, root, asker):
    asker.replies["edit"] = Reject("use the docs/ folder")
    outcome = await write.call("write", path="a.txt", content="x")
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert "use the docs/ folder" in outcome.error.message
    assert not (root / "a.txt").exists()


async def test_always_stops_asking_for_that_file(write, root, asker):
    asker.replies["edit"] = "always"
    await write.call("write", path="a.txt", content="1")
    await write.call("write", path="a.txt", content="2")
    assert (root / "a.txt").read_text() == "2"
    assert len(asker.asked("edit")) == 1


async def test_outside_the_location_asks_external_directory_before_edit(write, root, asker):
    outside = root.parent / "out.txt"
    outcome = await write.call("write", path="../out.txt", content="x")
    assert outcome.status == "completed" and outside.read_text() == "x"
    assert [r.action for r in asker.requests] == ["external_directory", "edit"]
    assert asker.requests[0].resources == (os.path.join(root.parent, "*"),)
    asker.replies["external_directory"] = "reject"
    assert (await write.call("write", path="../out.txt", content="y")).status == "declined"
    assert outside.read_text() == "x" and len(asker.asked("edit")) == 1


async def test_a_symlinked_file_pointing_outside_asks_for_its_real_directory(write, root, asker):
    target = root.parent / "elsewhere" / "real.txt"
    target.parent.mkdir()
    target.write_text("old\n")
    (root / "alias.txt").symlink_to(target)
    outcome = await write.call("write", path="alias.txt", content="new\n")
    assert outcome.status == "completed"
    assert [r.action for r in asker.requests] == ["external_directory", "edit"]
    assert asker.requests[0].resources == (os.path.join(target.parent, "*"),)
    # The edit ask and the write itself use the lexical path: the link is followed, kept.
    assert asker.requests[1].resources == (str(root / "alias.txt"),)
    assert (root / "alias.txt").is_symlink() and target.read_text() == "new\n"


async def test_the_tool_is_native_and_shares_the_edit_action(write):
    tool = write.service.snapshot().get("write")
    assert tool.codemode is False and tool.permission == "edit"


async def test_content_with_its_own_bom_onto_a_file_with_one_keeps_exactly_one(write, root):
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfold\n")
    outcome = await write.call("write", path="bom.txt", content="\ufeffnew\n")
    assert outcome.status == "completed"
    assert (root / "bom.txt").read_bytes() == b"\xef\xbb\xbfnew\n"
    again = await write.call("write", path="bom.txt", content="\ufeffnew\n")
    assert again.output["changed"] is False
