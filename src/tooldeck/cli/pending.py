"""``tooldeck pending [--json]`` and ``tooldeck pending show ID``: the calls waiting for a
person's answer, for the operator of a Location (or of every replica sharing its store).

Reads the store alone (``TOOLDECK_STORE_URL``, else the Location's SQLite database, which
is never created for a read): no plugin loads and no tool runs, so listing is safe on a
busy replica's machine and from any machine that reaches the store. Expired calls are
left out, as ``host.pending()`` leaves them out; ``show`` finds a call in any state.
Answer one with ``tooldeck resume`` (``resume.py``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING, Any

from tooldeck.cli._common import location_dir, print_json, table
from tooldeck.cli._errors import CommandError
from tooldeck.cli._help import accept_location

if TYPE_CHECKING:
    from tooldeck.host.boundary.pending import PendingCall
    from tooldeck.host.store.base import PendingEntry, Store

INPUT_WIDTH = 40


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "pending",
        help="list the calls waiting for approval",
        description="List the tool calls waiting for an answer (deferred asks), oldest "
        "first, from the Location's store (TOOLDECK_STORE_URL, else its SQLite database). "
        "Answer one with: tooldeck resume ID once|always|reject.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    actions = parser.add_subparsers(dest="pending_command", metavar="ACTION")
    show = actions.add_parser("show", help="show one pending call in full")
    show.add_argument("id", metavar="ID", help="the pending call's id")
    show.add_argument("--json", action="store_true", help="print JSON")
    accept_location(show)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = open_for_reading(args)
    try:
        if args.pending_command == "show":
            return _show(store, args.id, as_json=args.json)
        return _list(store, as_json=args.json)
    finally:
        if store is not None:
            store.close()


def open_for_reading(args: argparse.Namespace) -> Store | None:
    """``TOOLDECK_STORE_URL``'s store, else the Location's SQLite database if it exists."""
    import os

    from tooldeck.cli._store import store_from_env, store_settings
    from tooldeck.host.config.config_files import default_data_dir
    from tooldeck.host.store.sqlite import DATABASE_NAME, SqliteStore

    root = location_dir(args).resolve()
    shared = store_from_env(os.environ, store_settings(root))
    if shared is not None:
        return shared
    path = default_data_dir(root) / DATABASE_NAME
    return SqliteStore(path) if path.is_file() else None


def _list(store: Store | None, *, as_json: bool) -> int:
    from tooldeck.host.boundary.pending import PendingCall

    now = time.time()
    entries = store.list_pending() if store is not None else ()
    calls = [PendingCall.from_json(e.data) for e in entries if e.expires_at >= now]
    if as_json:
        print_json([entry_json(call) for call in calls])
        return 0
    if not calls:
        print("no calls are waiting for approval")
        return 0
    rows = [
        (
            call.id,
            call.call.name,
            summary(call.call.input),
            who(call),
            duration(now - call.created_at),
            "in " + duration(call.expires_at - now),
        )
        for call in calls
    ]
    print(table(("ID", "TOOL", "INPUT", "ASKED BY", "AGE", "EXPIRES"), rows))
    return 0


def _show(store: Store | None, pending_id: str, *, as_json: bool) -> int:
    entry = store.get_pending(pending_id) if store is not None else None
    if entry is None:
        raise CommandError(f"no pending call {pending_id!r} in the store", 1)
    from tooldeck.host.boundary.pending import PendingCall

    call = PendingCall.from_json(entry.data)
    data = {**entry_json(call), **state_json(entry)}
    if as_json:
        print_json(data)
        return 0
    request = call.request
    lines = [
        ("id", call.id),
        ("tool", f"{call.call.name} (from {call.source or 'an unknown source'})"),
        ("input", json.dumps(call.call.input, ensure_ascii=False, sort_keys=True)),
        ("question", f"{request.action} on {', '.join(request.resources) or '*'}"),
        ("always saves", ", ".join(request.save) or "*"),
        ("asked by", who(call)),
        ("session", call.session_id or "-"),
        ("location", call.location or "-"),
        ("created", _when(call.created_at)),
        ("expires", _when(call.expires_at)),
        ("state", _state_text(entry)),
    ]
    width = max(len(name) for name, _ in lines) + 2
    for name, value in lines:
        print(f"{name + ':':<{width}}{value}")
    return 0


def entry_json(call: PendingCall) -> dict[str, Any]:
    """One pending call as ``--json`` prints it."""
    request = call.request
    return {
        "id": call.id,
        "tool": call.call.name,
        "input": _input_value(call.call.input),
        "question": {"action": request.action, "resources": list(request.resources)},
        "principal": call.principal,
        "session": call.session_id,
        "location": call.location,
        "created_at": call.created_at,
        "expires_at": call.expires_at,
    }


def state_json(entry: PendingEntry) -> dict[str, Any]:
    """Where resuming has got to, and the reply and outcome once recorded."""
    return {
        "state": entry.state,
        "reply": json.loads(entry.reply) if entry.reply is not None else None,
        "outcome": json.loads(entry.outcome) if entry.outcome is not None else None,
    }


def who(call: PendingCall) -> str:
    """Who asked: the served principal, or the Location's own caller."""
    return call.principal if call.principal is not None else "(location)"


def summary(value: Any) -> str:
    """The call's input as one line of compact JSON, cut at ``INPUT_WIDTH``."""
    text = json.dumps(_input_value(value), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= INPUT_WIDTH else text[: INPUT_WIDTH - 1] + "…"


def duration(seconds: float) -> str:
    """``42s``, ``5m``, ``3h``, ``2d``: the largest whole unit."""
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _input_value(value: Any) -> Any:
    """A call's input as JSON data (a model may have sent it as JSON text)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(epoch))


def _state_text(entry: PendingEntry) -> str:
    if entry.state == "open":
        return "open (waiting for an answer)"
    reply = json.loads(entry.reply) if entry.reply is not None else None
    answer = reply if isinstance(reply, str) else "reject with feedback"
    if entry.state == "done":
        outcome = json.loads(entry.outcome or "{}")
        return f"answered ({answer}); outcome recorded: {outcome.get('status')}"
    return f"answered ({answer}); being resumed ({entry.state})"
