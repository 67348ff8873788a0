"""Each MCP server's last good tool listing, kept on disk so a command can mount the
server's tools without starting it.

Starting a server is the cost of every short command (a few seconds each for real
servers), while its listing rarely changes. One JSON file per server lives in
``<data_dir>/mcp-listings/``, and for a server only the user config names (the same
server in every folder: its paths resolve in the user config's folder) in the user's
``$XDG_DATA_HOME/tooldeck/mcp-listings/``, so a folder opened for the first time mounts it
without starting it too. An entry is used only while it still describes the same server
and is fresh:

- its key matches: a digest of the server's config (command, env, cwd, url, headers,
  ...) and of the code it runs (the resolved program and every argument that names an
  existing script, each by path, mtime and size), so editing the config, upgrading the
  program or changing a server script invalidates it;
- a server that declares a time-to-live for its listing (``ttlMs`` above 0, protocol
  revision 2026-07-28) is trusted for exactly that long, then listed afresh, and not
  revalidated before (``0`` is the SDK's default, see ``CachedListing.declared``); other
  entries are trusted for ``MAX_AGE_S`` and revalidated in the background
  by a host that stays open (``layer.REVALIDATE_AFTER_S``) or whenever the server starts
  for a call.

Files are replaced atomically (a temporary file in the same folder, then
``os.replace``), so a reader never sees a torn entry; an entry that cannot be read or
does not have the expected shape is ignored, and the server's report row says so.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tooldeck.host.config.files import write_atomically
from tooldeck.mcp.client.specs import ServerSpec

log = logging.getLogger("tooldeck.mcp")

FOLDER = "mcp-listings"
"""The folder under the Location's data dir holding one ``<namespace>.json`` per server."""
FORMAT = 1
"""The entry format; an entry of another format is ignored as a miss (not an error)."""
SCRIPTS = frozenset(
    {".py", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".jar", ".rb", ".pl", ".php", ".sh"}
)
"""Suffixes of the arguments taken for the server's code (``python server.py``)."""
MAX_AGE_S = 24 * 3600.0
"""How long an entry without a declared time-to-live is trusted at most."""


class CachedListing(NamedTuple):
    """A server's listing as kept: its tools as the wire sent them, and when."""

    tools: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]
    listed_at: float
    """Seconds since the epoch when the server listed them."""
    ttl_ms: int | None
    """The time-to-live the server declared for its listing, if it declared one."""

    @property
    def declared(self) -> bool:
        """Whether the server declared how long its listing stays fresh.

        ``0`` counts as no declaration: the 2026-07-28 wire requires the field and the
        SDK sends ``0`` for every server that did not choose a value, so it says nothing
        about this listing (taken literally, no modern server's listing could be kept).
        Such entries are revalidated in the background instead.
        """
        return bool(self.ttl_ms)

    def fresh(self, now: float) -> bool:
        """Whether the entry may still be used in place of listing the server."""
        age = now - self.listed_at
        if age < 0:  # a clock that went back: the age is unknown
            return False
        if self.ttl_ms:
            return age * 1000 < self.ttl_ms
        return age < MAX_AGE_S


class KeptTool(NamedTuple):
    """A kept tool with the attributes mounting reads from the SDK's ``types.Tool``:
    built without importing the SDK, which costs more than a cached command otherwise."""

    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None


def kept_tools(entry: CachedListing) -> tuple[KeptTool, ...] | None:
    """The entry's tools for mounting, or None when one does not have a tool's shape
    (mounting then checks each schema as it does for a listed tool)."""
    tools = []
    for item in entry.tools:
        name, schema, output = item.get("name"), item.get("inputSchema"), item.get("outputSchema")
        title, description = item.get("title"), item.get("description")
        if not isinstance(name, str) or not isinstance(schema, dict):
            return None
        if not (output is None or isinstance(output, dict)):
            return None
        if not all(text is None or isinstance(text, str) for text in (title, description)):
            return None
        tools.append(KeptTool(name, title, description, schema, output))
    return tuple(tools)


def wire_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """The SDK's listed tools as the wire sent them (what an entry keeps)."""
    return [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]


class ListingCache:
    """The listings of one Location's servers, under ``<data_dir>/mcp-listings``, and of
    the user's own servers under ``<user_dir>/mcp-listings`` when a ``user_dir`` is given."""

    def __init__(self, data_dir: Path, user_dir: Path | None = None) -> None:
        self.folder = data_dir / FOLDER
        self.user_folder = user_dir / FOLDER if user_dir is not None else self.folder

    def path(self, spec: ServerSpec) -> Path:
        folder = self.user_folder if spec.from_user else self.folder
        return folder / f"{spec.namespace}.json"

    def load(self, spec: ServerSpec) -> tuple[CachedListing | None, str | None]:
        """The entry of ``spec`` if one exists for this exact server, with a diagnostic
        when a file exists but cannot be used (unreadable, not an entry)."""
        path = self.path(spec)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None, None
        except (OSError, UnicodeDecodeError) as exc:
            return None, _ignored(path, f"cannot be read ({exc})")
        try:
            entry = _parse(json.loads(text))
        except (ValueError, TypeError, KeyError) as exc:
            return None, _ignored(path, f"is not a listing entry ({exc})")
        if entry is None or entry[0] != listing_key(spec):
            return None, None  # another format, or another server: a plain miss
        return entry[1], None

    def store(
        self,
        spec: ServerSpec,
        tools: Sequence[dict[str, Any]],
        notes: Sequence[str],
        ttl_ms: int | None,
    ) -> None:
        """Replace ``spec``'s entry atomically; a failure to write is logged, never raised
        (the cache only saves time)."""
        data = {
            "format": FORMAT,
            "key": listing_key(spec),
            "server": spec.name,
            "listed_at": time.time(),
            "ttl_ms": ttl_ms,
            "notes": list(notes),
            "tools": list(tools),
        }
        path = self.path(spec)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, json.dumps(data, ensure_ascii=False))
        except (OSError, TypeError, ValueError) as exc:
            reason = exc.strerror or exc if isinstance(exc, OSError) else exc
            log.warning(
                "cannot keep the tool listing of MCP server %r in %s: %s (the old entry, if "
                "any, is unchanged)",
                spec.name,
                path,
                reason,
            )


def listing_key(spec: ServerSpec) -> str:
    """A digest of what decides a server's listing: its config and the files it runs."""
    config = spec.config.model_dump(mode="json")
    parts = {
        "config": {k: config[k] for k in sorted(config) if k not in ("enabled", "timeout_s")},
        "cwd": str(spec.cwd),
        "files": _files(spec),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _files(spec: ServerSpec) -> list[list[Any]]:
    """The program (resolved as the server start resolves it) and each argument naming
    an existing script (``SCRIPTS``), by path, mtime and size. Other files an argument
    names are left out: a database or log a server writes would otherwise invalidate its
    entry at every start."""
    command = spec.config.command
    if not command:
        return []
    from tooldeck.mcp.client.stdio import resolved_command

    env = {"PATH": os.environ.get("PATH", ""), **spec.config.env}
    resolved = resolved_command(command, env)
    base = spec.cwd
    found: list[list[Any]] = []
    for index, part in enumerate(resolved):
        path = base / part
        try:
            stat = path.stat() if part else None
        except (OSError, ValueError):
            stat = None
        script = path.suffix.lower() in SCRIPTS and path.is_file()
        if stat is not None and (index == 0 or script):
            found.append([str(path), stat.st_mtime_ns, stat.st_size])
        elif index == 0:
            found.append([part, None, None])
    return found


def _parse(data: Any) -> tuple[str, CachedListing] | None:
    """(key, entry) from a file's JSON; None for another format; raises on a bad shape."""
    if not isinstance(data, dict):
        raise TypeError("expected a JSON object")
    if data.get("format") != FORMAT:
        return None
    tools = data["tools"]
    notes = data["notes"]
    ttl = data["ttl_ms"]
    listed_at = data["listed_at"]
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise TypeError("'tools' is not a list of objects")
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise TypeError("'notes' is not a list of strings")
    if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0):
        raise TypeError("'ttl_ms' is not a non-negative integer")
    if not isinstance(listed_at, (int, float)) or isinstance(listed_at, bool):
        raise TypeError("'listed_at' is not a number")
    if not isinstance(data["key"], str):
        raise TypeError("'key' is not a string")
    return data["key"], CachedListing(tuple(tools), tuple(notes), float(listed_at), ttl)


def _ignored(path: Path, why: str) -> str:
    return f"the cached tool listing {path} {why}; it was ignored and the server is listed afresh"
