"""Resolve a tool's path argument against its Location, asking before leaving it.

Leaves call ``resolve_in_location`` *before* asserting their own action, so a path
outside the Location is approved as ``external_directory`` on ``<dir>/*`` first.

Paths are judged **lexically first**: ``~`` is expanded, relative paths are joined to
the Location root and ``..`` segments are collapsed (``os.path.normpath``); that
lexical path is what tools operate on and what the user sees in asks. Then the path's
**real** target is checked too: a symlink inside the Location that leads outside asks
``external_directory`` for the directory it really reaches, so a link like
``docs -> ~/.ssh`` cannot read or write outside the Location unasked. Links are
followed only for that check (there is an inherent race between the check and the
use); this is a guard against surprises, not a sandbox for hostile trees.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

LOCAL_PLUGIN_DIR = Path(".tooldeck") / "plugins"
"""Where a Location keeps its own plugins (``<root>/.tooldeck/plugins/*.py``)."""

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.permissions.permission import PermissionGate

EXTERNAL_DIRECTORY = "external_directory"


async def resolve_in_location(
    gate: PermissionGate,
    location: Location,
    path: str | os.PathLike[str],
    *,
    kind: Literal["file", "directory"] = "file",
) -> Path:
    """The absolute, lexically normalized path; asks ``external_directory`` when it,
    or the real target of a symlink on it, is outside the Location.

    The asked (and saved) pattern is ``<dir>/*``: ``dir`` is the parent directory for
    a file and the directory itself for ``kind="directory"``. ``*`` stays inside one
    path segment, so approving ``/a/*`` "always" does not approve ``/a/b/*``.
    """
    resolved = lexical_path(location, path)
    if not _contains(location.root, resolved):
        await _ask_outside(gate, resolved, kind, {"path": str(resolved), "kind": kind})
    real = Path(os.path.realpath(resolved))
    if real != resolved and not _contains(location.root, real):
        same_dir = _pattern(real, kind) == _pattern(resolved, kind)
        if _contains(location.root, resolved) or not same_dir:
            metadata = {"path": str(real), "kind": kind, "link": str(resolved)}
            await _ask_outside(gate, real, kind, metadata)
    return resolved


async def _ask_outside(
    gate: PermissionGate, path: Path, kind: str, metadata: dict[str, str]
) -> None:
    pattern = _pattern(path, kind)
    await gate.assert_(EXTERNAL_DIRECTORY, (pattern,), save=(pattern,), metadata=metadata)


def _pattern(path: Path, kind: str) -> str:
    return os.path.join(path if kind == "directory" else path.parent, "*")


def is_inside(location: Location, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (relative to the root, absolute or ``~``) is lexically inside."""
    return _contains(location.root, lexical_path(location, path))


def lexical_path(location: Location, path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute against the root, ``~`` expanded, ``..`` collapsed."""
    expanded = os.path.expanduser(os.fspath(path))
    return Path(os.path.normpath(os.path.join(location.root, expanded)))


def _contains(root: Path, path: Path) -> bool:
    return path.is_relative_to(root)
