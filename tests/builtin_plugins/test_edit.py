from __future__ import annotations

import pytest

from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject


@pytest.fixture
def edit(builtins):
    builtins.load("edit")
    return builtins


def text(outcome) -> str:
    return "\n".join(part.text for part in outcome.content)


CODE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


# -- exact matches ---------------------------------------------------------------------------
async def test_replaces_one_exact_match_and_shows_the_result(edit, root, asker):
    (root / "m.py").write_text(CODE)
    outcome = await edit.call("edit", path="m.py", old_string="return 2", new_string="return 3")
    assert outcome.status == "completed"
    assert (root / "m.py").read_text() == CODE.replace("return 2", "return 3")
    assert text(outcome) == (
        "Edited m.py: 1 replacement at line 6.\n4:\n5: def g():\n6:     return 3"
    )
    assert outcome.output == {
        "path": str(root / "m.py"),
        "replacements": 1,
        "match": "exact",
        "lines": [6],
    }
    [request] = asker.asked("edit")
    assert request.resources == (str(root / "m.py"),)
    assert "-    return 2\n+    return 3\n" in request.metadata["diff"]
    assert outcome.metadata["diff"] == request.metadata["diff"]


async def test_several_matches_need_more_context_or_replace_all(edit, root, asker):
    (root / "m.py").write_text(CODE)
    outcome = await edit.call("edit", path="m.py", old_string="    return", new_string="  yield")
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message == (
        "old_string matches 2 places in m.py (lines 2, 6). Add more surrounding lines to "
        "old_string so it matches exactly one place, or set replace_all to true to replace "
        "all 2."
    )
    assert asker.requests == [] and (root / "m.py").read_text() == CODE
    every = await edit.call(
        "edit", path="m.py", old_string="return", new_string="yield", replace_all=True
    )
    assert (root / "m.py").read_text() == CODE.replace("return", "yield")
    assert text(every) == "Edited m.py: 2 replacements at lines 2, 6."
    assert every.output["replacements"] == 2


async def test_no_match_says_how_to_recover_and_points_at_the_closest_line(edit, root):
    (root / "m.py").write_text(CODE)
    outcome = await edit.call("edit", path="m.py", old_string="def gg(x):", new_string="x")
    assert outcome.error.message == (
        "old_string was not found in m.py. It must match the file exactly, including "
        "whitespace and indentation: read the file again and copy the text to replace.\n"
        "The most similar line is 5: def g():"
    )


async def test_line_numbers_copied_from_read_are_pointed_out(edit, root):
    (root / "m.py").write_text(CODE)
    outcome = await edit.call(
        "edit", path="m.py", old_string="1: def f():\n2:     return 1", new_string="x"
    )
    assert outcome.error.message.endswith(
        "old_string seems to include `N: ` line numbers from read; remove them."
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("same", "same", "old_string and new_string are identical, so there is nothing to do."),
        (
            "",
            "x",
            "old_string is empty. To create a file or replace all of its content, use "
            "write; to insert text, include the line before or after it in old_string.",
        ),
    ],
)
async def test_useless_strings_are_rejected_before_anything_is_asked(
    edit, root, asker, old, new, message
):
    outside = root.parent / "o.txt"
    outside.write_text("same\n")
    for path in ("o.txt", "../o.txt"):
        outcome = await edit.call("edit", path=path, old_string=old, new_string=new)
        assert outcome.status == "failed" and outcome.error.message == message
    assert asker.requests == []


async def test_a_missing_file_suggests_names_and_write(edit, root):
    (root / "main.py").write_text("")
    outcome = await edit.call("edit", path="mian.py", old_string="a", new_string="b")
    assert outcome.error.message == (
        "File not found: mian.py. Did you mean: main.py? To create a new file, use write."
    )


async def test_binary_and_non_utf8_files_are_refused(edit, root):
    (root / "a.bin").write_bytes(b"\x00\x01abc")
    (root / "b.txt").write_bytes(b"caf\xe9\n")
    binary = await edit.call("edit", path="a.bin", old_string="abc", new_string="x")
    assert binary.error.message == "a.bin is a binary file (5 bytes) and cannot be edited."
    latin = await edit.call("edit", path="b.txt", old_string="caf", new_string="x")
    assert latin.error.message.startswith("b.txt is not valid UTF-8 (invalid byte at offset 3)")


# -- tolerant matches ------------------------------------------------------------------------
async def test_trailing_whitespace_is_tolerated_when_unambiguous(edit, root):
    (root / "a.txt").write_text("alpha   \nbeta\t\ngamma\n")
    outcome = await edit.call("edit", path="a.txt", old_string="alpha\nbeta\n", new_string="A\n")
    assert (root / "a.txt").read_text() == "A\ngamma\n"
    assert outcome.output["match"] == "trailing_whitespace"
    assert "when trailing whitespace is ignored" in text(outcome)


async def test_a_block_at_the_wrong_indentation_is_matched_and_reindented(edit, root):
    (root / "m.py").write_text("class A:\n    def f(self):\n        return 1\n")
    outcome = await edit.call(
        "edit",
        path="m.py",
        old_string="def f(self):\n    return 1",
        new_string="def f(self):\n    return 2\n\ndef g(self):\n    pass",
    )
    assert outcome.output["match"] == "indentation"
    assert (root / "m.py").read_text() == (
        "class A:\n    def f(self):\n        return 2\n\n    def g(self):\n        pass\n"
    )


async def test_typographic_quotes_dashes_and_spaces_match_plain_ones(edit, root):
    (root / "doc.md").write_text("He said \u201chi\u201d \u2014 twice\u00a0now.\n")
    outcome = await edit.call(
        "edit", path="doc.md", old_string='said "hi" - twice now', new_string="waved"
    )
    assert outcome.output["match"] == "unicode"
    assert (root / "doc.md").read_text() == "He waved.\n"


async def test_a_tolerant_match_in_several_places_is_refused(edit, root):
    (root / "a.txt").write_text("x = 1  \ny\nx = 1\t\n")
    for replace_all in (False, True):
        outcome = await edit.call(
            "edit",
            path="a.txt",
            old_string="x = 1\n",
            new_string="x = 2\n",
            replace_all=replace_all,
        )
        assert outcome.error.message == (
            "old_string does not match a.txt exactly, and it matches 2 places when trailing "
            "whitespace is ignored (lines 1, 3). Copy the exact text from read output, with "
            "enough surrounding lines to match one place."
        )
    assert (root / "a.txt").read_text() == "x = 1  \ny\nx = 1\t\n"


async def test_a_tolerant_match_that_changes_nothing_fails(edit, root, asker):
    (root / "a.txt").write_text("same\n")
    outcome = await edit.call("edit", path="a.txt", old_string="same  ", new_string="same")
    assert (
        outcome.error.message == "a.txt already has new_string where old_string matched; no change."
    )
    assert asker.requests == []


# -- encodings and line endings --------------------------------------------------------------
async def test_crlf_files_stay_crlf_and_keep_their_bom(edit, root):
    (root / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    await edit.call("edit", path="win.txt", old_string="one\ntwo", new_string="1\n2\n2.5")
    assert (root / "win.txt").read_bytes() == b"\xef\xbb\xbf1\r\n2\r\n2.5\r\nthree\r\n"
    await edit.call("edit", path="win.txt", old_string="2.5\r\nthree", new_string="3")
    assert (root / "win.txt").read_bytes() == b"\xef\xbb\xbf1\r\n2\r\n3\r\n"


# -- permission ------------------------------------------------------------------------------
async def test_a_deny_rule_edits_nothing(builtins, root, tmp_path, asker):
    (root / "a.txt").write_text("old\n")
    deny = PermissionRule(action="edit", resource="*", effect="deny")
    location = Location(
        root, config=Config(permission=(deny,)), data_dir=tmp_path / "d", asker=asker
    )
    denied = type(builtins)(location).load("edit")
    outcome = await denied.call("edit", path="a.txt", old_string="old", new_string="new")
    assert outcome.status == "failed" and outcome.error.type == "permission.rejected"
    assert (root / "a.txt").read_text() == "old\n"


async def test_a_rejection_edits_nothing(edit, root, asker):
    (root / "a.txt").write_text("old\n")
    asker.replies["edit"] = "reject"
    outcome = await edit.call("edit", path="a.txt", old_string="old", new_string="new")
    assert outcome.status == "declined"
    assert (root / "a.txt").read_text() == "old\n"


async def test_a_rejection_with_feedback_fails_with_the_feedback(edit, root, asker):
    (root / "a.txt").write_text("old\n")
    asker.replies["edit"] = Reject("call it renewed")
    outcome = await edit.call("edit", path="a.txt", old_string="old", new_string="new")
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message == (
        "The user rejected the edit of a.txt and said: call it renewed\n"
        "Take this feedback into account before trying again."
    )
    assert (root / "a.txt").read_text() == "old\n"


async def test_outside_the_location_asks_external_directory_before_edit(edit, root, asker):
    outside = root.parent / "o.txt"
    outside.write_text("old\n")
    outcome = await edit.call("edit", path=str(outside), old_string="old", new_string="new")
    assert outcome.status == "completed" and outside.read_text() == "new\n"
    assert [r.action for r in asker.requests] == ["external_directory", "edit"]


async def test_the_tool_is_native_and_shares_the_edit_action(edit):
    tool = edit.service.snapshot().get("edit")
    assert tool.codemode is False and tool.permission == "edit"
