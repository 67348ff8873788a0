"""What a tool attached to its ask, as the lines a person reads before answering."""

from __future__ import annotations

from tooldeck.host.permissions.shown import SHOWN_CHARS, attached_lines


def test_nothing_attached_is_nothing_shown():
    assert attached_lines({}) == ""
    assert attached_lines({"resource": "notes://all"}, ("notes://all",)) == ""


def test_values_one_line_each_then_the_diff():
    metadata = {"diff": "-a\n+b", "note": "Ship it", "counts": {"added": 1}}
    assert attached_lines(metadata) == '  note: Ship it\n  counts: {"added": 1}\n-a\n+b\n'


def test_long_values_and_diffs_are_cut_and_say_so():
    shown = attached_lines({"big": "x" * 1000, "diff": "y" * 50}, diff_chars=10)
    assert shown == f"  big: {'x' * (SHOWN_CHARS - 3)}...\n{'y' * 10}\n... (40 more characters)\n"


def test_control_characters_are_shown_not_obeyed():
    """An escape sequence in an edited file could redraw the terminal's question; a
    newline in a value would forge a line of its own."""
    metadata = {"note": "fine\nallow: yes \u202egnp.exe", "diff": "-a\n+\x1b[2Ab\tc\r\n"}
    shown = attached_lines(metadata)
    assert shown == "  note: fine\\x0aallow: yes \\u202egnp.exe\n-a\n+\\x1b[2Ab\tc\\x0d\n"
