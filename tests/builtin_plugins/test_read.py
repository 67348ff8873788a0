from __future__ import annotations

import os
import struct
import zlib

import pytest

from tooldeck._tool import FilePart, ImagePart, TextPart
from tooldeck.builtin_plugins.read import MAX_ATTACHMENT_BYTES
from tooldeck.host.config.config import Config, OutputConfig, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject


@pytest.fixture
def read(builtins):
    builtins.load("read")
    return builtins


def text(outcome) -> str:
    return "\n".join(p.text for p in outcome.content if isinstance(p, TextPart))


def png(width=1, height=1) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


def with_config(builtins, root, tmp_path, asker, **config):
    location = Location(root, config=Config(**config), data_dir=tmp_path / "data2", asker=asker)
    return type(builtins)(location).load("read")


# -- text --------------------------------------------------------------------------------------
async def test_reads_numbered_lines_under_a_header(read, root):
    (root / "README.md").write_text("# Title\n\nhello\n")
    outcome = await read.call("read", path="README.md")
    assert outcome.status == "completed"
    assert text(outcome) == "README.md (3 lines)\n1: # Title\n2:\n3: hello"
    assert outcome.output == {
        "path": str(root / "README.md"),
        "kind": "text",
        "total": 3,
        "first": 1,
        "last": 3,
        "next_offset": None,
        "mime_type": None,
    }
    assert outcome.metadata["truncated"] is False


async def test_a_last_line_without_newline_counts_and_an_empty_file_has_none(read, root):
    (root / "a.txt").write_text("one\ntwo")
    (root / "empty.txt").write_text("")
    assert text(await read.call("read", path="a.txt")) == "a.txt (2 lines)\n1: one\n2: two"
    empty = await read.call("read", path="empty.txt")
    assert text(empty) == "empty.txt (0 lines)"
    assert empty.output["first"] == empty.output["last"] == 0


async def test_bom_and_crlf_are_not_shown(read, root):
    (root / "win.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    assert text(await read.call("read", path="win.txt")) == "win.txt (2 lines)\n1: a\n2: b"


async def test_a_long_file_pages_with_the_offset_to_continue(read, root):
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 2501)))
    first = await read.call("read", path="big.txt")
    lines = text(first).split("\n")
    assert lines[0] == "big.txt (2,500 lines)"
    assert lines[1] == "1: line 1" and lines[2000] == "2000: line 2000"
    assert lines[-1] == "(Showing lines 1-2000 of 2,500. Use offset=2001 to continue.)"
    assert first.output["next_offset"] == 2001
    assert first.metadata["truncated"] is True
    assert "output_path" not in first.metadata  # not cut again by the session runner
    rest = await read.call("read", path="big.txt", offset=2001)
    assert text(rest).split("\n")[1] == "2001: line 2001"
    assert text(rest).endswith("2500: line 2500")
    assert rest.output["next_offset"] is None


async def test_offset_and_limit_select_a_window(read, root):
    (root / "a.txt").write_text("a\nb\nc\nd\n")
    outcome = await read.call("read", path="a.txt", offset=2, limit=2)
    assert text(outcome) == (
        "a.txt (4 lines)\n2: b\n3: c\n(Showing lines 2-3 of 4. Use offset=4 to continue.)"
    )
    assert (outcome.output["first"], outcome.output["last"]) == (2, 3)


async def test_a_page_that_would_overflow_the_output_limit_by_its_header_is_paged(read, root):
    (root / "exact.txt").write_text("x\n" * 2000)
    outcome = await read.call("read", path="exact.txt")
    assert outcome.output["last"] == 1999 and outcome.output["next_offset"] == 2000
    assert "output_path" not in outcome.metadata


async def test_a_page_stops_at_the_byte_budget(read, root):
    (root / "wide.txt").write_text(("y" * 1000 + "\n") * 100)
    outcome = await read.call("read", path="wide.txt")
    last = outcome.output["last"]
    assert 40 < last < 100
    assert text(outcome).endswith(
        f"(Showing lines 1-{last} of 100 (the page reached its size limit). "
        f"Use offset={last + 1} to continue.)"
    )
    assert len(text(outcome).encode()) <= 50 * 1024


async def test_the_page_follows_the_locations_output_limits(builtins, root, tmp_path, asker):
    (root / "a.txt").write_text("".join(f"{n}\n" for n in range(1, 21)))
    small = with_config(builtins, root, tmp_path, asker, output=OutputConfig(max_lines=5))
    outcome = await small.call("read", path="a.txt")
    assert outcome.output["last"] == 5 and outcome.output["next_offset"] == 6


async def test_long_lines_are_cut_and_say_so(read, root):
    (root / "min.js").write_text("z" * 5000 + "\nshort\n")
    lines = text(await read.call("read", path="min.js")).split("\n")
    assert lines[1] == "1: " + "z" * 2000 + "… [line cut at 2,000 of 5,000 chars]"
    assert lines[2] == "2: short"


async def test_an_offset_past_the_end_says_how_long_the_file_is(read, root):
    (root / "a.txt").write_text("1\n2\n3\n")
    outcome = await read.call("read", path="a.txt", offset=10)
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message == (
        "offset 10 is past the end of a.txt, which has 3 lines. Use an offset from 1 to 3."
    )


# -- directories, images, refusals ---------------------------------------------------------------
async def test_a_directory_lists_subdirectories_first_sorted(read, root):
    for name in ("b.txt", "A.txt", "c.py"):
        (root / "src" / name).parent.mkdir(exist_ok=True)
        (root / "src" / name).write_text("")
    (root / "src" / "zeta").mkdir()
    (root / "src" / "Beta").mkdir()
    outcome = await read.call("read", path="src")
    assert text(outcome) == "src/ (5 entries)\nBeta/\nzeta/\nA.txt\nb.txt\nc.py"
    assert outcome.output["kind"] == "directory" and outcome.output["total"] == 5
    paged = await read.call("read", path="src/", offset=2, limit=2)
    assert text(paged) == (
        "src/ (5 entries)\nzeta/\nA.txt\n(Showing entries 2-3 of 5. Use offset=4 to continue.)"
    )


async def test_an_image_is_sniffed_by_its_bytes_whatever_its_name(read, root):
    data = png()
    (root / "picture.txt").write_bytes(data)
    outcome = await read.call("read", path="picture.txt")
    assert outcome.status == "completed"
    assert outcome.content[0] == TextPart(f"picture.txt (PNG image, {len(data)} bytes)")
    assert outcome.content[1] == ImagePart(data, "image/png")
    assert outcome.output["kind"] == "image" and outcome.output["mime_type"] == "image/png"


async def test_binary_files_are_refused(read, root):
    (root / "app.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    outcome = await read.call("read", path="app.bin")
    assert outcome.status == "failed"
    assert outcome.error.message == (
        "app.bin is a binary file (70 bytes) and cannot be read as text."
    )


async def test_a_page_holding_a_nul_byte_is_refused_naming_where_it_is(read, root):
    text_lines = [f"line {n}" for n in range(1, 3001)]
    text_lines[2499] = "ab\0cd"  # past the first page and the 8 KiB sniff
    (root / "log.txt").write_text("\n".join(text_lines) + "\n")
    first = await read.call("read", path="log.txt")
    assert first.status == "completed" and first.output["last"] == 2000
    later = await read.call("read", path="log.txt", offset=2001)
    assert later.status == "failed"
    assert later.error.message == (
        "log.txt holds binary data: line 2,500 has a NUL byte at column 3, so lines "
        "2,001-3,000 cannot be read as text. The lines before it can: use offset=2001 and "
        "limit=499."
    )
    before = await read.call("read", path="log.txt", offset=2001, limit=499)
    assert before.status == "completed" and before.output["last"] == 2499


def pdf(pages: int) -> bytes:
    """A minimal PDF with ``pages`` empty pages (enough structure to count them)."""
    kids = " ".join(f"{3 + n} 0 R" for n in range(pages))
    objects = [
        b"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
        f"2 0 obj << /Type /Pages /Kids [{kids}] /Count {pages} >> endobj".encode(),
        *(
            f"{3 + n} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj".encode()
            for n in range(pages)
        ),
    ]
    return b"%PDF-1.4\n" + b"\n".join(objects) + b"\ntrailer << /Root 1 0 R >>\n%%EOF\n"


async def test_a_pdf_comes_back_as_an_attachment_with_its_page_count(read, root):
    data = pdf(3)
    (root / "paper.pdf").write_bytes(data)
    outcome = await read.call("read", path="paper.pdf")
    assert outcome.status == "completed"
    assert outcome.content[0] == TextPart(f"paper.pdf (PDF, 3 pages, {len(data)} bytes)")
    assert outcome.content[1] == FilePart(data, "application/pdf", "paper.pdf")
    assert outcome.output["kind"] == "pdf" and outcome.output["total"] == 3
    assert outcome.output["mime_type"] == "application/pdf"


async def test_a_pdf_over_the_attachment_limit_is_refused_with_both_sizes(read, root):
    with (root / "huge.pdf").open("wb") as file:
        file.write(pdf(1))
        file.truncate(MAX_ATTACHMENT_BYTES + 1)  # sparse: no 32 MiB written
    outcome = await read.call("read", path="huge.pdf")
    assert outcome.status == "failed"
    assert outcome.error.message.startswith(
        "huge.pdf is a PDF of 33,554,433 bytes, over the 33,554,432 bytes a model can take "
        "as an attachment."
    )


async def test_invalid_utf8_and_utf16_are_refused(read, root):
    (root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    (root / "wide.txt").write_bytes("hi\n".encode("utf-16"))
    latin = await read.call("read", path="latin1.txt")
    assert latin.error.message == (
        "latin1.txt is not valid UTF-8 (invalid byte at offset 3), so it cannot be read as "
        "text. It may be binary or use another encoding."
    )
    wide = await read.call("read", path="wide.txt")
    assert wide.error.message == "wide.txt is UTF-16 text; only UTF-8 files can be read as text."


async def test_a_missing_file_suggests_up_to_three_similar_names(read, root):
    for name in ("config.py", "configs.py", "Config.yaml", "conftest.py", "main.py"):
        (root / "pkg" / name).parent.mkdir(exist_ok=True)
        (root / "pkg" / name).write_text("")
    outcome = await read.call("read", path="pkg/confg.py")
    assert outcome.status == "failed"
    message = outcome.error.message
    assert message.startswith("File not found: pkg/confg.py. Did you mean: pkg/config.py, ")
    assert message.count("pkg/") == 4 and "main.py" not in message
    assert message.endswith("Check the path, or read its directory to list it.")


async def test_a_missing_directory_says_so(read):
    outcome = await read.call("read", path="nope/a.txt")
    assert outcome.error.message == (
        "File not found: nope/a.txt. Its directory does not exist either. "
        "Check the path, or read its directory to list it."
    )


async def test_a_pipe_is_refused_instead_of_blocking(read, root):
    os.mkfifo(root / "pipe")
    outcome = await read.call("read", path="pipe")
    assert outcome.error.message == "pipe is not a regular file (a device, socket or pipe)."


# -- permission ------------------------------------------------------------------------------
async def test_read_is_allowed_by_default_without_asking(read, root, asker):
    (root / "a.txt").write_text("x\n")
    assert (await read.call("read", path="a.txt")).status == "completed"
    assert asker.requests == []


async def test_a_deny_rule_fails_with_permission_rejected(builtins, root, tmp_path, asker):
    (root / "a.txt").write_text("secret\n")
    deny = PermissionRule(action="read", resource="*", effect="deny")
    denied = with_config(builtins, root, tmp_path, asker, permission=(deny,))
    outcome = await denied.call("read", path="a.txt")
    assert outcome.status == "failed" and outcome.error.type == "permission.rejected"
    assert "secret" not in text(outcome)


async def test_an_ask_rule_asks_for_the_absolute_path(builtins, root, tmp_path, asker):
    (root / "a.txt").write_text("secret\n")
    ask = PermissionRule(action="read", resource="*", effect="ask")
    asking = with_config(builtins, root, tmp_path, asker, permission=(ask,))
    asker.replies["read"] = "reject"
    outcome = await asking.call("read", path="a.txt")
    assert outcome.status == "declined" and "secret" not in text(outcome)
    assert asker.asked("read")[0].resources == (str(root / "a.txt"),)
    asker.replies["read"] = Reject("read b.txt instead")
    corrected = await asking.call("read", path="a.txt")
    assert corrected.status == "failed" and corrected.error.type == "tool.execution"
    assert "read b.txt instead" in corrected.error.message


async def test_outside_the_location_asks_external_directory_first(read, root, asker):
    outside = root.parent / "notes.txt"
    outside.write_text("private\n")
    asker.replies["external_directory"] = "reject"
    outcome = await read.call("read", path="../notes.txt")
    assert outcome.status == "declined" and "private" not in text(outcome)
    assert [r.action for r in asker.requests] == ["external_directory"]
    assert asker.requests[0].resources == (os.path.join(root.parent, "*"),)
    asker.replies["external_directory"] = "once"
    allowed = await read.call("read", path=str(outside))
    assert text(allowed) == f"{outside} (1 line)\n1: private"


async def test_an_outside_directory_is_asked_about_as_a_directory(read, root, asker):
    (root.parent / "shared").mkdir()
    (root.parent / "shared" / "x.txt").write_text("")
    outcome = await read.call("read", path="../shared")
    assert text(outcome) == f"{root.parent / 'shared'}/ (1 entry)\nx.txt"
    assert asker.requests[0].resources == (os.path.join(root.parent, "shared", "*"),)


async def test_a_symlink_out_of_the_location_asks_for_its_real_directory(read, root, asker):
    # Paths are judged lexically (tooldeck.paths): "link/secret.txt" is inside, and the
    # read ask names that path. The file tools also check where a link really leads, so
    # a link placed in the project cannot reach outside it without external_directory.
    target = root.parent / "target"
    target.mkdir()
    (target / "secret.txt").write_text("private\n")
    (root / "link").symlink_to(target, target_is_directory=True)
    asker.replies["external_directory"] = Reject("stay in the project")
    outcome = await read.call("read", path="link/secret.txt")
    assert outcome.status == "failed" and "stay in the project" in outcome.error.message
    assert "private" not in text(outcome)
    assert asker.requests[0].resources == (os.path.join(target, "*"),)
    assert asker.requests[0].metadata["link"] == str(root / "link" / "secret.txt")


async def test_a_symlink_inside_the_location_asks_nothing(read, root, asker):
    (root / "real.txt").write_text("hi\n")
    (root / "alias.txt").symlink_to(root / "real.txt")
    outcome = await read.call("read", path="alias.txt")
    assert text(outcome) == "alias.txt (1 line)\n1: hi"
    assert outcome.output["path"] == str(root / "alias.txt")
    assert asker.requests == []


async def test_the_tool_is_native_and_declares_read(read):
    tool = read.service.snapshot().get("read")
    assert tool.codemode is False and tool.permission == "read"


# -- offset 0 and saved outputs ----------------------------------------------------------------
async def test_offset_0_reads_from_the_start_like_1(read, root):
    (root / "a.txt").write_text("one\ntwo\n")
    zero = await read.call("read", path="a.txt", offset=0)
    assert zero.status == "completed"
    assert text(zero) == text(await read.call("read", path="a.txt", offset=1))
    assert zero.output["first"] == 1
    schema = read.service.snapshot().get("read").input.model_json_schema()
    assert schema["properties"]["offset"]["minimum"] == 0
    assert "0 also means the first" in schema["properties"]["offset"]["description"]


async def test_saved_outputs_are_read_without_an_outside_ask(builtins, location, asker):
    """A truncation marker tells the model to read or grep the saved file, which lives in
    the data dir, outside the project: the read-only tools reach it without asking."""
    from tooldeck.host.call.bounding import save_output

    tools = builtins.load("read", "grep", "glob", "write")
    saved = save_output("".join(f"line {i}\n" for i in range(10)), location.data_dir, "c1")
    shell_log = location.data_dir / "shell" / "tool_c2.log"
    shell_log.parent.mkdir(parents=True)
    shell_log.write_text("make: done\n")
    assert (await tools.call("read", path=str(saved), offset=5)).status == "completed"
    assert (await tools.call("grep", pattern="done", path=str(shell_log))).output["total"] == 1
    assert (await tools.call("glob", pattern="*", path=str(saved.parent))).output["total"] == 1
    assert asker.requests == []
    # Writing there is no reading: it still asks like any outside path.
    await tools.call("write", path=str(saved), content="x")
    assert [r.action for r in asker.requests] == ["external_directory", "edit"]


async def test_a_link_in_the_saved_outputs_to_elsewhere_still_asks(read, location, asker, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("token\n")
    link = location.data_dir / "tool-output" / "tool_link"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    asker.replies["external_directory"] = "reject"
    assert (await read.call("read", path=str(link))).status == "declined"
    assert [r.action for r in asker.requests] == ["external_directory"]


# -- names that only look the same ------------------------------------------------------------
SCREENSHOT = "Screenshot 2026-12-01 at 10.15.03\u202fAM.txt"  # macOS: narrow no-break space


@pytest.mark.parametrize(
    ("on_disk", "typed"),
    [
        (SCREENSHOT, "Screenshot 2026-12-01 at 10.15.03 AM.txt"),
        ("cafe\u0301/menu\u00a0card.txt", "café/menu card.txt"),  # NFD dir, no-break space
        ("it\u2019s.txt", "it's.txt"),  # a curly apostrophe on disk, a straight one typed
        ("it's.txt", "it\u2019s.txt"),  # and the other way round
        ("\u201cquoted\u201d notes.txt", '"quoted" notes.txt'),
    ],
)
async def test_read_uses_the_one_lookalike_name_and_says_so(read, root, on_disk, typed):
    (root / on_disk).parent.mkdir(exist_ok=True)
    (root / on_disk).write_text("hello\n")
    outcome = await read.call("read", path=typed)
    assert outcome.status == "completed"
    assert outcome.output["path"] == str(root / on_disk)
    assert text(outcome).startswith(
        f"(Note: {typed!r} does not exist; used {str(root / on_disk)!r}, which differs from "
        "it only in Unicode normalization, in the kind of space or in curly or straight "
        "quotes.)\n"
    )
    assert text(outcome).endswith("1: hello")


async def test_several_lookalikes_or_a_writing_tool_only_suggest_them(builtins, root):
    builtins.load("read", "edit")
    for space in ("\u00a0", "\u202f"):
        (root / f"a{space}b.txt").write_text("x\n")
    several = await builtins.call("read", path="a b.txt")
    assert several.status == "failed"
    assert several.error.message.startswith(
        "File not found: a b.txt. Did you mean: a\u00a0b.txt, a\u202fb.txt?"
    )
    (root / SCREENSHOT).write_text("x\n")
    typed = SCREENSHOT.replace("\u202f", " ")
    edit = await builtins.call("edit", path=typed, old_string="x", new_string="y")
    assert edit.status == "failed"
    assert edit.error.message.startswith(f"File not found: {typed}. Did you mean: {SCREENSHOT}")
    assert (root / SCREENSHOT).read_text() == "x\n"
