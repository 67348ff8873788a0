"""How ``patch`` runs (the tool is declared in ``builtin_plugins/patch.py``)."""

from __future__ import annotations

import asyncio
import os
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
    not_found,
    os_failure,
    unified_diff,
)
from tooldeck.builtin_plugins._run.format import with_report, write_then_format
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
from tooldeck.builtin_plugins._run.writes import Staged, Target, stage, writing
from tooldeck.builtin_plugins.patch import EDIT, PatchedFile, PatchInput, PatchOutput, Status

_NOT_APPLIED = "Patch not applied; nothing was written."


async def _patch(services: FileServices, args: PatchInput, ctx: ToolContext) -> ToolResult:
    try:
        operations = parse_patch(args.patch_text)
    except PatchSyntaxError as exc:
        raise ToolFailure(f"Invalid patch: {exc}. {_NOT_APPLIED}", cause=exc) from exc
    resolver = _Resolver(ctx, services)
    targets = await resolver.all(operations)
    async with writing(services.location, *resolver.targets()):
        plan = await asyncio.to_thread(_Planner().plan, targets)
        await _ask(ctx, services, plan.changes, plan.diffs)
        written = [change.target.path for change in plan.changes if change.after is not None]
        done = await write_then_format(services, services.gate(ctx), written, lambda: _apply(plan))
    return with_report(_result(plan.changes, plan.diffs), done)


executor = file_executor(_patch)
"""``patch`` bound to the Location's file services (see ``files.file_executor``)."""


async def _ask(
    ctx: ToolContext, services: FileServices, changes: Sequence[_Change], diffs: Sequence[Diff]
) -> None:
    """One ``edit`` ask for every file the patch writes, moves or deletes."""
    metadata = {
        "diff": "".join(diff.text for diff in diffs),
        "files": [str(change.target.path) for change in changes],
        "operations": [_label(change) for change in changes],
    }
    with feedback_as_failure("this patch"):
        await services.gate(ctx).assert_(EDIT, _resources(changes), metadata=metadata)


def _resources(changes: Sequence[_Change]) -> list[str]:
    paths: dict[str, None] = {}
    for change in changes:
        if change.source is not None:
            paths[str(change.source.path)] = None
        paths[str(change.target.path)] = None
    return list(paths)


# -- resolving --------------------------------------------------------------------------------
_Step: TypeAlias = tuple[Operation, Target, Target | None]


class _Resolver:
    """Every path of the patch, asking ``external_directory`` once per outside directory."""

    def __init__(self, ctx: ToolContext, services: FileServices) -> None:
        self.gate = services.gate(ctx)
        self.services = services
        self.resolved: dict[str, Target] = {}
        self.approved: set[Path] = set()

    async def all(self, operations: Sequence[Operation]) -> list[_Step]:
        steps: list[_Step] = []
        for op in operations:
            target = await self.one(op.path)
            destination = None
            if isinstance(op, UpdateFile) and op.move_to is not None:
                destination = await self.one(op.move_to)
            steps.append((op, target, destination))
        return steps

    def targets(self) -> list[Target]:
        return list(self.resolved.values())

    async def one(self, raw: str) -> Target:
        if raw not in self.resolved:
            path = self.services.lexical(raw)
            if self._covered(path):
                target = Target.of(path, self.services.shown(path))
            else:
                target = await Target.resolve(self.services, self.gate, raw)
                self.approved.add(target.path.parent)
            self.resolved[raw] = target
        return self.resolved[raw]

    def _covered(self, path: Path) -> bool:
        """Already approved in this call: the same directory, and not a symlink (whose
        target may need an ask of its own)."""
        return path.parent in self.approved and not path.is_symlink()


# -- planning ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Change:
    """One verified operation: what to write at ``target`` (``None``: delete it)."""

    status: Status
    target: Target
    before: str | None  # None: a new file
    after: TextFile | None
    source: Target | None = None  # a move: removed once ``target`` is written


@dataclass(frozen=True, slots=True)
class _Plan:
    """The changes in patch order, their diffs, and every file as it was read from disk
    (``None``: it did not exist), to check again right before writing."""

    changes: list[_Change]
    diffs: list[Diff]
    seen: dict[Path, tuple[Target, bytes | None]]


def _label(change: _Change) -> str:
    if change.source is not None:
        return f"M {change.source.shown} -> {change.target.shown}"
    return f"{change.status} {change.target.shown}"


class _Planner:
    """Applies the operations to an in-memory overlay of the files they touch.

    Runs in a worker thread: it reads the files and applies hunks, which for a large
    file takes long enough to stall the loop.
    """

    def __init__(self) -> None:
        self.overlay: dict[Path, TextFile | None] = {}
        self.seen: dict[Path, tuple[Target, bytes | None]] = {}

    def plan(self, steps: Sequence[_Step]) -> _Plan:
        changes = [self._one(op, target, destination) for op, target, destination in steps]
        diffs = [_diff(change) for change in changes]
        return _Plan(changes, diffs, self.seen)

    def _one(self, op: Operation, target: Target, destination: Target | None) -> _Change:
        if isinstance(op, AddFile):
            return self._add(op, target)
        if isinstance(op, DeleteFile):
            return self._delete(target)
        return self._update(op, target, destination)

    def _add(self, op: AddFile, target: Target) -> _Change:
        if self._exists(target, "Add File"):
            self._fail(
                f"'*** Add File: {op.path}': {target.shown} already exists. Use "
                "'*** Update File:' to change it (or delete it first in the same patch)."
            )
        text = TextFile(op.text)
        self.overlay[target.path] = text
        return _Change("A", target, None, text)

    def _delete(self, target: Target) -> _Change:
        current = self._read(target, "Delete File")
        self.overlay[target.path] = None
        return _Change("D", target, current.text, None)

    def _update(self, op: UpdateFile, target: Target, destination: Target | None) -> _Change:
        current = self._read(target, "Update File")
        try:
            updated = replace(current, text=apply_hunks(current.text, op.hunks))
        except HunkMismatch as exc:
            self._fail(_mismatch(target.shown, exc))
        if destination is None or destination.path == target.path:
            self.overlay[target.path] = updated
            return _Change("M", target, current.text, updated)
        if self._exists(destination, "Move to"):
            self._fail(
                f"'*** Move to: {op.move_to}': {destination.shown} already "
                "exists. Move to a new path, or delete that file first in the same patch."
            )
        self.overlay[target.path] = None
        self.overlay[destination.path] = updated
        return _Change("M", destination, current.text, updated, source=target)

    def _exists(self, target: Target, directive: str) -> bool:
        if target.path in self.overlay:
            return self.overlay[target.path] is not None
        if os.path.lexists(target.path):
            return True
        try:
            self._disk(target, "write")  # checked again before writing: still absent
        except ToolFailure as exc:
            self._fail(f"'*** {directive}: {target.shown}': {exc.message}")
        return False

    def _disk(self, target: Target, verb: str) -> bytes | None:
        """The file's bytes on disk (``None``: absent), read once per real file."""
        if target.real not in self.seen:
            self.seen[target.real] = (target, target.read(verb=verb))
        return self.seen[target.real][1]

    def _read(self, target: Target, directive: str) -> TextFile:
        shown = target.shown
        if target.path in self.overlay:
            text = self.overlay[target.path]
            if text is None:
                self._fail(
                    f"'*** {directive}: {shown}': an earlier operation of this "
                    "patch deleted or moved that file."
                )
            return text
        try:
            data = self._disk(target, "read")
            if data is None:
                raise not_found(target.path, shown, "Use '*** Add File:' to create it.")
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


def _diff(change: _Change) -> Diff:
    after = change.after.text if change.after is not None else ""
    return unified_diff(change.before, after, change.target.shown)


# -- writing ----------------------------------------------------------------------------------
def _apply(plan: _Plan) -> None:
    """Check that no file changed since it was read, stage every new content beside its
    file, then rename and delete in patch order.

    Staging does the writing that can fail for lack of space or a size limit, so such a
    failure leaves every file as it was. Only a rename or delete failing afterwards
    leaves the patch half-applied, and the failure then lists what is on disk.
    """
    staged: list[Staged] = []
    try:
        for target, expected in plan.seen.values():
            target.check_unchanged(expected)
        for change in plan.changes:
            if change.after is not None:
                staged.append(_stage(change))
    except BaseException as exc:
        for done in staged:
            done.discard()
        if isinstance(exc, ToolFailure):
            raise ToolFailure(f"{_NOT_APPLIED} {exc.message}", cause=exc.cause) from exc
        raise
    _commit(plan.changes, staged)


def _stage(change: _Change) -> Staged:
    assert change.after is not None
    data = change.after.encode(change.after.text)
    like = (change.source or change.target).real if change.status == "M" else None
    return stage(change.target.real, data, change.target.shown, like=like)


def _commit(changes: Sequence[_Change], staged: list[Staged]) -> None:
    pending = list(staged)
    done: list[str] = []
    for index, change in enumerate(changes):
        try:
            if change.after is None:
                os.unlink(change.target.real)
            else:
                pending.pop(0).commit()
                if change.source is not None:
                    os.unlink(change.source.real)
        except OSError as exc:
            for rest in pending:
                rest.discard()
            message = _midway(change, done, changes[index + 1 :], exc)
            raise ToolFailure(message, cause=exc) from exc
        done.append(_label(change))


def _midway(failed: _Change, done: Sequence[str], rest: Sequence[_Change], exc: OSError) -> str:
    reason = os_failure(exc, *_failed_step(failed, exc)).message
    lines = [
        f"Patch failed at '{_label(failed)}'. {reason}",
        "Completed before the failure (these changes are on disk):",
        *(f"  {label}" for label in done or ["(none)"]),
    ]
    if rest:
        lines.append("Not applied:")
        lines.extend(f"  {_label(change)}" for change in rest)
    lines.append("Fix the cause, then send a patch with only the operations not yet applied.")
    return "\n".join(lines)


def _failed_step(change: _Change, exc: OSError) -> tuple[str, str]:
    """The file and the verb for the message: a move can also fail removing its source."""
    if change.after is None:
        return change.target.shown, "delete"
    if change.source is not None and exc.filename == str(change.source.real):
        return change.source.shown, "remove"
    return change.target.shown, "write"


# -- reporting --------------------------------------------------------------------------------
def _result(changes: Sequence[_Change], diffs: Sequence[Diff]) -> ToolResult:
    labels = [_label(change) for change in changes]
    files = [
        PatchedFile(
            status=change.status,
            path=str(change.target.path),
            moved_from=str(change.source.path) if change.source is not None else None,
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
