"""What the model reads: short, plain text built from the declared outputs."""

from __future__ import annotations

from tooldeck_git._models import (
    DiffInput,
    DiffOutput,
    FileChange,
    FileStat,
    LogInput,
    LogOutput,
    ShowOutput,
    StatusOutput,
)


def render_status(out: StatusOutput) -> str:
    lines = [
        f"On branch {out.branch}" if out.branch else f"HEAD detached at {(out.commit or '')[:12]}"
    ]
    if out.commit is None:
        lines.append("No commits yet.")
    if out.upstream:
        lines.append(f"Tracking {out.upstream}: {out.ahead} ahead, {out.behind} behind.")
    sections = [
        ("Conflicted", out.conflicted),
        ("Staged", [_change(c) for c in out.staged]),
        ("Unstaged", [_change(c) for c in out.unstaged]),
        ("Untracked", out.untracked),
    ]
    for title, entries in sections:
        if entries:
            lines += [f"{title} ({len(entries)}):", *(f"  {entry}" for entry in entries)]
    if not (out.conflicted or out.staged or out.unstaged or out.untracked):
        lines.append("Nothing to commit, working tree clean.")
    return "\n".join(lines)


def _change(change: FileChange) -> str:
    moved = f"{change.original_path} -> " if change.original_path else ""
    return f"{change.change}: {moved}{change.path}"


def render_log(out: LogOutput, data: LogInput) -> str:
    if not out.commits:
        return "No commits." if data.skip == 0 else f"No commits after skipping {data.skip}."
    lines = [f"{c.sha[:12]} {c.date[:10]} {c.author}: {c.subject}" for c in out.commits]
    if out.more:
        lines.append(f"(More commits follow: use skip={data.skip + len(out.commits)}.)")
    return "\n".join(lines)


def render_diff(out: DiffOutput, data: DiffInput) -> str:
    if not out.files:
        if data.ref or data.staged:
            return "No differences."
        return "No unstaged changes. (Staged changes: call again with staged=true.)"
    return "\n".join([_summary(out.files), "", _patch(out.patch, out.truncated)])


def render_show(out: ShowOutput) -> str:
    c = out.commit
    lines = [f"commit {c.sha}", f"Author: {c.author} <{c.email}>", f"Date:   {c.date}"]
    if len(c.parents) > 1:
        lines.append(f"Merge:  {' '.join(p[:12] for p in c.parents)} (diff against the first)")
    lines += ["", f"    {c.subject}"]
    if c.body:
        lines += ["", *(f"    {line}" for line in c.body.splitlines())]
    if out.files:
        lines += ["", _summary(out.files), "", _patch(out.patch, out.truncated)]
    return "\n".join(lines)


def _summary(files: list[FileStat]) -> str:
    rows = [
        f"  {_stat(f)} {f'{f.original_path} -> ' if f.original_path else ''}{f.path}" for f in files
    ]
    added, deleted = sum(f.added for f in files), sum(f.deleted for f in files)
    return "\n".join([f"{len(files)} file(s) changed, +{added} -{deleted}:", *rows])


def _stat(stat: FileStat) -> str:
    return "binary" if stat.binary else f"+{stat.added} -{stat.deleted}"


def _patch(patch: str, truncated: bool) -> str:
    if not truncated:
        return patch.rstrip("\n")
    return (
        patch[: patch.rfind("\n") + 1] + "(The patch was cut here. Pass `file` to see "
        "one file's changes.)"
    )
