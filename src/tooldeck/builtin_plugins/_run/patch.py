"""How ``patch`` runs (the tool is declared in ``builtin_plugins/patch.py``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn, TypeAlias

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import (
    Diff,
    FileServices,
    TextFile,
    decode_text,
    feedback_as_failure,
    file_executor,
    os_failure,
    read_bytes,
    unified_diff,
)
from tooldeck.builtin_plugins._run.patch_parse import (
    AddFile,
    DeleteFile,
    HunkMismatch,
    Operation,
    PatchSyntaxError,
    UpdateFile,
    apply_hunks,
    parse_patch,
)
from tooldeck.builtin_plugins.patch import EDIT, PatchedFile, PatchInput, PatchOutput, Status

_NOT_APPLIED = "Patch not applied; nothing was written."


async def _patch(services: FileServices, args: PatchInput, ctx: ToolContext) -> ToolResult:
    try:
        operations = parse_patch(args.patch_text)
    except PatchSyntaxError as exc:
        raise ToolFailure(f"Invalid patch: {exc}. {_NOT_APPLIED}", cause=exc) from exc
    targets = await _Resolver(ctx, services).all(operations)
    changes = _Planner(services).plan(targets)
    diffs = [_diff(change, services) for change in changes]
    await _ask(ctx, services, changes, diffs)
    _write_all(changes, services)
    return _result(changes, services, diffs)


executor = file_executor(_patch)
"""``patch`` bound to the Location's file services (see ``files.file_executor``)."""


async def _ask(
    ctx: ToolContext, services: FileServices, changes: Sequence[_Change], diffs: Sequence[Diff]
) -> None:
    """One ``edit`` ask for every file the patch writes, moves or deletes."""
    metadata = {
        "diff": "".join(diff.text for diff in diffs),
        "files": [str(change.path) for change in changes],
        "operations": [_label(change, services) for change in changes],
    }
    with feedback_as_failure("this patch"):
        await services.gate(ctx).assert_(EDIT, _resources(changes), metadata=metadata)


def _resources(changes: Sequence[_Change]) -> list[str]:
    paths: dict[str, None] = {}
    for change in changes:
        if change.source is not None:
            paths[str(change.source)] = None
        paths[str(change.path)] = None
    return list(paths)


# -- resolving --------------------------------------------------------------------------------
_Target: TypeAlias = tuple[Operation, Path, Path | None]


class _Resolver:
    """Every path of the patch, asking ``external_directory`` once per outside directory."""

    def __init__(self, ctx: ToolContext, services: FileServices) -> None:
        self.gate = services.gate(ctx)
        self.services = services
        self.resolved: dict[str, Path] = {}
        self.approved: set[Path] = set()

    async def all(self, operations: Sequence[Operation]) -> list[_Target]:
        targets: list[_Target] = []
        for op in operations:
            path = await self.one(op.path)
            destination = None
            if isinstance(op, UpdateFile) and op.move_to is not None:
                destination = await self.one(op.move_to)
            targets.append((op, path, destination))
        return targets

    async def one(self, raw: str) -> Path:
        if raw not in self.resolved:
            path = self.services.lexical(raw)
            if not self._covered(path):
                path = await self.services.resolve(self.gate, raw, "file")
                self.approved.add(path.parent)
            self.resolved[raw] = path
        return self.resolved[raw]

    def _covered(self, path: Path) -> bool:
        """Already approved in this call: the same directory, and not a symlink (whose
        target may need an ask of its own)."""
        return path.parent in self.approved and not path.is_symlink()


# -- planning ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Change:
    """One verified operation: what to write at ``path`` (``None``: delete it)."""

    status: Status
    path: Path
    before: str | None  # None: a new file
    after: TextFile | None
    source: Path | None = None  # a move: removed once ``path`` is written


def _label(change: _Change, services: FileServices) -> str:
    if change.source is not None:
        return f"M {services.shown(change.source)} -> {services.shown(change.path)}"
    return f"{change.status} {services.shown(change.path)}"


class _Planner:
    """Applies the operations to an in-memory overlay of the files they touch."""

    def __init__(self, services: FileServices) -> None:
        self.services = services
        self.overlay: dict[Path, TextFile | None] = {}

    def plan(self, targets: Sequence[_Target]) -> list[_Change]:
        return [self._one(op, path, destination) for op, path, destination in targets]

    def _one(self, op: Operation, path: Path, destination: Path | None) -> _Change:
        if isinstance(op, AddFile):
            return self._add(op, path)
        if isinstance(op, DeleteFile):
            return self._delete(path)
        return self._update(op, path, destination)

    def _add(self, op: AddFile, path: Path) -> _Change:
        if self._exists(path):
            self._fail(
                f"'*** Add File: {op.path}': {self.services.shown(path)} already exists. Use "
                "'*** Update File:' to change it (or delete it first in the same patch)."
            )
        text = TextFile(op.text)
        self.overlay[path] = text
        return _Change("A", path, None, text)

    def _delete(self, path: Path) -> _Change:
        current = self._read(path, "Delete File")
        self.overlay[path] = None
        return _Change("D", path, current.text, None)

    def _update(self, op: UpdateFile, path: Path, destination: Path | None) -> _Change:
        current = self._read(path, "Update File")
        try:
            updated = replace(current, text=apply_hunks(current.text, op.hunks))
        except HunkMismatch as exc:
            self._fail(_mismatch(self.services.shown(path), exc))
        if destination is None or destination == path:
            self.overlay[path] = updated
            return _Change("M", path, current.text, updated)
        if self._exists(destination):
            self._fail(
                f"'*** Move to: {op.move_to}': {self.services.shown(destination)} already "
                "exists. Move to a new path, or delete that file first in the same patch."
            )
        self.overlay[path] = None
        self.overlay[destination] = updated
        return _Change("M", destination, current.text, updated, source=path)

    def _exists(self, path: Path) -> bool:
        if path in self.overlay:
            return self.overlay[path] is not None
        return os.path.lexists(path)

    def _read(self, path: Path, directive: str) -> TextFile:
        shown = self.services.shown(path)
        if path in self.overlay:
            text = self.overlay[path]
            if text is None:
                self._fail(
                    f"'*** {directive}: {shown}': an earlier operation of this "
                    "patch deleted or moved that file."
                )
            return text
        try:
            data = read_bytes(path, shown, hint="Use '*** Add File:' to create it.")
            return decode_text(data, shown, purpose="patched")
        except ToolFailure as exc:
            self._fail(f"'*** {directive}: {shown}': {exc.message}")

    def _fail(self, message: str) -> NoReturn:
        raise ToolFailure(f"{_NOT_APPLIED} {message}")


def _mismatch(shown: str, exc: HunkMismatch) -> str:
    first = "\n".join(f"    {line}" for line in exc.hunk.lines[:3])
    header = f"    @@ {exc.hunk.header}\n" if exc.hunk.header else ""
    return (
        f"Hunk {exc.index + 1} of {shown} does not match the file: {exc.reason}. "
        f"The hunk starts:\n{header}{first}\n"
        "Read the file again and rebuild the hunk from its exact current lines."
    )


def _diff(change: _Change, services: FileServices) -> Diff:
    after = change.after.text if change.after is not None else ""
    return unified_diff(change.before, after, services.shown(change.path))


# -- writing ----------------------------------------------------------------------------------
def _write_all(changes: Sequence[_Change], services: FileServices) -> None:
    done: list[str] = []
    for change in changes:
        try:
            _write(change)
        except OSError as exc:
            rest = changes[len(done) + 1 :]
            raise ToolFailure(_midway(change, done, rest, services, exc), cause=exc) from exc
        done.append(_label(change, services))


def _write(change: _Change) -> None:
    if change.after is None:
        change.path.unlink()
        return
    change.path.parent.mkdir(parents=True, exist_ok=True)
    change.path.write_bytes(change.after.encode(change.after.text))
    if change.source is not None:
        os.chmod(change.path, stat.S_IMODE(os.stat(change.source).st_mode))
        change.source.unlink()


def _midway(
    failed: _Change,
    done: Sequence[str],
    rest: Sequence[_Change],
    services: FileServices,
    exc: OSError,
) -> str:
    reason = os_failure(exc, *_failed_step(failed, exc, services)).message
    lines = [
        f"Patch failed at '{_label(failed, services)}'. {reason}",
        "Completed before the failure (these changes are on disk):",
        *(f"  {label}" for label in done or ["(none)"]),
    ]
    if rest:
        lines.append("Not applied:")
        lines.extend(f"  {_label(change, services)}" for change in rest)
    lines.append("Fix the cause, then send a patch with only the operations not yet applied.")
    return "\n".join(lines)


def _failed_step(change: _Change, exc: OSError, services: FileServices) -> tuple[str, str]:
    """The file and the verb for the message: a move can also fail removing its source."""
    if change.after is None:
        return services.shown(change.path), "delete"
    if change.source is not None and exc.filename == str(change.source):
        return services.shown(change.source), "remove"
    return services.shown(change.path), "write"


# -- reporting --------------------------------------------------------------------------------
def _result(
    changes: Sequence[_Change], services: FileServices, diffs: Sequence[Diff]
) -> ToolResult:
    labels = [_label(change, services) for change in changes]
    files = [
        PatchedFile(
            status=change.status,
            path=str(change.path),
            moved_from=str(change.source) if change.source is not None else None,
            additions=diff.additions,
            deletions=diff.deletions,
        )
        for change, diff in zip(changes, diffs, strict=True)
    ]
    text = "Success. Updated the following files:\n" + "\n".join(labels)
    return ToolResult(
        content=text,
        metadata={"diff": "".join(diff.text for diff in diffs), "files": labels},
        output=PatchOutput(files=files),
    )
