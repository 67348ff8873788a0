"""``PendingCall``: a call stopped at a permission ask, as plain data that outlives the
process (``on_ask="defer"``), and the JSON forms of what the store keeps about it.

A pending call carries what resuming needs and nothing live: the call, the question,
the session and message it belongs to, the tool's source and a fingerprint of the
definition it was asked under, when it expires, and who asked where: the served
principal whose call it is (its rules and approvals apply when it resumes) and the
Location's root, so an operator reading a shared store knows which project it is.
``to_json``/``from_json`` round-trip it exactly; ``outcome_to_json``/``outcome_from_json``
do the same for the outcome recorded when it resumed (an ``output`` comes back as its JSON form).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from tooldeck._public import public
from tooldeck._tool import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from tooldeck.host.boundary.outcome import ToolCallOutcome, ToolError
from tooldeck.host.call.values import ToolCall
from tooldeck.host.execution.snapshot import named_record
from tooldeck.host.permissions.request import PermissionRequest, Reject, Reply
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot


@public
@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call waiting for a person's answer to ``request``; resume it with
    ``host.resume(id, reply)`` in any process that opens the same Location.

    ``source`` names who provided the tool (a plugin, ``codemode`` for ``execute``);
    ``fingerprint`` hashes its definition (name, description, schemas, source), so a
    resume under a changed tool is refused. Times are seconds since the epoch.
    ``idempotent`` is the tool's own declaration (``Tool.idempotent``): only such a call
    is run again when a crash left it unclear whether it ran. ``answered`` are the
    answers an earlier resume of the same call already gave (a call that asks twice is
    deferred twice; resuming the second ask runs it with both answers in place).
    ``principal`` is the ``tooldeck mcp serve`` principal whose call it is (``None``:
    the Location's own caller); ``location`` the root of the Location it was asked in.
    """

    id: str
    call: ToolCall
    request: PermissionRequest
    source: str
    fingerprint: str
    created_at: float
    expires_at: float
    message_id: str = ""
    agent: str | None = None
    idempotent: bool = False
    answered: tuple[tuple[str, tuple[str, ...], Reply], ...] = ()
    principal: str | None = None
    location: str = ""

    @property
    def session_id(self) -> str:
        """The session the call runs in (the question's session)."""
        return self.request.session_id

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (``from_dict`` reads it back)."""
        request = self.request
        return {
            "id": self.id,
            "call": {"id": self.call.id, "name": self.call.name, "input": _plain(self.call.input)},
            "request": {
                "action": request.action,
                "resources": list(request.resources),
                "save": list(request.save),
                "metadata": _plain(request.metadata),
                "source": _plain(request.source),
                "session_id": request.session_id,
            },
            "source": self.source,
            "fingerprint": self.fingerprint,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "message_id": self.message_id,
            "agent": self.agent,
            "idempotent": self.idempotent,
            "answered": [
                [action, list(resources), json.loads(reply_to_json(reply))]
                for action, resources, reply in self.answered
            ],
            "principal": self.principal,
            "location": self.location,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingCall:
        """The pending call ``to_dict`` wrote; ``ValueError`` names a missing key."""
        try:
            call, request = data["call"], data["request"]
            return cls(
                id=str(data["id"]),
                call=ToolCall(str(call["id"]), str(call["name"]), call["input"]),
                request=PermissionRequest(
                    str(request["action"]),
                    tuple(request["resources"]),
                    tuple(request["save"]),
                    MappingProxyType(dict(request["metadata"])),
                    MappingProxyType(dict(request["source"])),
                    str(request["session_id"]),
                ),
                source=str(data["source"]),
                fingerprint=str(data["fingerprint"]),
                created_at=float(data["created_at"]),
                expires_at=float(data["expires_at"]),
                message_id=str(data.get("message_id", "")),
                agent=data.get("agent"),
                idempotent=bool(data.get("idempotent", False)),
                answered=tuple(
                    (str(action), tuple(resources), reply_from_json(json.dumps(reply)))
                    for action, resources, reply in data.get("answered", ())
                ),
                principal=_optional_text(data.get("principal")),
                location=str(data.get("location") or ""),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a pending call: missing or mistyped {exc}") from exc

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> PendingCall:
        return cls.from_dict(json.loads(text))


def _optional_text(value: object) -> str | None:
    return None if value is None else str(value)


def fingerprint(
    name: str,
    description: str,
    input_schema: Any,
    output_schema: Any,
    source: str,
) -> str:
    """A stable hash of one tool definition: equal exactly when a model would see, and
    the host would run, the same tool."""
    definition = {
        "name": name,
        "description": description,
        "input_schema": _plain(input_schema),
        "output_schema": _plain(output_schema),
        "source": source,
    }
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def reply_to_json(reply: Reply) -> str:
    if isinstance(reply, Reject):
        return json.dumps({"reject": reply.feedback})
    return json.dumps(reply)


def reply_from_json(text: str) -> Reply:
    value = json.loads(text)
    if isinstance(value, dict):
        return Reject(str(value["reject"]))
    if value not in ("once", "always", "reject"):
        raise ValueError(f"not a reply: {value!r}")
    reply: Reply = value
    return reply


def outcome_to_json(outcome: ToolCallOutcome) -> str:
    error = outcome.error
    output = outcome.output
    return json.dumps(
        {
            "status": outcome.status,
            "content": [_part_to_dict(part) for part in outcome.content],
            "metadata": _plain(outcome.metadata),
            "output": output.to_dict() if isinstance(output, PendingCall) else _plain(output),
            "error": {"type": error.type, "message": error.message} if error else None,
        },
        sort_keys=True,
    )


def outcome_from_json(text: str) -> ToolCallOutcome:
    data = json.loads(text)
    error = data["error"]
    output = data["output"]
    return ToolCallOutcome(
        data["status"],
        tuple(_part_from_dict(part) for part in data["content"]),
        MappingProxyType(data["metadata"]),
        PendingCall.from_dict(output) if data["status"] == "pending" else output,
        ToolError(error["type"], error["message"]) if error else None,
    )


def _part_to_dict(part: ContentPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    data = base64.b64encode(part.data).decode("ascii")
    if isinstance(part, ImagePart | AudioPart):
        return {"type": part.type, "data": data, "mime_type": part.mime_type}
    return {"type": "file", "data": data, "mime_type": part.mime_type, "filename": part.filename}


def _part_from_dict(data: Mapping[str, Any]) -> ContentPart:
    if data["type"] == "text":
        return TextPart(data["text"])
    raw = base64.b64decode(data["data"])
    if data["type"] == "image":
        return ImagePart(raw, data["mime_type"])
    if data["type"] == "audio":
        return AudioPart(raw, data["mime_type"])
    return FilePart(raw, data["mime_type"], data["filename"])


def _plain(value: Any) -> Any:
    """JSON data: mappings (frozen ones too) become dicts; what JSON cannot hold, text."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return to_jsonable_python(value, fallback=repr)


def describe(snapshot: Snapshot, name: str) -> tuple[str, str, bool] | None:
    """``(source, fingerprint, idempotent)`` of the tool ``name`` runs in ``snapshot``;
    ``None`` when it has no such tool."""
    record = named_record(snapshot, name)
    if record is None:
        return None
    entry = snapshot.catalog.tools.get(record.effective)
    source = entry.source if entry is not None else ""
    if name == RESERVED_CODEMODE_NAME and entry is None:
        source = "codemode"
    tool = record.tool
    print_ = fingerprint(
        record.effective, tool.description, record.input_schema, record.output_schema, source
    )
    return source, print_, tool.idempotent
