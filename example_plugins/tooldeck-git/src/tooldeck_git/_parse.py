"""Parsers for git's machine formats: ``status --porcelain=v2 -z``, ``--numstat -z``
and the ``\\x1f``/``\\x1e``-separated ``--format`` records the tools ask for.

Pure functions over text. A record cut off by the output cap is dropped, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tooldeck_git._models import Change, Commit, CommitDetail, FileChange, FileStat

FIELD = "\x1f"
RECORD = "\x1e"
LOG_FORMAT = "%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1e"
SHOW_FORMAT = "%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%P%x1f%b"

_CHANGES: dict[str, Change] = {
    "M": "modified",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type-changed",
}


# -- status --------------------------------------------------------------------------------
@dataclass
class Status:
    """``git status --porcelain=v2 --branch -z``, parsed."""

    branch: str | None = None
    commit: str | None = None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    staged: list[FileChange] = field(default_factory=list)
    unstaged: list[FileChange] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)
    conflicted: list[str] = field(default_factory=list)


def parse_status(text: str, *, complete: bool = True) -> Status:
    """Parse porcelain v2; with ``complete=False`` the last (cut) record is dropped."""
    status = Status()
    records = text.split("\0")
    if not complete or records[-1] == "":
        records.pop()
    entries = iter(records)
    for record in entries:
        kind, _, rest = record.partition(" ")
        if kind == "#":
            _header(status, rest)
        elif kind in ("1", "2"):
            fields = rest.split(" ", 8 if kind == "2" else 7)
            original = next(entries, None) if kind == "2" else None
            _changed(status, fields[0], fields[-1], original)
        elif kind == "u":
            status.conflicted.append(rest.split(" ", 9)[-1])
        elif kind == "?":
            status.untracked.append(rest)
    return status


def _header(status: Status, header: str) -> None:
    key, _, value = header.partition(" ")
    if key == "branch.oid":
        status.commit = None if value == "(initial)" else value
    elif key == "branch.head":
        status.branch = None if value == "(detached)" else value
    elif key == "branch.upstream":
        status.upstream = value
    elif key == "branch.ab":
        ahead, _, behind = value.partition(" ")
        status.ahead, status.behind = int(ahead.lstrip("+")), int(behind.lstrip("-"))


def _changed(status: Status, xy: str, path: str, original: str | None) -> None:
    staged, unstaged = xy[0], xy[1]
    if staged != ".":
        status.staged.append(
            FileChange(path=path, change=_CHANGES.get(staged, "modified"), original_path=original)
        )
    if unstaged != ".":
        status.unstaged.append(FileChange(path=path, change=_CHANGES.get(unstaged, "modified")))


# -- numstat -------------------------------------------------------------------------------
def parse_numstat(text: str) -> list[FileStat]:
    """``--numstat -z``: ``added\\tdeleted\\tpath\\0``, or for a rename
    ``added\\tdeleted\\t\\0old\\0new\\0``; binary files count ``-``."""
    stats: list[FileStat] = []
    records = iter(text.lstrip("\n").split("\0"))
    for record in records:
        parts = record.lstrip("\n").split("\t")
        if len(parts) != 3:
            continue
        added, deleted, path = parts
        original = None
        if path == "":
            original, path = next(records, ""), next(records, "")
            if not path:
                break  # cut off by the output cap
        binary = added == "-"
        stats.append(
            FileStat(
                path=path,
                added=0 if binary else int(added),
                deleted=0 if binary else int(deleted),
                binary=binary,
                original_path=original,
            )
        )
    return stats


# -- commits -------------------------------------------------------------------------------
def parse_log(text: str) -> list[Commit]:
    """Records of ``LOG_FORMAT``; a record cut off by the cap has too few fields."""
    commits = []
    for record in text.split(RECORD):
        fields = record.lstrip("\n").split(FIELD)
        if len(fields) == 5:
            sha, author, email, date, subject = fields
            commits.append(Commit(sha=sha, author=author, email=email, date=date, subject=subject))
    return commits


def parse_show(text: str) -> CommitDetail:
    """One record of ``SHOW_FORMAT`` (the body may contain anything but ``\\x1f``)."""
    sha, author, email, date, subject, parents, body = text.split(FIELD, 6)
    return CommitDetail(
        sha=sha,
        author=author,
        email=email,
        date=date,
        subject=subject,
        parents=parents.split(),
        body=body.strip("\n"),
    )
