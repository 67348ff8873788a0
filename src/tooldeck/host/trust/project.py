"""Trust: what a project would run if tooldeck trusted it, and whether it does (DESIGN §7a).

Opening a folder must never run its code until its user says so. Four things in a
project run code or widen authority, and only these need trust:

* ``.tooldeck/plugins/*.py`` files, imported as Python;
* ``[mcp.servers]`` of the project config (``tooldeck.toml`` or ``[tool.tooldeck]``),
  started as processes or connected to;
* project ``[[permission]]`` rules whose effect is ``allow``;
* project ``[format]`` commands, run after ``write``/``edit``/``patch`` change a file.

``TrustItem`` describes one of them with a digest of what would run (the file's bytes,
the server's entry, the rule). A ``TrustStatus`` is the decision for one folder: the
items, their fingerprint, whether they may run and, when the folder was trusted before
with a different fingerprint, what changed. A folder with no items is trusted: it opens
exactly as it did before trust existed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tooldeck._public import public
from tooldeck.errors import ConfigError
from tooldeck.host.config.paths import LOCAL_PLUGIN_DIR

TRUST_ENV = "TOOLDECK_TRUST"
"""``1`` trusts every folder this process opens; ``0`` opens every folder untrusted."""

TrustKind = Literal["plugin", "server", "allow", "formatter"]
"""A plugin file, a project MCP server, a project allow rule, a project formatter."""

TrustSource = Literal["nothing to trust", "store", "argument", "environment", "untrusted"]
"""Why a folder is (un)trusted: nothing needs trust, the user's trust store,
``Host.open(trust=...)``, ``TOOLDECK_TRUST``, or no trust recorded for these items."""

KIND_WORDS = {
    "plugin": "plugin file",
    "server": "MCP server",
    "allow": "allow rule",
    "formatter": "formatter",
}


@public
@dataclass(frozen=True, slots=True)
class TrustItem:
    """One thing a project would run: ``kind``, its ``name`` in the project, a ``digest``
    of exactly what would run, and ``detail`` (the command, URL or real path) for people.
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
        """``.tooldeck/plugins/x.py (sha256 1a2b3c4d5e6f)`` or ``evil: sh -c '...'``, with
        control characters escaped (see ``printable``)."""
        if self.kind == "plugin":
            return printable(f"{self.name}  (sha256 {self.digest[:12]}){self.detail}")
        if self.kind == "server":
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


@public
@dataclass(frozen=True, slots=True)
class TrustStatus:
    """Whether a folder's project code may run, and what that code is.

    ``items``: everything the project would run (empty: nothing needs trust);
    ``fingerprint``: their digest, what a grant records; ``trusted``: whether they run
    in this process; ``source``: why; ``changes``: when the folder was trusted with a
    different fingerprint, one line per item added, removed or changed since.
    """

    root: Path
    items: tuple[TrustItem, ...]
    fingerprint: str
    trusted: bool
    source: TrustSource
    changes: tuple[str, ...] = ()
    problem: str | None = field(default=None, compare=False)
    """Why the trust store could not be read (the folder then counts as untrusted)."""

    @property
    def needed(self) -> bool:
        """True when the project brings something that needs trust and it is not given."""
        return bool(self.items) and not self.trusted

    @property
    def command(self) -> str:
        """The command that reviews and trusts this folder."""
        import shlex  # only when a command is shown

        return f"tooldeck trust {shlex.quote(str(self.root))}"

    def skipped(self, kind: TrustKind) -> tuple[TrustItem, ...]:
        """The items of ``kind`` left out because the folder is untrusted."""
        return () if self.trusted else tuple(i for i in self.items if i.kind == kind)

    def describe(self) -> str:
        """Exactly what trusting the folder lets run, for a person to decide on.

        The same text ``tooldeck trust`` shows; embedding hosts show it in their own
        trust prompt and call ``grant_trust(status)`` on a yes.
        """
        if not self.items:
            return f"{self.root}: nothing here needs trust (no plugins, servers, rules, formatters)"
        state = "trusted" if self.trusted else "not trusted"
        lines = [f"{self.root} ({state}). Trusting it lets tooldeck run, each time it opens it:"]
        groups = (
            ("plugin", "Python files imported into tooldeck:"),
            ("server", "MCP servers started (commands) or connected to (URLs):"),
            ("allow", "permission rules that allow without asking:"),
            ("formatter", "formatter commands run on files that tools write:"),
        )
        for kind, heading in groups:
            chosen = [i for i in self.items if i.kind == kind]
            if chosen:
                lines.append(f"  {heading}")
                lines += [f"    {item.line()}" for item in chosen]
        if self.changes:
            lines.append("  changed since it was trusted:")
            lines += [f"    {printable(change)}" for change in self.changes]
        return "\n".join(lines)

    def notice(self) -> str | None:
        """One line for interactive commands when something was skipped, else ``None``."""
        if not self.needed:
            return None
        counts = []
        for kind in KIND_WORDS:
            n = sum(1 for i in self.items if i.kind == kind)
            if n:
                counts.append(f"{n} {KIND_WORDS[kind]}{'s' if n > 1 else ''}")
        why = "changed since it was trusted" if self.changes else "is not trusted"
        return (
            f"tooldeck: this folder {why}; skipped its {', '.join(counts)}. "
            f"Review and trust it with: {self.command}"
        )


# -- what a project would run ------------------------------------------------------------------
def local_plugin_files(root: Path) -> list[Path]:
    """``<root>/.tooldeck/plugins/*.py``, sorted by file name (never listing order)."""
    folder = root / LOCAL_PLUGIN_DIR
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.glob("*.py") if p.is_file()), key=lambda p: p.name)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plugin_item(root: Path, path: Path, data: bytes) -> TrustItem:
    """The item of one plugin file whose bytes are ``data``; names where a link leads."""
    real = Path(os.path.realpath(path))
    name = str(LOCAL_PLUGIN_DIR / path.name)
    detail = "" if real == root / name else f"  -> {real}"
    return TrustItem("plugin", name, digest(data), detail)


def project_items(root: Path, project: Mapping[str, Any] | None) -> tuple[TrustItem, ...]:
    """What the project at ``root`` would run; ``project``: its config table, if any."""
    items: list[TrustItem] = []
    for path in local_plugin_files(root):
        try:
            data = path.read_bytes()
        except OSError:  # unreadable now: discovery will report it; nothing to trust yet
            continue
        items.append(plugin_item(root, path, data))
    if project:
        items += server_items(project)
        items += allow_items(project)
        items += formatter_items(project)
    return tuple(items)


def server_items(project: Mapping[str, Any]) -> list[TrustItem]:
    servers = project.get("mcp", {}).get("servers", {})
    return [
        TrustItem("server", name, _canonical_digest(entry), _server_detail(entry))
        for name, entry in sorted(servers.items())
    ]


def _server_detail(entry: Mapping[str, Any]) -> str:
    if entry.get("url") is not None:
        text = str(entry["url"])
        headers = sorted(entry.get("headers", {}))
        return text + (f"  (headers: {', '.join(headers)})" if headers else "")
    import shlex  # only for a project that names servers

    text = shlex.join(str(a) for a in entry.get("command", ()))
    extras = []
    if entry.get("env"):
        extras.append("env: " + ", ".join(f"{k}={v}" for k, v in sorted(entry["env"].items())))
    if entry.get("cwd"):
        extras.append(f"cwd: {entry['cwd']}")
    if entry.get("enabled") is False:
        extras.append("disabled")
    return text + (f"  ({'; '.join(extras)})" if extras else "")


def allow_items(project: Mapping[str, Any]) -> list[TrustItem]:
    items = []
    for rule in project.get("permission", ()):
        if rule.get("effect") == "allow":
            action, resource = str(rule["action"]), str(rule.get("resource", "*"))
            name = f"{action} {resource}"
            items.append(
                TrustItem("allow", name, digest(name.encode()), f"allow {action} on {resource}")
            )
    return items


def formatter_items(project: Mapping[str, Any]) -> list[TrustItem]:
    formatters = project.get("format", {})
    if not isinstance(formatters, Mapping):
        return []  # the config check reports the wrong type
    import shlex  # only for a project that names formatters

    return [
        TrustItem(
            "formatter",
            str(pattern),
            _canonical_digest(command),
            f"{pattern}: {shlex.join(str(a) for a in command)}",
        )
        for pattern, command in sorted(formatters.items())
        if isinstance(command, list | tuple)
    ]


def _canonical_digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=list)
    return digest(text.encode())


def fingerprint(items: Iterable[TrustItem]) -> str:
    """One digest over every item's kind, name and digest (in a fixed order)."""
    lines = sorted(f"{i.kind}\0{i.name}\0{i.digest}" for i in items)
    return digest("\n".join(lines).encode())


def narrowed(project: Mapping[str, Any]) -> dict[str, Any]:
    """The project's config table without what needs trust: no ``[mcp.servers]``, no
    ``allow`` rules (a served principal's included), no ``[format]``. Everything else
    (limits, plugin selection, ask/deny rules) stays."""
    table = {k: v for k, v in project.items() if k != "format"}
    mcp = table.get("mcp")
    if isinstance(mcp, Mapping) and "servers" in mcp:
        rest = {k: v for k, v in mcp.items() if k != "servers"}
        if rest:
            table["mcp"] = mcp = rest
        else:
            del table["mcp"]
            mcp = None
    if isinstance(mcp, Mapping):
        table["mcp"] = _without_principal_allows(mcp)
    if "permission" in table:
        table["permission"] = _without_allows(table["permission"])
    return table


def _without_allows(rules: object) -> object:
    if not isinstance(rules, list):
        return rules  # not rules at all: validation names the mistake
    return [r for r in rules if not (isinstance(r, Mapping) and r.get("effect") == "allow")]


def _without_principal_allows(mcp: Mapping[str, Any]) -> dict[str, Any]:
    table = dict(mcp)
    serve = table.get("serve")
    principals = serve.get("principals") if isinstance(serve, Mapping) else None
    if isinstance(serve, Mapping) and isinstance(principals, Mapping):
        table["serve"] = {
            **serve,
            "principals": {
                name: {**p, "permission": _without_allows(p["permission"])}
                if isinstance(p, Mapping) and "permission" in p
                else p
                for name, p in principals.items()
            },
        }
    return table


# -- deciding ----------------------------------------------------------------------------------
def explicit_trust(
    trust: bool | None, environ: Mapping[str, str]
) -> tuple[bool, TrustSource] | None:
    """``Host.open(trust=...)`` first, then ``TOOLDECK_TRUST``; ``None``: ask the store."""
    if trust is not None:
        return bool(trust), "argument"
    value = environ.get(TRUST_ENV, "").strip()
    if value == "":
        return None
    if value not in ("0", "1"):
        raise ConfigError(
            TRUST_ENV, "(environment)", f"expected 1 (trust) or 0 (untrusted), got {value!r}"
        )
    return value == "1", "environment"


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
