"""The four tools: ``git_status``, ``git_log``, ``git_diff``, ``git_show``.

Every call follows the same order: resolve ``path`` against the Location (asking
``external_directory`` when it leads outside), assert ``git.read`` on that directory,
and only then run git. Nothing touches the repository before the user said yes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck import PermissionCorrected, Tool, ToolContext, ToolFailure, ToolResult
from tooldeck.paths import resolve_in_location

from tooldeck_git._models import (
    DiffInput,
    DiffOutput,
    FileStat,
    LogInput,
    LogOutput,
    ShowInput,
    ShowOutput,
    StatusInput,
    StatusOutput,
)
from tooldeck_git._parse import (
    LOG_FORMAT,
    SHOW_FORMAT,
    parse_log,
    parse_numstat,
    parse_show,
    parse_status,
)
from tooldeck_git._render import render_diff, render_log, render_show, render_status
from tooldeck_git._run import checked, run_git

ACTION = "git.read"
"""The permission action all four tools assert (and their catalog action)."""

NAMESPACE = "git"
MAX_PATCH_BYTES = 256 * 1024
DIFF_OPTIONS = ("--no-ext-diff", "--no-textconv", "--no-color")


@dataclass(frozen=True, slots=True)
class Repo:
    """Where a call runs: ``cwd`` (the approved directory) inside repository ``root``."""

    cwd: Path
    root: str


async def open_repo(ctx: ToolContext, path: str | None) -> Repo:
    """Resolve and approve ``path``, then find the repository it is in."""
    gate = ctx.permission
    with _feedback_as_failure():
        cwd = await resolve_in_location(gate, ctx.location, path or ".", kind="directory")
        await gate.assert_(
            ACTION, [str(cwd)], save=[str(cwd), f"{cwd}/**"], metadata={"path": str(cwd)}
        )
    if not cwd.is_dir():
        what = "is not a directory" if cwd.exists() else "does not exist"
        raise ToolFailure(f"{path or '.'} {what}. Pass a directory inside a git repository.")
    run = checked(await run_git(["rev-parse", "--show-toplevel"], cwd), "find the repository")
    return Repo(cwd, run.text.strip())


@contextlib.contextmanager
def _feedback_as_failure() -> Iterator[None]:
    """A rejection *with feedback* is for the model: it reads it and adapts."""
    try:
        yield
    except PermissionCorrected as exc:
        raise ToolFailure(
            f"The user rejected running git here and said: {exc.feedback}", cause=exc
        ) from exc


def _pathspec(file: str | None) -> list[str]:
    return ["--", file] if file else []


# -- git_status ----------------------------------------------------------------------------
async def status(data: StatusInput, ctx: ToolContext) -> ToolResult:
    repo = await open_repo(ctx, data.path)
    run = checked(
        await run_git(["status", "--porcelain=v2", "--branch", "-z"], repo.cwd),
        "read the status",
    )
    parsed = parse_status(run.text, complete=not run.truncated)
    output = StatusOutput(root=repo.root, **vars(parsed))
    return ToolResult(render_status(output), {"root": repo.root}, output)


# -- git_log -------------------------------------------------------------------------------
async def log(data: LogInput, ctx: ToolContext) -> ToolResult:
    repo = await open_repo(ctx, data.path)
    args = [
        "log",
        f"--format={LOG_FORMAT}",
        f"--max-count={data.max_count + 1}",
        f"--skip={data.skip}",
        "--end-of-options",
        data.ref,
        *_pathspec(data.file),
    ]
    run = await run_git(args, repo.cwd)
    if run.returncode != 0 and not await _has_commits(repo):
        commits = []
    else:
        commits = parse_log(checked(run, f"list the history of {data.ref}").text)
    output = LogOutput(
        root=repo.root, commits=commits[: data.max_count], more=len(commits) > data.max_count
    )
    return ToolResult(render_log(output, data), {"root": repo.root}, output)


# -- git_diff ------------------------------------------------------------------------------
async def diff(data: DiffInput, ctx: ToolContext) -> ToolResult:
    repo = await open_repo(ctx, data.path)
    args = ["diff", *DIFF_OPTIONS, *(["--cached"] if data.staged else [])]
    if data.ref:
        args += ["--end-of-options", data.ref]
    args += _pathspec(data.file)
    files, patch, truncated = await _changes(args, repo, "compute the diff")
    output = DiffOutput(root=repo.root, files=files, patch=patch, truncated=truncated)
    return ToolResult(render_diff(output, data), {"root": repo.root}, output)


async def _changes(args: list[str], repo: Repo, what: str) -> tuple[list[FileStat], str, bool]:
    """``--numstat`` then the patch for the same ``git diff``/``git show`` arguments."""
    stats = checked(await run_git([*args[:1], "--numstat", "-z", *args[1:]], repo.cwd), what)
    patch = checked(await run_git(args, repo.cwd, limit=MAX_PATCH_BYTES), what)
    return parse_numstat(stats.text), patch.text, patch.truncated


# -- git_show ------------------------------------------------------------------------------
async def show(data: ShowInput, ctx: ToolContext) -> ToolResult:
    repo = await open_repo(ctx, data.path)
    sha = await _commit(repo, data.rev)
    header = checked(
        await run_git(["show", "-s", f"--format={SHOW_FORMAT}", sha], repo.cwd),
        f"show {data.rev}",
    )
    args = ["show", *DIFF_OPTIONS, "--diff-merges=first-parent", "--format=", sha]
    files, patch, truncated = await _changes(args, repo, f"show {data.rev}")
    output = ShowOutput(
        root=repo.root,
        commit=parse_show(header.text),
        files=files,
        patch=patch,
        truncated=truncated,
    )
    return ToolResult(render_show(output), {"root": repo.root, "sha": sha}, output)


async def _commit(repo: Repo, rev: str) -> str:
    """The sha of commit ``rev`` (tags peeled); blobs and trees are refused."""
    run = await run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], repo.cwd
    )
    if run.returncode == 0:
        return run.text.strip()
    if not await _has_commits(repo):
        raise ToolFailure("The repository has no commits yet, so there is nothing to show.")
    raise ToolFailure(
        f"{rev!r} is not a commit in {repo.root}. Use a sha, branch or tag (git_log lists "
        "commits); to read a file's content, use the read tool instead."
    )


async def _has_commits(repo: Repo) -> bool:
    head = await run_git(["rev-parse", "--verify", "--quiet", "HEAD"], repo.cwd)
    return head.returncode == 0


# -- the tool objects ----------------------------------------------------------------------
# Typed ``Tool[Input, Output]``: mypy checks each executor against its input model here.
STATUS: Tool[StatusInput, StatusOutput] = Tool(
    name="status",
    namespace=NAMESPACE,
    permission=ACTION,
    input=StatusInput,
    output=StatusOutput,
    execute=status,
    description="The repository's branch, staged, unstaged, untracked and conflicted "
    "files (like `git status`). Paths are relative to the repository root.",
)
LOG: Tool[LogInput, LogOutput] = Tool(
    name="log",
    namespace=NAMESPACE,
    permission=ACTION,
    input=LogInput,
    output=LogOutput,
    execute=log,
    description="Commits newest first: sha, author, date and subject (like `git log`). "
    "Page on with `skip`; `file` limits it to one file's history.",
)
DIFF: Tool[DiffInput, DiffOutput] = Tool(
    name="diff",
    namespace=NAMESPACE,
    permission=ACTION,
    input=DiffInput,
    output=DiffOutput,
    execute=diff,
    description="Uncommitted changes as a unified diff with per-file line counts (like "
    "`git diff`): unstaged by default, `staged=true` for the index, `ref` "
    "to compare with a commit or a range `a..b`.",
)
SHOW: Tool[ShowInput, ShowOutput] = Tool(
    name="show",
    namespace=NAMESPACE,
    permission=ACTION,
    input=ShowInput,
    output=ShowOutput,
    execute=show,
    description="One commit: its message, parents, changed files and patch (like `git "
    "show`). Merges are shown against their first parent.",
)
TOOLS: tuple[Tool[Any, Any], ...] = (STATUS, LOG, DIFF, SHOW)
