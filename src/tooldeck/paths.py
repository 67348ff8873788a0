"""Path helpers for tool packs: resolve a tool's path argument against its Location.

``resolve_in_location`` asks ``external_directory`` for a path outside the Location
(or a link that leads outside) before the tool asserts its own action; ``lexical_path``
and ``is_inside`` judge a path without asking anything. The judging itself lives with
the config (``tooldeck.host.config.paths``), which needs only the Location's root.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tooldeck.host.config import paths as _paths
from tooldeck.host.config.paths import EXTERNAL_DIRECTORY

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.permissions.permission import PermissionGate

__all__ = ["EXTERNAL_DIRECTORY", "is_inside", "lexical_path", "resolve_in_location"]


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
    return await _paths.resolve_in_root(gate, location.root, path, kind=kind)


def is_inside(location: Location, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (relative to the root, absolute or ``~``) is lexically inside."""
    return _paths.is_inside(location.root, path)


def lexical_path(location: Location, path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute against the root, ``~`` expanded, ``..`` collapsed."""
    return _paths.lexical_path(location.root, path)
