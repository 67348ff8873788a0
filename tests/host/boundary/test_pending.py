"""``PendingCall`` and recorded outcomes are plain data: their JSON round-trips exactly."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from tooldeck import (
    FilePart,
    ImagePart,
    PendingCall,
    PermissionRequest,
    Reject,
    TextPart,
    ToolCall,
    ToolCallOutcome,
    ToolError,
)
from tooldeck.host.boundary.pending import fingerprint, outcome_from_json, outcome_to_json

REQUEST = PermissionRequest(
    "bash",
    ("git push",),
    ("git push *",),
    MappingProxyType({"command": "git push", "nested": {"n": [1, 2]}}),
    MappingProxyType({"type": "tool", "message_id": "m1", "id": "call_1"}),
    "chat-1",
)
PENDING = PendingCall(
    id="p1",
    call=ToolCall("call_1", "shell", '{"command": "git push"}'),
    request=REQUEST,
    source="builtin:shell",
    fingerprint="sha256:00",
    created_at=1.5,
    expires_at=86401.5,
    message_id="m1",
    agent="planner",
    idempotent=True,
    answered=(("edit", ("a.py",), "once"), ("bash", ("ls",), Reject("no"))),
)


def test_a_pending_call_round_trips_through_json():
    text = PENDING.to_json()
    assert PendingCall.from_json(text) == PENDING
    assert json.loads(text)["request"]["metadata"] == {
        "command": "git push",
        "nested": {"n": [1, 2]},
    }
    assert PENDING.session_id == "chat-1"


def test_a_dict_input_round_trips_too():
    pending = PendingCall(
        "p2", ToolCall("c", "pay", {"to": "bob"}), REQUEST, "Payments", "sha256:01", 0.0, 1.0
    )
    assert PendingCall.from_dict(json.loads(json.dumps(pending.to_dict()))) == pending


def test_something_else_is_refused_naming_what_is_missing():
    with pytest.raises(ValueError, match="not a pending call: missing or mistyped 'request'"):
        PendingCall.from_dict({"id": "p", "call": {"id": "c", "name": "n", "input": {}}})


@pytest.mark.parametrize(
    "outcome",
    [
        ToolCallOutcome("completed", (TextPart("ok"),), MappingProxyType({"k": 1}), {"n": 2}),
        ToolCallOutcome(
            "completed",
            (ImagePart(b"\x89PNG", "image/png"), FilePart(b"%PDF", "application/pdf", "a.pdf")),
        ),
        ToolCallOutcome("failed", (TextPart("no"),), error=ToolError("unknown", "no")),
        ToolCallOutcome("declined", (TextPart("declined"),)),
        ToolCallOutcome("pending", (TextPart("waiting"),), output=PENDING),
    ],
    ids=["completed", "attachments", "failed", "declined", "pending"],
)
def test_a_recorded_outcome_round_trips(outcome):
    assert outcome_from_json(outcome_to_json(outcome)) == outcome


def test_the_fingerprint_changes_with_every_part_of_a_definition():
    base = ("pay", "Pay.", {"type": "object"}, None, "Payments")
    prints = {fingerprint(*base)}
    for index, other in enumerate(("refund", "Pay!", {"type": "array"}, {"type": "object"}, "x")):
        changed = list(base)
        changed[index] = other
        prints.add(fingerprint(*changed))
    assert len(prints) == 6
    assert fingerprint(*base) == fingerprint("pay", "Pay.", {"type": "object"}, None, "Payments")
