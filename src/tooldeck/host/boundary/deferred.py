"""The ``pending`` ending: a call whose permission ask was deferred (``on_ask="defer"``)
is saved as a ``PendingCall`` in the Location's store and ends ``pending``, to be
answered later, in any process, with ``host.resume`` (``resume.py``).

It wraps nothing: a deferred ask reaches the boundary as the ``PermissionDeferred``
signal, and ``run_tool_call`` ends the call here, so deferral costs nothing until an
ask is actually deferred.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING

from tooldeck._tool import TextPart
from tooldeck.errors import StoreUnavailable
from tooldeck.host.boundary.outcome import PENDING_TEXT, ToolCallOutcome, ToolError
from tooldeck.host.boundary.pending import PendingCall, describe
from tooldeck.host.permissions import call_rules
from tooldeck.host.permissions.asks import answers_given
from tooldeck.host.permissions.request import PermissionRequest
from tooldeck.host.store.base import PendingEntry
from tooldeck.host.store.calls import off_loop

if TYPE_CHECKING:
    from tooldeck.errors import PermissionDeferred
    from tooldeck.host.call.values import ToolCall
    from tooldeck.host.execution.snapshot import Snapshot

log = logging.getLogger("tooldeck")


async def deferred_outcome(
    snapshot: Snapshot,
    call: ToolCall,
    signal: PermissionDeferred,
    message_id: str,
    agent: str | None,
) -> ToolCallOutcome:
    """Record the call stopped by ``signal`` as a new pending call; its ``pending`` outcome."""
    request = signal.request
    assert isinstance(request, PermissionRequest)
    location = snapshot.location
    described = describe(snapshot, call.name)
    source, print_, idempotent = described or ("", "", False)
    now = time.time()
    ttl = location.config.permissions.pending_ttl_s
    principal = call_rules.current()
    pending = PendingCall(
        uuid.uuid4().hex,
        call,
        request,
        source,
        print_,
        now,
        now + ttl,
        message_id,
        agent,
        idempotent,
        answers_given(),
        principal.name if principal is not None else None,
        str(location.root),
    )
    entry = PendingEntry(pending.id, pending.session_id, now, now + ttl, pending.to_json())
    try:
        await off_loop(
            lambda: location.store.add_pending(entry),
            wait_s=location.store_wait_s,
            what="saving a call that waits for approval",
        )
    except Exception as exc:  # no store, no deferral: the call cannot wait, say so
        log.warning("could not save pending call %r (id %r): %s", call.name, call.id, exc)
        text = (
            "The tool call needs the user's approval, but it could not be saved to wait "
            f"for it ({exc})."
        )
        if not isinstance(exc, StoreUnavailable):
            return ToolCallOutcome("failed", (TextPart(text),), error=ToolError("unknown", text))
        text += " It did not act past its permission check; send the same call again soon."
        return ToolCallOutcome("failed", (TextPart(text),), error=ToolError("unavailable", text))
    return ToolCallOutcome("pending", (TextPart(PENDING_TEXT),), output=pending)
