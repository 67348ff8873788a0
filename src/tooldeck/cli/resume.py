"""``tooldeck resume ID once|always|reject [--feedback TEXT]``: answer a pending call.

The operator's answer, from any machine that reaches the store (``TOOLDECK_STORE_URL``,
else the Location's SQLite database): the call runs here, exactly once across every
process sharing the store, under the rules of the principal that asked it (an
``always`` is saved for that principal alone; for the Location when the Location's own
caller asked). A call answered already, by anyone, runs nothing: the command says who
answered it how, shows the recorded outcome and exits 1.

Exit codes: 0 this command answered the call and it completed (or was rejected as
asked); 1 it failed, asked again (a new pending id is printed) or had been answered
already; 2 an unknown id, an expired call, a changed tool, or no store.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from tooldeck.cli._common import open_host
from tooldeck.cli._errors import CommandError

if TYPE_CHECKING:
    from tooldeck.host.boundary.outcome import ToolCallOutcome
    from tooldeck.host.permissions.request import Reply
    from tooldeck.host.plugins.host import Host

REPLIES = ("once", "always", "reject")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "resume",
        help="answer a pending call",
        description="Answer a call waiting for approval (see: tooldeck pending) and run "
        "it, exactly once across every process sharing the store: once runs it, always "
        "also saves the approval for whoever asked, reject records a decline (with "
        "--feedback, a correction the model reads).",
    )
    parser.add_argument("id", metavar="ID", help="the pending call's id")
    parser.add_argument("reply", choices=REPLIES, help="the answer")
    parser.add_argument("--feedback", metavar="TEXT", help="with reject: what to do instead")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    reply = _reply(args.reply, args.feedback)
    with open_host(args, calls=True) as host:
        return asyncio.run(_resume(host, args.id, reply))


def _reply(reply: str, feedback: str | None) -> Reply:
    from tooldeck.host.permissions.request import Reject

    if feedback is not None and reply != "reject":
        raise CommandError(f"--feedback goes with reject, not {reply}")
    if reply == "reject" and feedback:
        return Reject(feedback)
    return "once" if reply == "once" else "always" if reply == "always" else "reject"


async def _resume(host: Host, pending_id: str, reply: Reply) -> int:
    from tooldeck.host.boundary.resume import Resume

    def snapshot_for(session_id: str) -> Any:
        if session_id:
            host.session(session_id)
        return host.snapshot(session=session_id or None)

    resume = Resume(host.location, snapshot_for, pending_id)
    outcome = await resume(reply)
    if not resume.answered_here:
        entry = host.location.store.get_pending(pending_id)
        answer = json.loads(entry.reply) if entry is not None and entry.reply else None
        said = answer if isinstance(answer, str) else "reject with feedback"
        print(
            f"tooldeck: pending call {pending_id} was already answered ({said}); "
            "nothing was run. Its recorded outcome:",
            file=sys.stderr,
        )
        _print(outcome, sys.stderr)
        return 1
    return _report(outcome, rejected=reply not in ("once", "always"))


def _report(outcome: ToolCallOutcome, *, rejected: bool) -> int:
    if rejected:  # the decline asked for is recorded: what the model will read
        print("tooldeck: rejected; the model reads:", file=sys.stderr)
        _print(outcome, sys.stderr)
        return 0
    pending = outcome.pending
    if pending is not None:
        request = pending.request
        print(
            f"tooldeck: the call asked again: {request.action} on "
            f"{', '.join(request.resources) or '*'}; answer it with: "
            f"tooldeck resume {pending.id} once|always|reject",
            file=sys.stderr,
        )
        return 1
    if outcome.status == "completed":
        _print(outcome, sys.stdout)
        return 0
    kind = f" ({outcome.error.type})" if outcome.error is not None else ""
    print(f"tooldeck: {outcome.status}{kind}", file=sys.stderr)
    _print(outcome, sys.stderr)
    return 1


def _print(outcome: ToolCallOutcome, stream: Any) -> None:
    from tooldeck.cli.call import print_content

    print_content(outcome.content, stream)
