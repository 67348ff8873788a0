"""Resolve a tool's path argument against its Location, asking before leaving it.

Leaves call ``resolve_in_location`` *before* asserting their own action, so a path
outside the Location is approved as ``external_directory`` on ``<dir>/*`` first.

Paths are judged **lexically**: ``~`` is expanded, relative paths are joined to the
Location root and ``..`` segments are collapsed (``os.path.normpath``), but symlinks are
never followed. So a symlink inside the Location that points outside is treated as
inside, and reaching outside through it asks nothing. This is deliberate: it judges the
path the model wrote (what the user sees in the ask) without touching the filesystem,
and the Location's owner chose to place that link. It is not a sandbox; hosts that
must contain hostile links need an OS-level one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tooldeck.host.location import Location
    from tooldeck.host.permission import PermissionGate

EXTERNAL_DIRECTORY = "external_directory"


async def resolve_in_location(
    gate: PermissionGate,
    location: Location,
    path: str | os.PathLike[str],
    *,
    kind: Literal["file", "directory"] = "file",
) -> Path:
    """The absolute, lexically normalized path; asks ``external_directory`` when outside.

    The asked (and saved) pattern is ``<dir>/*``: ``dir`` is the parent directory for
    a file and the directory itself for ``kind="directory"``. ``*`` stays inside one
    path segment, so approving ``/a/*`` "always" does not approve ``/a/b/*``.
    """
    resolved = _lexical(location, path)
    if not _contains(location.root, resolved):
        directory = resolved if kind == "directory" else resolved.parent
        pattern = os.path.join(directory, "*")
        await gate.assert_(
            EXTERNAL_DIRECTORY,
            (pattern,),
            save=(pattern,),
            metadata={"path": str(resolved), "kind": kind},
        )
    return resolved


def is_inside(location: Location, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (relative to the root, absolute or ``~``) is lexically inside."""
    return _contains(location.root, _lexical(location, path))


def _lexical(location: Location, path: str | os.PathLike[str]) -> Path:
    expanded = os.path.expanduser(os.fspath(path))
    return Path(os.path.normpath(os.path.join(location.root, expanded)))


def _contains(root: Path, path: Path) -> bool:
    return path.is_relative_to(root)
