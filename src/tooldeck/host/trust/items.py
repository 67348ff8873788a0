"""Trust items: one thing a project brings that needs trust, its digest, and how a set of
them is fingerprinted and compared (DESIGN §7a).

An item is either a plugin file (``project.py`` digests its bytes) or one thing narrowing
removes from the project config or tightens (``narrowing.py``): an MCP server, a
formatter, a principal, an allow rule, any other setting. What the items are is never
listed here: they are whatever narrowing leaves out, so a key added to the config later
cannot escape the fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tooldeck._public import public

TrustKind = Literal["plugin", "server", "principal", "allow", "formatter", "setting"]
"""A plugin file, a project MCP server, a served principal (its token and rules), a project
allow rule, a project formatter, any other setting an untrusted project may not make."""

KIND_WORDS: dict[str, str] = {
    "plugin": "plugin file",
    "server": "MCP server",
    "principal": "principal",
    "allow": "allow rule",
    "formatter": "formatter",
    "setting": "setting",
}
"""Each kind as a count names it (``2 MCP servers``), in the order reports list them."""


@public
@dataclass(frozen=True, slots=True)
class TrustItem:
    """One thing a project would run or grant: ``kind``, its ``name`` in the project, a
    ``digest`` of exactly what it is, and ``detail`` (the command, URL, rule or real path)
    for people.
    """

    kind: TrustKind
    name: str
    digest: str
    detail: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "digest": self.digest, "detail": self.detail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrustItem:
        kind = data["kind"]
        if kind not in KIND_WORDS:
            raise ValueError(f"unknown kind {kind!r}")
        return cls(kind, str(data["name"]), str(data["digest"]), str(data["detail"]))

    def line(self) -> str:
        """``.tooldeck/plugins/x.py (sha256 1a2b3c4d5e6f)``, ``evil: sh -c '...'`` or
        ``allow shell on * (principal alice)``, with control characters escaped (see
        ``printable``)."""
        if self.kind == "plugin":
            return printable(f"{self.name}  (sha256 {self.digest[:12]}){self.detail}")
        if self.kind in ("server", "principal"):
            return printable(f"{self.name}: {self.detail}")
        return printable(self.detail)


def printable(text: str) -> str:
    """``text`` with every non-printable character escaped (``\\n``, ``\\x1b``).

    What a person reviews before trusting must be what would run: a project could
    otherwise hide a line of its command behind a newline or a terminal escape sequence.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_digest(value: Any) -> str:
    """The digest of a config value, independent of key order."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=list)
    return digest(text.encode())


def fingerprint(items: Iterable[TrustItem]) -> str:
    """One digest over every item's kind, name and digest (in a fixed order)."""
    lines = sorted(f"{i.kind}\0{i.name}\0{i.digest}" for i in items)
    return digest("\n".join(lines).encode())


def changes_between(before: Iterable[TrustItem], now: Iterable[TrustItem]) -> tuple[str, ...]:
    """One line per item added, removed or changed from ``before`` to ``now``."""
    old = {i.key: i for i in before}
    new = {i.key: i for i in now}
    lines = []
    for key in sorted(old.keys() | new.keys()):
        was, item = old.get(key), new.get(key)
        kind, name = KIND_WORDS[key[0]], key[1]
        if was is None and item is not None:
            detail = item.detail.strip()
            lines.append(f"added {kind} {name}" + (f": {detail}" if detail else ""))
        elif item is None:
            lines.append(f"removed {kind} {name}")
        elif was is not None and was.digest != item.digest:
            if was.detail != item.detail:
                lines.append(
                    f"changed {kind} {name}: was {was.detail.strip()}, now {item.detail.strip()}"
                )
            else:
                lines.append(f"changed {kind} {name} (its content differs)")
    return tuple(lines)
