"""Narrowing: the part of a project config an untrusted folder applies, and the trust
items it leaves out (DESIGN §7a).

``KEPT`` names every key an untrusted project may set and the law it is kept under;
every other key is dropped. Narrowing is a default-deny walk over the project table: a
key this version does not name here (a config key added later, a table nobody thought
of) is left out and becomes a trust item, so nothing a project writes can apply before
the folder is trusted unless it was judged safe here. The trust items of a project's
config are exactly what the walk drops or tightens, never a list kept beside it.

The kept keys are safe because of how they combine with the user's (``host/config/
layers.py``): the project's permission rules are a layer of their own (strictest wins,
and an untrusted project's ``allow`` is no opinion); its ``[plugins]`` can only narrow
the user's selection and never switches off a hook plugin the user installed; the rest
are limits and presentation, which grant nothing. ``codemode.enabled`` and
``telemetry.capture_content`` may only be turned off.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from tooldeck.host.trust.items import TrustItem, canonical_digest, digest

KEEP: Final = "keep"
"""Kept as written."""
ONLY_FALSE: Final = "only false"
"""Kept when ``false``; ``true`` (turning something on) needs trust."""
RULES: Final = "rules"
"""Permission rules: kept, each ``allow`` tightened to no opinion until trusted."""
ANY: Final = "*"
"""Any key of this table (``[tools."PATTERN"]``)."""

Spec = Mapping[str, "str | Spec"]

_SERVE_LIMITS = (
    "idle_timeout_s",
    "max_connections",
    "header_timeout_s",
    "body_timeout_s",
    "max_body_bytes",
    "max_calls_per_session",
    "max_sessions",
)

KEPT: Spec = {
    "plugins": {"disable": KEEP, "only": KEEP, "order": KEEP},
    "permission": RULES,
    "output": {"max_lines": KEEP, "max_bytes": KEEP, "max_saved_mb": KEEP},
    "images": {"max_bytes": KEEP, "max_dimension": KEEP},
    "codemode": {
        "enabled": ONLY_FALSE,
        "budget_tokens": KEEP,
        "type_check": KEEP,
        "timeout_s": KEEP,
        "memory_mb": KEEP,
        "max_tool_calls": KEEP,
    },
    "tools": {
        ANY: {"defer_loading": KEEP, "timeout_s": KEEP, "max_concurrency": KEEP, "sequential": KEEP}
    },
    "permissions": {"pending_ttl_s": KEEP},
    "telemetry": {"enabled": KEEP, "capture_content": ONLY_FALSE},
    "mcp": {"serve": dict.fromkeys(_SERVE_LIMITS, KEEP)},
}
"""What an untrusted project may set (see the module docstring); nothing else applies."""


@dataclass(frozen=True, slots=True)
class Narrowing:
    """``table``: the project config an untrusted folder applies; ``items``: everything
    left out of it or tightened in it, what trusting the folder would add."""

    table: dict[str, Any]
    items: tuple[TrustItem, ...]


def narrowed(project: Mapping[str, Any]) -> Narrowing:
    """The project config table ``project`` narrowed for an untrusted folder."""
    items: list[TrustItem] = []
    table = _walk((), project, KEPT, items)
    return Narrowing(table, tuple(items))


def _walk(
    path: tuple[str, ...], table: Mapping[str, Any], spec: Spec, items: list[TrustItem]
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in table.items():
        law = spec.get(key, spec.get(ANY))
        where = (*path, key)
        if isinstance(law, Mapping):
            if not isinstance(value, Mapping):
                kept[key] = value  # not a table: validation names the mistake
                continue
            inner = _walk(where, value, law, items)
            if inner or not value:  # a table emptied by narrowing goes too
                kept[key] = inner
        elif law == KEEP or (law == ONLY_FALSE and value is False):
            kept[key] = value
        elif law == RULES:
            kept[key] = value
            items += allow_items(value)
        else:
            items += dropped(where, value)
    return kept


# -- the items of what is left out -------------------------------------------------------------
def dropped(path: tuple[str, ...], value: Any) -> list[TrustItem]:
    """The items of the value at ``path`` that narrowing leaves out: one per server,
    principal or formatter, else one per setting (each leaf of a table; an empty table
    sets nothing and is no item)."""
    entries = ENTRIES.get(path)
    if entries is not None and isinstance(value, Mapping):
        return [item for name, entry in sorted(value.items()) for item in entries(name, entry)]
    if isinstance(value, Mapping):
        return [
            item for key, inner in sorted(value.items()) for item in dropped((*path, key), inner)
        ]
    return [setting_item(path, value)]


def setting_item(path: tuple[str, ...], value: Any) -> TrustItem:
    dotted = ".".join(path)
    shown = json.dumps(value, sort_keys=True, default=list, ensure_ascii=False)
    return TrustItem("setting", dotted, canonical_digest(value), f"{dotted} = {shown}")


def server_items(name: str, entry: Any) -> list[TrustItem]:
    if not isinstance(entry, Mapping):
        return [setting_item(("mcp", "servers", name), entry)]
    return [TrustItem("server", name, canonical_digest(entry), _server_detail(entry))]


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


def principal_items(name: str, entry: Any) -> list[TrustItem]:
    """The principal (its token variable and every rule, in its digest), then each of its
    allow rules on a line of its own: what a person reviews is what it may do unasked."""
    if not isinstance(entry, Mapping):
        return [setting_item(("mcp", "serve", "principals", name), entry)]
    rules = entry.get("permission", ())
    count = len(rules) if isinstance(rules, list) else 0
    detail = f"logs in with the token in ${entry.get('token_env', '')}"
    if count:
        detail += f", under {count} rule{'s' if count > 1 else ''} of its own"
    principal = TrustItem("principal", name, canonical_digest(entry), detail)
    return [principal, *allow_items(rules, principal=name)]


def allow_items(rules: Any, *, principal: str | None = None) -> list[TrustItem]:
    """One item per ``allow`` rule of ``rules`` (a principal's, when ``principal``)."""
    if not isinstance(rules, list):
        return []  # not rules at all: validation names the mistake
    items = []
    for rule in rules:
        if isinstance(rule, Mapping) and rule.get("effect") == "allow":
            action, resource = str(rule.get("action")), str(rule.get("resource", "*"))
            whose = f" (principal {principal})" if principal is not None else ""
            name = f"{action} {resource}{whose}"
            items.append(
                TrustItem(
                    "allow", name, digest(name.encode()), f"allow {action} on {resource}{whose}"
                )
            )
    return items


def formatter_items(pattern: str, command: Any) -> list[TrustItem]:
    if not isinstance(command, list | tuple):
        return [setting_item(("format", pattern), command)]
    import shlex  # only for a project that names formatters

    detail = f"{pattern}: {shlex.join(str(a) for a in command)}"
    return [TrustItem("formatter", str(pattern), canonical_digest(command), detail)]


ENTRIES: dict[tuple[str, ...], Callable[[str, Any], list[TrustItem]]] = {
    ("mcp", "servers"): server_items,
    ("mcp", "serve", "principals"): principal_items,
    ("format",): formatter_items,
}
"""Tables whose entries are each one item (a server is reviewed whole, not key by key)."""
