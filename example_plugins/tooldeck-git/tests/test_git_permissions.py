"""Permission (``git.read``, asked before git runs) and the failures a model can act on."""

from __future__ import annotations

import os

import pytest
import tooldeck

import tooldeck_git
from tooldeck_git import _run, _tools


async def test_every_tool_asks_git_read_on_the_directory_it_runs_in(repo, call, asker):
    for name in ["git_status", "git_log", "git_diff", "git_show"]:
        assert (await call(repo, name)).status == "completed"
    assert asker.actions() == ["git.read"] * 4
    request = asker.requests[0]
    assert request.resources == (str(repo),)
    assert request.save == (str(repo), f"{repo}/**")
    assert request.source == {"type": "tool", "message_id": "m", "id": "call_1"}


async def test_a_subdirectory_is_asked_for_itself(repo, call, asker):
    (repo / "docs").mkdir()
    await call(repo, "git_status", path="docs")
    assert asker.requests[0].resources == (str(repo / "docs"),)


async def test_always_covers_the_directory_and_below(repo, open_host, asker):
    (repo / "docs").mkdir()
    asker.replies["git.read"] = "always"
    snapshot = open_host(repo).snapshot()
    for call_id, path in [("c1", "."), ("c2", "docs"), ("c3", ".")]:
        call = tooldeck.ToolCall(call_id, "git_status", {"path": path})
        assert (await tooldeck.run_tool_call(snapshot, call)).status == "completed"
    assert len(asker.requests) == 1


async def test_a_rejection_declines_the_call_before_git_runs(repo, call, asker, monkeypatch):
    async def must_not_run(*args, **kwargs):
        raise AssertionError("git ran before the permission was granted")

    monkeypatch.setattr(_tools, "run_git", must_not_run)
    asker.replies["git.read"] = "reject"
    outcome = await call(repo, "git_status")
    assert outcome.status == "declined"


async def test_a_rejection_with_feedback_reaches_the_model(repo, call, asker):
    asker.replies["git.read"] = tooldeck.Reject("use the shell instead")
    outcome = await call(repo, "git_log")
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert "use the shell instead" in outcome.error.message


def test_a_deny_rule_hides_all_four_tools(repo, open_host):
    (repo / "tooldeck.toml").write_text(
        '[[permission]]\naction = "git.read"\nresource = "*"\neffect = "deny"\n'
    )
    names = open_host(repo).snapshot().names
    assert not [name for name in names if name.startswith("git_")]
    assert "read" in names and "execute" not in names  # no visible code-mode tool is left


async def test_an_allow_rule_needs_no_asker(repo):
    (repo / "tooldeck.toml").write_text(
        '[[permission]]\naction = "git.read"\nresource = "*"\neffect = "allow"\n'
    )
    # no asker at all; a project `allow` rule counts once its folder is trusted
    host = tooldeck.Host.open(repo, plugins=[tooldeck_git], trust=True)
    call = tooldeck.ToolCall("c1", "git_status", {})
    assert (await tooldeck.run_tool_call(host.snapshot(), call)).status == "completed"


async def test_outside_the_project_external_directory_is_asked_first(
    repo, tmp_path, call, asker, run_git
):
    other = tmp_path / "other"
    other.mkdir()
    run_git(other, "init", "-q")
    outcome = await call(repo, "git_status", path=str(other))
    assert outcome.status == "completed"
    assert asker.actions() == ["external_directory", "git.read"]
    assert outcome.output["root"] == str(other)


# -- failures ------------------------------------------------------------------------------
async def test_not_a_repository(tmp_path, call, asker):
    plain = tmp_path / "plain"
    plain.mkdir()
    outcome = await call(plain, "git_status")
    assert outcome.status == "failed"
    assert "not a git repository" in outcome.error.message
    assert "Pass `path` pointing into a git repository" in outcome.error.message
    assert asker.actions() == ["git.read"]  # asked before anything ran


async def test_a_missing_directory(repo, call):
    outcome = await call(repo, "git_status", path="nope")
    assert outcome.status == "failed"
    assert "nope does not exist" in outcome.error.message


async def test_git_not_installed(repo, call, tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    outcome = await call(repo, "git_status")
    assert outcome.status == "failed"
    assert outcome.error.message == _run.GIT_MISSING


async def test_a_hanging_git_is_killed_at_the_timeout(repo, call, tmp_path, monkeypatch):
    bin_dir = tmp_path / "slow-bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(_run, "TIMEOUT_SECONDS", 0.3)
    outcome = await call(repo, "git_status")
    assert outcome.status == "failed"
    assert "did not finish within 0.3 seconds" in outcome.error.message


@pytest.mark.parametrize(
    "tool_name, argument",
    [
        ("git_log", {"ref": "--output=injected.txt"}),
        ("git_diff", {"ref": "--output=injected.txt"}),
        ("git_show", {"rev": "--output=injected.txt"}),
    ],
)
async def test_a_revision_is_never_read_as_an_option(repo, call, tool_name, argument):
    outcome = await call(repo, tool_name, **argument)
    assert outcome.status == "failed"
    assert not (repo / "injected.txt").exists()


async def test_a_repository_config_cannot_run_programs(repo, call, run_git, tmp_path):
    marker = tmp_path / "ran"
    run_git(repo, "config", "core.fsmonitor", f"touch {marker}; false")
    run_git(repo, "config", "diff.external", f"sh -c 'touch {marker}'")
    (repo / "README.md").write_text("changed\n")
    for name in ["git_status", "git_diff", "git_log", "git_show"]:
        assert (await call(repo, name)).status == "completed"
    assert not marker.exists()
