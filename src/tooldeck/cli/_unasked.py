"""Asks no one could answer: a CLI call without a terminal and without ``--yes``.

Declining such an ask is right (nothing may run unapproved), but "the user declined"
would be false: nobody was asked. ``NoOneToAsk`` declines every ask and keeps it, so the
command can say what was needed and the two ways to allow it: ``--yes`` for this run,
or the ``[[permission]]`` rule that allows it from now on (which, being a project
allow rule, counts once the folder is trusted again).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.permissions.request import PermissionRequest, Reply


class NoOneToAsk:
    """A permission asker that declines every ask and remembers it (``requests``)."""

    def __init__(self) -> None:
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> Reply:
        self.requests.append(request)
        return "reject"

    def explain(self, label: str) -> str:
        """What stderr says for a call declined here: what was asked and how to allow it."""
        request = self.requests[0]
        resources = request.resources or ("*",)
        rules = "\n\n".join(_rule(request.action, resource) for resource in resources)
        return (
            f"tooldeck: {label}: not run: it needs permission ({request.action} on "
            f"{', '.join(resources)}) and no one could be asked (stdin is not a terminal).\n"
            'Allow it for this run with --yes (answers "once" to every ask), or from now on '
            "with a rule in tooldeck.toml (a project's allow rules count once the folder is "
            "trusted: run `tooldeck trust` after adding it):\n\n"
            f"{rules}"
        )


def _rule(action: str, resource: str) -> str:
    return (
        f"[[permission]]\naction = {json.dumps(action)}\nresource = {json.dumps(resource)}\n"
        'effect = "allow"'
    )
