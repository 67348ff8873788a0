"""The tools' inputs and declared outputs (pydantic models: the schema edge).

Every path in an output is relative to the repository root, the way git prints it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Change = Literal["modified", "added", "deleted", "renamed", "copied", "type-changed"]

_PATH = Field(
    default=None,
    description="A directory inside the repository to run in: relative to the project "
    "root, or absolute. Default: the project root.",
)
_FILE = Field(
    default=None,
    description="Only this file or directory, relative to `path` (default: everything).",
)


# -- inputs --------------------------------------------------------------------------------
class StatusInput(BaseModel):
    path: str | None = _PATH


class LogInput(BaseModel):
    path: str | None = _PATH
    ref: str = Field(
        default="HEAD",
        description="Where history starts: a branch, tag, commit or range such as `main..feature`.",
    )
    max_count: int = Field(default=20, ge=1, le=200, description="The most commits to list.")
    skip: int = Field(default=0, ge=0, description="Commits to skip first, to page on.")
    file: str | None = _FILE


class DiffInput(BaseModel):
    path: str | None = _PATH
    staged: bool = Field(
        default=False,
        description="Diff the staged changes (index against HEAD) instead of the unstaged "
        "ones (working tree against the index).",
    )
    ref: str | None = Field(
        default=None,
        description="Compare against this commit instead (`HEAD~3`, `main`), or give a "
        "range `a..b` to diff two commits.",
    )
    file: str | None = _FILE


class ShowInput(BaseModel):
    path: str | None = _PATH
    rev: str = Field(default="HEAD", description="The commit to show: sha, branch, tag, HEAD~2.")


# -- outputs -------------------------------------------------------------------------------
class FileChange(BaseModel):
    path: str
    change: Change
    original_path: str | None = Field(default=None, description="The old path of a rename/copy.")


class StatusOutput(BaseModel):
    root: str = Field(description="The repository's top-level directory.")
    branch: str | None = Field(description="The current branch; null when HEAD is detached.")
    commit: str | None = Field(description="HEAD's sha; null before the first commit.")
    upstream: str | None = Field(default=None, description="The tracked branch, if any.")
    ahead: int = Field(default=0, description="Commits on the branch not on its upstream.")
    behind: int = Field(default=0, description="Commits on the upstream not on the branch.")
    staged: list[FileChange] = Field(description="Changes in the index (to be committed).")
    unstaged: list[FileChange] = Field(description="Changes in the working tree only.")
    untracked: list[str] = Field(description="Files git does not track (ignored ones left out).")
    conflicted: list[str] = Field(default_factory=list, description="Unmerged paths.")


class Commit(BaseModel):
    sha: str
    author: str
    email: str
    date: str = Field(description="Author date, ISO 8601 with offset.")
    subject: str


class LogOutput(BaseModel):
    root: str
    commits: list[Commit] = Field(description="Newest first.")
    more: bool = Field(description="Whether older commits follow (page on with `skip`).")


class FileStat(BaseModel):
    path: str
    added: int = Field(description="Lines added (0 for binary files).")
    deleted: int = Field(description="Lines deleted (0 for binary files).")
    binary: bool = False
    original_path: str | None = Field(default=None, description="The old path of a rename.")


class DiffOutput(BaseModel):
    root: str
    files: list[FileStat]
    patch: str = Field(description="The unified diff (cut when `truncated`).")
    truncated: bool = False


class CommitDetail(Commit):
    body: str = Field(description="The message after the subject line.")
    parents: list[str]


class ShowOutput(BaseModel):
    root: str
    commit: CommitDetail
    files: list[FileStat] = Field(description="Changed files (against the first parent).")
    patch: str = Field(description="The unified diff (cut when `truncated`).")
    truncated: bool = False
