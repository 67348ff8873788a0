"""A plugin whose tool acts after asking: ``pay(to)`` asks ``pay`` on ``to``, then appends
``to`` to an effects file, one line per payment actually made. The deferral tests and
their subprocesses count those lines: a payment made twice is two lines.

``TOOLDECK_TEST_CRASH`` makes the process die (SIGKILL) at one step of a resume:
``claimed`` (claimed, the tool not started), ``before-effect`` / ``after-effect``
(inside the tool), ``recording`` (the tool done, its outcome not recorded). ``TOOLDECK_TEST_DELAY``
(seconds) makes the tool wait before acting, so two resumes overlap.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from tooldeck import PendingChange, Tool, ToolResult, hookimpl

PAY_INPUT = {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}


def crash_here(point: str) -> None:
    if os.environ.get("TOOLDECK_TEST_CRASH") == point:
        os.kill(os.getpid(), signal.SIGKILL)


class Payments:
    """``pay`` (and ``refund``, declared idempotent) writing to ``effects``."""

    def __init__(self, effects: Path, description: str = "Pay someone.") -> None:
        self.effects = effects
        self.description = description

    @hookimpl
    def tool_transform(self, editor: Any) -> None:
        editor.add(
            Tool(name="pay", description=self.description, input=PAY_INPUT, execute=self.pay)
        )
        editor.add(
            Tool(
                name="refund",
                description="Refund someone.",
                input=PAY_INPUT,
                execute=self.pay,
                idempotent=True,
            )
        )

    async def pay(self, args: dict[str, Any], ctx: Any) -> ToolResult:
        await ctx.permission.assert_("pay", [args["to"]])
        await asyncio.sleep(float(os.environ.get("TOOLDECK_TEST_DELAY", "0")))
        crash_here("before-effect")
        with open(self.effects, "a") as file:
            file.write(args["to"] + "\n")
        crash_here("after-effect")
        return ToolResult(f"paid {args['to']}")


def crashing(store: Any) -> Any:
    """``store`` dying at the ``claimed`` / ``recording`` steps ``TOOLDECK_TEST_CRASH`` names."""
    real = store.transition

    def transition(pending_id: str, expect: str, owner: str, change: PendingChange) -> bool:
        if change.state == "running" and expect == "claimed":
            crash_here("claimed")
        if change.state == "done":
            crash_here("recording")
        return bool(real(pending_id, expect, owner, change))

    store.transition = transition
    return store


def effects(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []
