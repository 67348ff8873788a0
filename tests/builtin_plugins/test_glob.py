from __future__ import annotations

import os

import pytest

from tooldeck._tool import TextPart
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject


def make(root, *relatives):
    for relative in relatives:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


def text(outcome) -> str:
    return "\n".join(p.text for p in outcome.content if isinstance(p, TextPart))


@pytest.fixture
def glob(builtins):
    return builtins.load("glob")


@pytest.fixture
def tree(root):
    make(root, "a.py", "src/b.py", "src/deep/c.py", "src/d.txt", "build/gen.py", ".git/x.py")
    (root / ".gitignore").write_text("build/\n")
    return root


def with_rule(builtins, root, tmp_path, asker, effect):
    rule = PermissionRule(action="glob", resource="*", effect=effect)
    location = Location(
        root, config=Config(permission=(rule,)), data_dir=tmp_path / "d2", asker=asker
    )
    return type(builtins)(location).load("glob")


async def test_lists_matches_root_relative_sorted_skipping_ignored_and_git(glob, tree, asker):
    outcome = await glob.call("glob", pattern="*.py")
    assert outcome.status == "completed"
    assert text(outcome) == "a.py\nsrc/b.py\nsrc/deep/c.py"
    assert outcome.output == {
        "files": ["a.py", "src/b.py", "src/deep/c.py"],
        "total": 3,
        "truncated": False,
    }
    assert asker.requests == []


async def test_a_subdirectory_keeps_paths_relative_to_the_root(glob, tree):
    outcome = await glob.call("glob", pattern="*.py", path="src")
    assert text(outcome) == "src/b.py\nsrc/deep/c.py"
    anchored = await glob.call("glob", pattern="deep/*.py", path="src")
    assert text(anchored) == "src/deep/c.py"


async def test_more_than_limit_says_how_many_and_how_to_narrow(glob, root):
    make(root, *(f"f{i}.txt" for i in range(5)))
    outcome = await glob.call("glob", pattern="*.txt", limit=2)
    assert text(outcome) == (
        "Found 5 files; showing the first 2 (sorted by path). Narrow the pattern or the "
        "path to see the rest.\n\nf0.txt\nf1.txt"
    )
    assert outcome.output == {"files": ["f0.txt", "f1.txt"], "total": 5, "truncated": True}


async def test_no_match_explains_the_pattern_rules(glob, tree):
    outcome = await glob.call("glob", pattern="*.rs")
    assert outcome.status == "completed"
    assert text(outcome).startswith("No files found matching '*.rs' in the project root.")
    assert outcome.output == {"files": [], "total": 0, "truncated": False}


async def test_a_missing_directory_fails_clearly(glob, root):
    outcome = await glob.call("glob", pattern="*", path="nope")
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message.startswith("Directory not found: nope.")


async def test_a_file_is_not_a_directory(glob, tree):
    outcome = await glob.call("glob", pattern="*", path="a.py")
    assert outcome.status == "failed"
    assert outcome.error.message.startswith("a.py is a file, not a directory.")


async def test_an_empty_pattern_is_refused_by_validation_or_the_tool(glob, root):
    assert (await glob.call("glob", pattern="")).status == "failed"
    blank = await glob.call("glob", pattern="  ")
    assert blank.status == "failed" and "empty" in blank.error.message


async def test_outside_the_location_asks_external_directory_then_lists_absolute(
    glob, root, tmp_path, asker
):
    outside = tmp_path / "elsewhere"
    make(outside, "n.md")
    outcome = await glob.call("glob", pattern="*.md", path=str(outside))
    assert text(outcome) == str(outside / "n.md")
    assert [(r.action, r.resources) for r in asker.requests] == [
        ("external_directory", (os.path.join(outside, "*"),))
    ]


async def test_an_outside_ask_rejected_lists_nothing(glob, tmp_path, asker):
    make(tmp_path / "elsewhere", "n.md")
    asker.replies["external_directory"] = "reject"
    outcome = await glob.call("glob", pattern="*.md", path="../elsewhere")
    assert outcome.status == "declined" and "n.md" not in text(outcome)


async def test_an_ask_rule_asks_for_the_searched_directory(builtins, tree, tmp_path, asker):
    asking = with_rule(builtins, tree, tmp_path, asker, "ask")
    outcome = await asking.call("glob", pattern="*.py", path="src")
    assert outcome.status == "completed"
    [request] = asker.requests
    assert (request.action, request.resources) == ("glob", (str(tree / "src"),))
    assert request.metadata["pattern"] == "*.py"


async def test_reject_declines_and_feedback_fails_with_it(builtins, tree, tmp_path, asker):
    asking = with_rule(builtins, tree, tmp_path, asker, "ask")
    asker.replies["glob"] = "reject"
    declined = await asking.call("glob", pattern="*.py")
    assert declined.status == "declined" and "a.py" not in text(declined)
    asker.replies["glob"] = Reject("only look in src")
    corrected = await asking.call("glob", pattern="*.py")
    assert corrected.status == "failed" and corrected.error.type == "tool.execution"
    assert "only look in src" in corrected.error.message


async def test_a_deny_rule_fails_as_permission_rejected(builtins, tree, tmp_path, asker):
    denied = with_rule(builtins, tree, tmp_path, asker, "deny")
    outcome = await denied.call("glob", pattern="*.py")
    assert outcome.status == "failed" and outcome.error.type == "permission.rejected"
    assert asker.requests == []


def test_glob_is_a_native_tool_with_its_own_action(glob):
    snapshot = glob.service.snapshot()
    [definition] = snapshot.definitions_for("anthropic")
    assert definition["name"] == "glob"
    assert set(definition["input_schema"]["properties"]) == {"pattern", "path", "limit"}
    tool = snapshot.get("glob")
    assert tool is not None and tool.codemode is False and tool.permission == "glob"


async def test_a_directory_named_with_a_no_break_space_is_found_and_named(builtins, root):
    builtins.load("glob", "grep")
    (root / "My\u00a0Notes").mkdir()
    (root / "My\u00a0Notes" / "a.md").write_text("needle\n")
    found = await builtins.call("glob", pattern="*.md", path="My Notes")
    assert found.status == "completed"
    assert found.content[0].text.startswith("(Note: 'My Notes' does not exist; used ")
    assert "a.md" in found.content[-1].text
    grepped = await builtins.call("grep", pattern="needle", path="My Notes")
    assert grepped.status == "completed" and "a.md" in grepped.content[-1].text


async def test_a_pattern_that_backtracks_runs_in_linear_time(glob, root):
    make(root, "a" * 200, "ab")  # as a backtracking regex: minutes on the 200-character name
    outcome = await glob.call("glob", pattern="*a" * 12 + "*b")
    assert outcome.status == "completed" and outcome.output["files"] == []
    assert (await glob.call("glob", pattern="*a*b")).output["files"] == ["ab"]


async def test_a_class_that_cannot_compile_fails_clearly(glob, root):
    outcome = await glob.call("glob", pattern="[z-a].py")
    assert outcome.status == "failed"
    assert "the glob pattern '[z-a].py' cannot be compiled: bad character range" in (
        outcome.error.message
    )


async def test_a_gitignore_line_that_backtracks_is_matched_in_linear_time(glob, root):
    (root / ".gitignore").write_text("*a" * 12 + "*b\n")
    make(root, "a" * 200, "a" * 12 + "b")
    outcome = await glob.call("glob", pattern="a*")
    assert outcome.output["files"] == ["a" * 200]
