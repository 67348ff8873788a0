from __future__ import annotations

import asyncio
import logging
import os
import re
import tempfile
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import ImagePart, Location, TextPart, Tool, ToolCall, ToolResult, ToolService
from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.call.bounding import (
    OUTPUT_DIR,
    bound_output,
    cleanup_once,
    text_head,
    within_limits,
)
from tooldeck.host.call.sizes import count_lines, format_size, utf8_size
from tooldeck.host.config.config import Config, OutputConfig

from ...examples import examples
from ...full_disk import on_a_full_disk

PNG = (
    b"\x89PNG\r\n\x1a\n"
    + b"\x00\x00\x00\rIHDR"
    + (1).to_bytes(4, "big") * 2
    + b"\x08\x06\x00\x00\x00"
    + b"\x00" * 20
)
MARKER = re.compile(
    r"\[output truncated: ([\d,]+) more lines? \(([^)]*)\) omitted; full output saved to "
    r"(\S+)\. Use read with offset or grep on that file to see the rest\.\]$"
)


def numbered(n, width=0):
    return "".join(f"line {i}{'x' * width}\n" for i in range(n))


def bound(content, tmp_path, metadata=None, call_id="call_1", **limits):
    return bound_output(
        content,
        metadata if metadata is not None else {},
        limits=OutputConfig(**limits),
        data_dir=tmp_path / "data",
        call_id=call_id,
    )


def test_the_saved_outputs_are_capped_oldest_first(tmp_path):
    big = [TextPart("x" * 400_000 + "\n" + numbered(5))]
    first = saved_path(bound(big, tmp_path, call_id="a", max_lines=2, max_saved_mb=1))
    os.utime(first, (1_000, 1_000))  # clearly the oldest
    second = saved_path(bound(big, tmp_path, call_id="b", max_lines=2, max_saved_mb=1))
    third = saved_path(bound(big, tmp_path, call_id="c", max_lines=2, max_saved_mb=1))
    assert not first.exists()  # three would exceed 1 MiB: the oldest went
    assert second.exists() and third.exists()
    huge = [TextPart("y" * (2 << 20) + "\n" + numbered(5))]
    result = bound(huge, tmp_path, call_id="d", max_lines=2, max_saved_mb=1)
    assert saved_path(result) is None  # larger than the cap: not saved, the head is shown
    assert result.content[0].text.endswith(
        "the full output could not be saved: it is larger than [output] max_saved_mb.]"
    )


def saved_path(result):
    """The file the full text was saved to, or ``None``."""
    path = result.metadata.get("output_path")
    return Path(path) if path is not None else None


def marker_of(text):
    match = MARKER.search(text)
    assert match is not None, text[-300:]
    return int(match.group(1).replace(",", "")), match.group(2), Path(match.group(3))


def run_with(tmp_path, content, metadata=None, config=None, call_id="call_1"):
    """Bounding as a host sees it: through run_tool_call with the Location's config."""
    location = Location(tmp_path, data_dir=tmp_path / "data", config=config)
    service = ToolService(location)
    result = ToolResult(content, metadata if metadata is not None else {})
    service.transform(
        lambda e: e.add(
            Tool(name="big", description="Big output.", execute=lambda i, c: result, codemode=False)
        )
    )
    return asyncio.run(run_tool_call(service.snapshot(), ToolCall(call_id, "big")))


# -- the common case --------------------------------------------------------------------------
def test_short_output_is_returned_as_is(tmp_path):
    content, metadata = (TextPart("hello\n"),), {"k": 1}
    result = bound(content, tmp_path, metadata)
    assert result.content is content and result.metadata is metadata and saved_path(result) is None
    assert not (tmp_path / "data").exists()


def test_text_exactly_at_both_limits_is_not_cut(tmp_path):
    text = "ab\n" * 4  # 4 lines, 12 bytes
    assert saved_path(bound((TextPart(text),), tmp_path, max_lines=4, max_bytes=12)) is None
    assert saved_path(bound((TextPart(text),), tmp_path, max_lines=3, max_bytes=12)) is not None
    assert saved_path(bound((TextPart(text),), tmp_path, max_lines=4, max_bytes=11)) is not None


# -- the lines limit --------------------------------------------------------------------------
def test_more_than_max_lines_keeps_the_first_lines_and_saves_everything(tmp_path):
    text = numbered(5000)
    outcome = run_with(tmp_path, text)
    [part] = outcome.content
    kept = part.text.partition("\n\n[output truncated")[0]
    assert kept.split("\n") == [f"line {i}" for i in range(2000)]
    omitted, size, path = marker_of(part.text)
    assert omitted == 3000
    assert size == format_size(utf8_size(text) - utf8_size(numbered(2000)))
    assert path.read_text(encoding="utf-8") == text
    assert outcome.metadata == {"truncated": True, "output_path": str(path)}


def test_a_last_line_without_newline_counts_as_a_line(tmp_path):
    result = bound((TextPart("a\nb\nc"),), tmp_path, max_lines=2)
    text = result.content[0].text
    assert text.startswith("a\nb\n\n[output truncated: 1 more line (1 byte) omitted")


# -- the bytes limit --------------------------------------------------------------------------
def test_more_than_max_bytes_is_cut_at_a_line_boundary(tmp_path):
    text = numbered(300, width=100)  # ~32 KiB, few lines
    result = bound((TextPart(text),), tmp_path, max_bytes=10 * 1024)
    kept = result.content[0].text.partition("\n\n[output truncated")[0] + "\n"
    assert text.startswith(kept)
    assert utf8_size(kept) <= 10 * 1024
    assert utf8_size(kept) + utf8_size(text.splitlines(True)[kept.count("\n")]) > 10 * 1024
    assert marker_of(result.content[0].text)[2].read_text(encoding="utf-8") == text


def test_multibyte_text_is_never_cut_inside_a_character(tmp_path):
    line = "é€😀" * 30 + "\n"  # 2-, 3- and 4-byte characters
    text = line * 50
    for max_bytes in range(len(line.encode()), len(line.encode()) * 3 + 4):
        head = text_head(text, 2000, max_bytes)
        assert text.startswith(head) and head.endswith("\n")
        assert utf8_size(head) <= max_bytes < utf8_size(head) + utf8_size(line)


def test_one_line_longer_than_max_bytes_keeps_whole_characters(tmp_path):
    text = "ab€" * 1000  # one line, no newline at all
    for max_bytes in (1, 2, 3, 4, 5, 6, 7, 100, 101, 102):
        head = text_head(text, 2000, max_bytes)
        assert text.startswith(head)
        assert max_bytes - 3 < utf8_size(head) <= max_bytes
    result = bound((TextPart(text),), tmp_path, max_bytes=101)
    assert result.content[0].text.startswith(text_head(text, 2000, 101) + "\n\n[output")
    assert saved_path(result).read_text(encoding="utf-8") == text


def test_lone_surrogates_do_not_break_bounding(tmp_path):
    text = "\ud800x\n" * 100
    result = bound((TextPart(text),), tmp_path, max_lines=10)
    assert result.content[0].text.startswith("\ud800x\n" * 9 + "\ud800x\n\n[output")
    saved = saved_path(result).read_bytes().decode("utf-8", "surrogatepass")
    assert saved == text


# -- the saved file and the marker ------------------------------------------------------------
def test_the_marker_names_the_saved_file_by_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = bound_output(
        (TextPart(numbered(10)),),
        {},
        limits=OutputConfig(max_lines=2),
        data_dir="relative-data",
        call_id="call_9",
    )
    path = marker_of(result.content[0].text)[2]
    assert path.is_absolute()
    assert path == tmp_path / "relative-data" / OUTPUT_DIR / "tool_call_9"
    assert path == saved_path(result) and path.is_file()


def test_call_ids_are_sanitized_and_reused_ids_get_fresh_files(tmp_path):
    paths = [
        saved_path(bound((TextPart(numbered(5)),), tmp_path, call_id="../../x y", max_lines=1))
        for _ in range(3)
    ]
    directory = tmp_path / "data" / OUTPUT_DIR
    assert [p.name for p in paths] == ["tool_______x_y", "tool_______x_y_2", "tool_______x_y_3"]
    assert all(p.parent == directory for p in paths)


def test_a_call_without_id_gets_a_generated_unique_name(tmp_path):
    first = saved_path(bound((TextPart(numbered(5)),), tmp_path, call_id="", max_lines=1))
    second = saved_path(bound((TextPart(numbered(5)),), tmp_path, call_id="", max_lines=1))
    assert first != second
    assert first.name.startswith("tool_") and len(first.name) > len("tool_")


def test_a_failed_save_still_bounds_and_says_so(tmp_path, caplog):
    (tmp_path / "data").write_text("a file where the data dir should be")
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        result = bound((TextPart(numbered(10)),), tmp_path, max_lines=2)
    text = result.content[0].text
    assert text.startswith("line 0\nline 1\n\n[output truncated: 8 more lines")
    where = (tmp_path / "data" / "tool-output").absolute()
    assert text.endswith(f"the full output could not be saved to {where}: Not a directory.]")
    assert saved_path(result) is None and result.metadata == {"truncated": True}
    assert "could not save truncated tool output" in caplog.text


# -- what is left alone -----------------------------------------------------------------------
def test_results_already_marked_truncated_are_left_alone(tmp_path):
    text = numbered(5000)
    outcome = run_with(tmp_path, text, {"truncated": True, "output_path": "/elsewhere"})
    assert outcome.content == (TextPart(text),)
    assert outcome.metadata == {"truncated": True, "output_path": "/elsewhere"}
    assert not (tmp_path / "data").exists()


def test_the_truncated_key_exempts_whatever_its_value(tmp_path):
    """A tool that reports ``truncated`` pages its own output; ``False`` says all of it
    fit its own bounds, and the host guide promises such results are left alone."""
    text = numbered(5000)
    outcome = run_with(tmp_path, text, {"truncated": False, "other": 1})
    assert outcome.content == (TextPart(text),)
    assert outcome.metadata == {"truncated": False, "other": 1}
    assert not (tmp_path / "data").exists()


# -- the config -------------------------------------------------------------------------------
def test_configured_limits_are_honoured(tmp_path):
    config = Config(output=OutputConfig(max_lines=3, max_bytes=1_000_000))
    outcome = run_with(tmp_path, numbered(10), config=config)
    assert outcome.content[0].text.startswith("line 0\nline 1\nline 2\n\n[output truncated")
    config = Config(output=OutputConfig(max_lines=1_000_000, max_bytes=20))
    outcome = run_with(tmp_path, numbered(10), config=config)
    assert outcome.content[0].text.startswith("line 0\nline 1\n\n[output truncated: 8 more")


# -- several parts ----------------------------------------------------------------------------
def test_the_budget_is_shared_by_the_text_parts_and_other_parts_stay(tmp_path):
    image = ImagePart(PNG, "image/png")
    content = (TextPart("a\nb\n"), image, TextPart("c\nd\ne\n"), TextPart("f\n"))
    result = bound(content, tmp_path, max_lines=3)
    assert result.content[:2] == (TextPart("a\nb\n"), image)
    assert result.content[2].text.startswith("c\n\n[output truncated: 3 more lines (6 bytes)")
    assert len(result.content) == 3
    assert saved_path(result).read_text(encoding="utf-8") == "a\nb\nc\nd\ne\nf\n"


def test_parts_without_trailing_newline_are_saved_one_per_line(tmp_path):
    content = (TextPart("a"), TextPart(""), TextPart("b"), TextPart("c"))
    result = bound(content, tmp_path, max_lines=2)
    assert result.content[:3] == (TextPart("a"), TextPart(""), TextPart("b"))
    assert result.content[3].text.startswith("[output truncated: 1 more line")
    assert saved_path(result).read_text(encoding="utf-8") == "a\nb\nc"


# -- cleanup ----------------------------------------------------------------------------------
def test_saved_outputs_older_than_seven_days_are_removed_once_per_process(tmp_path):
    directory = tmp_path / "data" / OUTPUT_DIR
    directory.mkdir(parents=True)
    now = time.time()
    ages = {"tool_old": 8, "tool_recent": 6, "notes.txt": 30}
    for name, days in ages.items():
        (directory / name).write_text(name)
        os.utime(directory / name, (now - days * 86400, now - days * 86400))
    saved = saved_path(bound((TextPart(numbered(5)),), tmp_path, max_lines=1))
    assert sorted(p.name for p in directory.iterdir()) == sorted(
        ["tool_recent", "notes.txt", saved.name]
    )
    (directory / "tool_later").write_text("x")
    os.utime(directory / "tool_later", (now - 9 * 86400, now - 9 * 86400))
    bound((TextPart(numbered(5)),), tmp_path, max_lines=1)
    assert (directory / "tool_later").exists()  # at most once per process and data dir


def test_cleanup_once_is_keyed_by_directory(tmp_path):
    for name in ("one", "two"):
        directory = tmp_path / name
        directory.mkdir()
        (directory / "tool_x").write_text("x")
        os.utime(directory / "tool_x", (0, 0))
        cleanup_once(directory)
        assert not (directory / "tool_x").exists()


# -- properties of the cut --------------------------------------------------------------------
@settings(max_examples=examples(200), deadline=None)
@given(
    text=st.text(st.sampled_from("ab\né€😀"), max_size=60),
    max_lines=st.integers(1, 8),
    max_bytes=st.integers(1, 40),
)
def test_text_head_is_the_longest_whole_line_prefix_within_the_limits(text, max_lines, max_bytes):
    head = text_head(text, max_lines, max_bytes)
    assert text.startswith(head)
    fits = count_lines(text) <= max_lines and utf8_size(text) <= max_bytes
    assert within_limits((TextPart(text),), max_lines, max_bytes) == fits
    if fits:
        assert head == text
        return
    assert count_lines(head) <= max_lines and utf8_size(head) <= max_bytes
    rest = text[len(head) :]
    if head.endswith("\n") or not head:  # whole lines: one more line would not fit
        longer = head + rest.partition("\n")[0] + ("\n" if "\n" in rest else "")
        assert count_lines(longer) > max_lines or utf8_size(longer) > max_bytes
    else:  # a partial first line: only when no whole line fits, cut between characters
        assert "\n" not in head
        assert utf8_size(head + rest[0]) > max_bytes


@settings(max_examples=examples(150), deadline=None)
@given(
    text=st.text(st.sampled_from("ab\né€😀"), max_size=40),
    max_lines=st.integers(1, 8),
    max_bytes=st.integers(1, 40),
)
def test_run_tool_call_bounds_one_text_part_exactly_when_within_limits_says_so(
    text, max_lines, max_bytes
):
    # run_tool_call decides a lone short TextPart itself; pinned here to within_limits.
    config = Config(output=OutputConfig(max_lines=max_lines, max_bytes=max_bytes))
    with tempfile.TemporaryDirectory() as tmp:
        outcome = run_with(Path(tmp), text, config=config)
    fits = within_limits((TextPart(text),), max_lines, max_bytes)
    assert outcome.status == "completed"
    assert ("truncated" in outcome.metadata) == (bool(text) and not fits)
    if fits:
        assert outcome.content == (TextPart(text),)


_LIMITED = """
import sys
from tooldeck._tool import TextPart
from tooldeck.host.call.bounding import bound_output
from tooldeck.host.config.config import OutputConfig
text = "".join(f"line {i}\\n" for i in range(1000))
limits = OutputConfig(max_lines=2)
bounded = bound_output((TextPart(text),), {}, limits=limits, data_dir=sys.argv[1])
print(bounded.content[0].text)
"""


def test_a_full_disk_still_bounds_and_says_where_and_why(tmp_path):
    """The save fails part-way (a file-size limit, as a full disk): no torn file is left
    for the model to find, and the marker says which folder and what went wrong."""
    done = on_a_full_disk(_LIMITED, str(tmp_path / "data"))
    assert done.returncode == 0, done.stderr
    where = tmp_path / "data" / "tool-output"
    assert done.stdout.startswith("line 0\nline 1\n\n[output truncated: 998 more lines")
    assert done.stdout.endswith(
        f"the full output could not be saved to {where}: File too large.]\n"
    )
    assert list(where.iterdir()) == []
