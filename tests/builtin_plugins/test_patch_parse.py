from __future__ import annotations

import pytest

from tooldeck.builtin_plugins._run.patch_parse import (
    AddFile,
    DeleteFile,
    Hunk,
    HunkMismatch,
    PatchSyntaxError,
    UpdateFile,
    apply_hunks,
    parse_patch,
)


def envelope(*lines: str) -> str:
    return "\n".join(("*** Begin Patch", *lines, "*** End Patch"))


# -- parsing ----------------------------------------------------------------------------------
def test_every_directive_parses_in_order():
    text = envelope(
        "*** Add File: docs/new.md",
        "+# Title",
        "+",
        "*** Delete File: old.txt",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def handler():",
        "     keep",
        "-    old",
        "+    new",
        "@@",
        " tail",
        "+last",
        "*** End of File",
    )
    add, delete, update = parse_patch(text)
    assert add == AddFile("docs/new.md", ("# Title", ""))
    assert add.text == "# Title\n\n"
    assert delete == DeleteFile("old.txt")
    assert update == UpdateFile(
        "src/app.py",
        "src/main.py",
        (
            Hunk("def handler():", ("     keep", "-    old", "+    new")),
            Hunk("", (" tail", "+last"), end_of_file=True),
        ),
    )
    assert update.hunks[0].old == ["    keep", "    old"]
    assert update.hunks[0].new == ["    keep", "    new"]


def test_first_hunk_may_omit_the_at_at_line_and_blank_lines_are_context():
    (update,) = parse_patch(envelope("*** Update File: a.txt", " one", "", "-two", "+2"))
    assert update == UpdateFile("a.txt", None, (Hunk("", (" one", " ", "-two", "+2")),))


def test_crlf_patch_text_surrounding_blank_lines_and_trailing_spaces_are_tolerated():
    text = "\r\n\r\n*** Begin Patch  \r\n*** Delete File:  a.txt \r\n*** End Patch\r\n\r\n"
    assert parse_patch(text) == (DeleteFile("a.txt"),)


def test_unified_diff_headers_keep_only_their_context_text():
    text = envelope("*** Update File: a.py", "@@ -3,4 +3,5 @@ def f():", "-x", "+y")
    (update,) = parse_patch(text)
    assert update.hunks[0].header == "def f():"


def test_a_pure_move_needs_no_hunks_and_an_empty_add_makes_an_empty_file():
    text = envelope("*** Update File: a.txt", "*** Move to: b.txt", "*** Add File: empty")
    assert parse_patch(text) == (UpdateFile("a.txt", "b.txt", ()), AddFile("empty", ()))
    assert AddFile("empty", ()).text == ""


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("", 1, "the patch is empty; it must start with '*** Begin Patch'"),
        ("*** Delete File: a\n*** End Patch", 1, "must start with '*** Begin Patch'"),
        ("*** Begin Patch\n*** Delete File: a", 2, "must end with '*** End Patch'"),
        ("*** Begin Patch", 1, "must end with '*** End Patch'"),
        (envelope(), 2, "contains no file operations"),
        (envelope("*** Rename File: a"), 2, "expected '*** Add File:'"),
        (envelope("hello"), 2, "expected '*** Add File:'"),
        (envelope("*** Add File:"), 2, "'*** Add File:' needs a path"),
        (envelope("*** Add File: a", "no plus"), 3, "must start with '+', got 'no plus'"),
        (envelope("*** Update File: a"), 2, "has no hunks"),
        (envelope("*** Update File: a", "@@ f"), 3, "hunk 1 of 'a' is empty"),
        (envelope("*** Update File: a", "*** End of File"), 3, "hunk 1 of 'a' is empty"),
        (envelope("*** Update File: a", "-x", "x"), 4, "unexpected line in hunk 1 of 'a'"),
        (envelope("*** Delete File: a", "*** Move to: b"), 3, "must come right after"),
        (
            envelope("*** Delete File: a", "*** End Patch", "*** Delete File: b"),
            3,
            "before the end of the patch",
        ),
    ],
)
def test_malformed_patches_name_the_line_and_the_problem(text, line, expected):
    with pytest.raises(PatchSyntaxError) as raised:
        parse_patch(text)
    assert raised.value.line == line
    assert expected in str(raised.value)
    assert str(raised.value).startswith(f"line {line}: ")


# -- applying ---------------------------------------------------------------------------------
def hunk(*lines: str, header: str = "", eof: bool = False) -> Hunk:
    return Hunk(header, lines, eof)


def test_hunks_apply_in_order_and_keep_the_final_newline_state():
    text = "a\nb\nc\nd\ne\n"
    result = apply_hunks(text, [hunk(" a", "-b", "+B"), hunk(" d", "+d2", " e")])
    assert result == "a\nB\nc\nd\nd2\ne\n"
    assert apply_hunks("a\nb", [hunk(" b", "+c")]) == "a\nb\nc"


def test_a_header_narrows_the_search_and_may_be_a_prefix_of_the_line():
    text = "def f(x):\n    return 1\ndef g(x):\n    return 1\n"
    result = apply_hunks(text, [hunk("-    return 1", "+    return 2", header="def g")])
    assert result == "def f(x):\n    return 1\ndef g(x):\n    return 2\n"


def test_only_added_lines_go_after_the_header_or_at_the_end():
    assert apply_hunks("a\nb\n", [hunk("+x", header="a")]) == "a\nx\nb\n"
    assert apply_hunks("a\nb\n", [hunk("+x")]) == "a\nb\nx\n"
    assert apply_hunks("", [hunk("+x")]) == "x\n"


def test_end_of_file_prefers_the_last_match():
    text = "x\ny\nx\ny\n"
    assert apply_hunks(text, [hunk(" x", "-y", "+z", eof=True)]) == "x\ny\nx\nz\n"


def test_whitespace_and_typographic_punctuation_are_tolerated():
    text = "  say('hi')  \nx = 1 \u2013 2\n"
    result = apply_hunks(text, [hunk("-say(\u2018hi\u2019)", "+say('bye')", " x = 1 - 2")])
    assert result == "say('bye')\nx = 1 - 2\n"


def test_a_trailing_blank_context_line_the_file_lacks_is_ignored():
    assert apply_hunks("a\nb\n", [hunk(" a", "-b", "+c", " ")]) == "a\nc\n"


def test_a_mismatch_names_the_hunk_and_what_was_not_found():
    with pytest.raises(HunkMismatch) as raised:
        apply_hunks("a\nb\n", [hunk(" a", "-b", "+c"), hunk(" a", "-zzz", "+q")])
    assert raised.value.index == 1
    assert "not found after the previous hunk" in str(raised.value)
    with pytest.raises(HunkMismatch, match="'@@ class Nope' line was not found"):
        apply_hunks("a\n", [hunk("-a", header="class Nope")])
