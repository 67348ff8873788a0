"""Trust: what a project would run if tooldeck trusted it, and whether it does (DESIGN §7a).

Opening a folder must never run its code, or grant it anything, until its user says so.
What needs trust is computed, not listed: the project's ``.tooldeck/plugins/*.py`` files
(imported as Python), and whatever narrowing leaves out of or tightens in its config
(``narrowing.py``): its MCP servers, formatters, served principals, allow rules and any
setting an untrusted project may not make.

``TrustItem`` (``items.py``) describes one of them with a digest of what it is. A
``TrustStatus`` is the decision for one folder: the items, their fingerprint, whether they
may run and, when the folder was trusted before with a different fingerprint, what
changed. A folder with no items is trusted: it opens exactly as it did before trust
existed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tooldeck._public import public
from tooldeck.errors import ConfigError
from tooldeck.host.config.paths import LOCAL_PLUGIN_DIR, TRUST_ENV, local_plugin_files
from tooldeck.host.trust.items import KIND_WORDS, TrustItem, TrustKind, digest, printable
from tooldeck.host.trust.narrowing import narrowed

TrustSource = Literal["nothing to trust", "store", "argument", "environment", "untrusted"]
"""Why a folder is (un)trusted: nothing needs trust, the user's trust store,
``Host.open(trust=...)``, ``TOOLDECK_TRUST``, or no trust recorded for these items."""

GROUPS: tuple[tuple[TrustKind, str], ...] = (
    ("plugin", "Python files imported into tooldeck:"),
    ("server", "MCP servers started (commands) or connected to (URLs):"),
    ("principal", "principals `tooldeck mcp serve` lets in with their own token:"),
    ("allow", "permission rules that allow without asking:"),
    ("formatter", "formatter commands run on files that tools write:"),
    ("setting", "settings only a trusted folder may make:"),
)
"""How ``describe`` groups the items: one heading per kind, in ``KIND_WORDS`` order."""


@public
@dataclass(frozen=True, slots=True)
class TrustStatus:
    """Whether a folder's project code may run, and what that code is.

    ``items``: everything the project would run or grant (empty: nothing needs trust);
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
        """Exactly what trusting the folder lets run or grant, one line per item, for a
        person to decide on.

        The same text ``tooldeck trust`` shows; embedding hosts show it in their own
        trust prompt and call ``grant_trust(status)`` on a yes.
        """
        if not self.items:
            return f"{self.root}: nothing here needs trust (no plugins, servers, principals, rules)"
        state = "trusted" if self.trusted else "not trusted"
        lines = [f"{self.root} ({state}). Trusting it applies, each time tooldeck opens it:"]
        for kind, heading in GROUPS:
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
def plugin_item(root: Path, path: Path, data: bytes) -> TrustItem:
    """The item of one plugin file whose bytes are ``data``; names where a link leads."""
    real = Path(os.path.realpath(path))
    name = str(LOCAL_PLUGIN_DIR / path.name)
    detail = "" if real == root / name else f"  -> {real}"
    return TrustItem("plugin", name, digest(data), detail)


def project_items(root: Path, project: Mapping[str, Any] | None) -> tuple[TrustItem, ...]:
    """What the project at ``root`` would run or grant: its plugin files, then whatever
    narrowing leaves out of its config table ``project`` (``narrowing.py``)."""
    items: list[TrustItem] = []
    for path in local_plugin_files(root):
        try:
            data = path.read_bytes()
        except OSError:  # unreadable now: discovery will report it; nothing to trust yet
            continue
        items.append(plugin_item(root, path, data))
    if project:
        items += narrowed(project).items
    return tuple(items)


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
