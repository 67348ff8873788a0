"""Tool names: normalization, the effective (registry) name, and validity limits.

Pure functions, called on every ``add``: they must stay cheap.
"""

from __future__ import annotations

import re

MAX_NAME = 64
RESERVED_CODEMODE_NAME = "execute"

_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")
_SEGMENT = re.compile(r"[A-Za-z0-9_-]{1,64}")


def normalize(name: str) -> str:
    """Replace every character outside ``[A-Za-z0-9_-]`` with ``_``."""
    return _OUTSIDE.sub("_", name)


def effective_name(name: str, namespace: str | None) -> str:
    """The registry key and native tool name: ``<namespace with . → _>_<name>``."""
    normalized = normalize(name)
    if namespace:
        return f"{namespace.replace('.', '_')}_{normalized}"
    return normalized


def namespace_problem(namespace: str) -> str | None:
    """Why ``namespace`` is invalid, or ``None`` when every dot-segment is valid."""
    if not isinstance(namespace, str):
        return f"namespace must be a string, got {type(namespace).__name__}"
    for segment in namespace.split("."):
        if not _SEGMENT.fullmatch(segment):
            return f"namespace segment {segment!r} must be 1-{MAX_NAME} characters of [A-Za-z0-9_-]"
    return None


def name_problem(name: object, namespace: object, codemode: bool) -> str | None:
    """Why this name/namespace pair cannot be registered, or ``None``."""
    if not isinstance(name, str):
        return f"name must be a string, got {type(name).__name__}"
    if not 1 <= len(name) <= MAX_NAME:
        return f"name must be 1-{MAX_NAME} characters, got {len(name)}"
    if namespace is not None:
        if not isinstance(namespace, str):
            return f"namespace must be a string or None, got {type(namespace).__name__}"
        problem = namespace_problem(namespace)
        if problem:
            return problem
    effective = effective_name(name, namespace)
    if len(effective) > MAX_NAME:
        return f"effective name {effective!r} is longer than {MAX_NAME} characters"
    if effective == RESERVED_CODEMODE_NAME and not codemode:
        return "the native name 'execute' is reserved for the code-mode tool"
    return None
