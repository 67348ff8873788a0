"""Real git repositories in temp dirs, an isolated HOME, and a scripted permission asker."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from typing import Any

import pytest
import tooldeck

import tooldeck_git


@pytest.fixture(params=["code", "native"])
def mode(request):
    """Every test runs with code mode on (the git tools behind ``execute``) and off."""
    return request.param


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch, mode):
    """No user or system config leaks in: git's, and tooldeck's. The user config is
    where ``native`` mode turns code mode off, so a test may write the project's own."""
    home = tmp_path / "home"
    (home / ".config" / "tooldeck").mkdir(parents=True)
    if mode == "native":
        (home / ".config" / "tooldeck" / "config.toml").write_text("[codemode]\nenabled = false\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Ada Lovelace")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "ada@example.com")
        monkeypatch.setenv(f"GIT_{role}_DATE", "2024-05-01T12:00:00+02:00")


def git(cwd, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=120
    )
    return done.stdout


@pytest.fixture
def project(tmp_path):
    """An empty git repository (branch ``main``, no commits) as the project root."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


@pytest.fixture
def repo(project):
    """``project`` with one commit adding README.md."""
    (project / "README.md").write_text("# demo\n")
    git(project, "add", "README.md")
    git(project, "commit", "-q", "-m", "Add README", "-m", "The first commit.")
    return project


@dataclass
class Asker:
    """Replies per action (default "once") and records every request."""

    replies: dict[str, Any] = field(default_factory=dict)
    requests: list[Any] = field(default_factory=list)

    def __call__(self, request):
        self.requests.append(request)
        return self.replies.get(request.action, "once")

    def actions(self):
        return [r.action for r in self.requests]


@pytest.fixture
def asker():
    return Asker()


@pytest.fixture
def open_host(asker):
    def open_(root):
        return tooldeck.Host.open(root, plugins=[tooldeck_git], asker=asker)

    return open_


@pytest.fixture
def call(open_host):
    """``await call(root, "git_status", path=...)``: one call against a Host on ``root``."""

    async def call_(root, tool_name, /, **arguments):
        snapshot = open_host(root).snapshot()
        call = tooldeck.ToolCall("call_1", tool_name, arguments)
        return await tooldeck.run_tool_call(snapshot, call, session_id="s", message_id="m")

    return call_


@pytest.fixture
def run_git():
    return git
