"""Built-in tool plugins: ordinary plugins, one module per tool, listed in load order.

They are not entry points: listing them here makes them always load first (lowest
precedence), through the same code path as third-party packs.
"""

from __future__ import annotations

BUILTIN_PLUGINS: tuple[str, ...] = (
    "read",
    "write",
    "edit",
    "patch",
    "shell",
    "glob",
    "grep",
    "question",
    "webfetch",
)
"""Module names under ``tooldeck.builtin_plugins``, in load order."""
