"""Where a project keeps its own files, and a path argument judged against its root.

``LOCAL_PLUGIN_DIR`` is where a Location keeps its plugins. The rest serves
``tooldeck.paths`` (the public face, which takes a ``Location``): leaves call
``resolve_in_root`` *before* asserting their own action, so a path outside the root is
approved as ``external_directory`` on ``<dir>/*`` first.

Paths are judged **lexically first**: ``~`` is expanded, relative paths are joined to
the root and ``..`` segments are collapsed (``os.path.normpath``); that lexical path is
what tools operate on and what the user sees in asks. Then the path's **real** target is
checked too: a symlink inside the root that leads outside asks ``external_directory``
for the directory it really reaches, so a link like ``docs -> ~/.ssh`` cannot read or
write outside the Location unasked. Links are followed only for that check (there is an
inherent race between the check and the use); this is a guard against surprises, not a
sandbox for hostile trees.

Only a root and something that asserts are needed here, so the config layer knows
neither the Location nor the permission service.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

LOCAL_PLUGIN_DIR = Path(".tooldeck") / "plugins"
"""Where a Location keeps its own plugins (``<root>/.tooldeck/plugins/*.py``)."""

TRUST_ENV = "TOOLDECK_TRUST"
"""``1`` trusts every folder this process opens; ``0`` opens every folder untrusted."""


def local_plugin_files(root: Path) -> list[Path]:
    """``<root>/.tooldeck/plugins/*.py``, sorted by file name (never listing order)."""
    folder = root / LOCAL_PLUGIN_DIR
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.glob("*.py") if p.is_file()), key=lambda p: p.name)


EXTERNAL_DIRECTORY = "external_directory"


class Asserting(Protocol):
    """What ``resolve_in_root`` asks through: a ``PermissionGate``."""

    async def assert_(
        self,
        action: str,
        resources: Sequence[str],
        *,
        save: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None: ...


async def resolve_in_root(
    gate: Asserting,
    root: Path,
    path: str | os.PathLike[str],
    *,
    kind: Literal["file", "directory"] = "file",
) -> Path:
    """The absolute, lexically normalized path; asks ``external_directory`` when it,
    or the real target of a symlink on it, is outside ``root``.

    The asked (and saved) pattern is ``<dir>/*``: ``dir`` is the parent directory for
    a file and the directory itself for ``kind="directory"``. ``*`` stays inside one
    path segment, so approving ``/a/*`` "always" does not approve ``/a/b/*``.
    """
    resolved = lexical_path(root, path)
    if not resolved.is_relative_to(root):
        await _ask_outside(gate, resolved, kind, {"path": str(resolved), "kind": kind})
    real = Path(os.path.realpath(resolved))
    if real != resolved and not real.is_relative_to(root):
        same_dir = _pattern(real, kind) == _pattern(resolved, kind)
        if resolved.is_relative_to(root) or not same_dir:
            metadata = {"path": str(real), "kind": kind, "link": str(resolved)}
            await _ask_outside(gate, real, kind, metadata)
    return resolved


async def _ask_outside(gate: Asserting, path: Path, kind: str, metadata: dict[str, str]) -> None:
    pattern = _pattern(path, kind)
    await gate.assert_(EXTERNAL_DIRECTORY, (pattern,), save=(pattern,), metadata=metadata)


def _pattern(path: Path, kind: str) -> str:
    return os.path.join(path if kind == "directory" else path.parent, "*")


def is_inside(root: Path, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (relative to ``root``, absolute or ``~``) is lexically inside."""
    return lexical_path(root, path).is_relative_to(root)


def lexical_path(root: Path, path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute against ``root``, ``~`` expanded, ``..`` collapsed."""
    expanded = os.path.expanduser(os.fspath(path))
    return Path(os.path.normpath(os.path.join(root, expanded)))
