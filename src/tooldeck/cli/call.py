"""``tooldeck call NAME [JSON | @file | -]``: one call through the session boundary.

Permission asks go to the terminal when stdin is a TTY (once / always / reject / reject
with feedback), are answered "once" with ``--yes``, and are declined otherwise, saying
that no one could be asked and what would allow the call (``_unasked``).
Exit 0 when the call completed; 1 when it failed, was declined or interrupted.
``--json`` prints the whole outcome on stdout instead (status, content parts, metadata,
output, error), whatever the status; the exit code is the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.cli._common import open_host, print_json, warn_failures
from tooldeck.cli._errors import CommandError
from tooldeck.cli._unasked import NoOneToAsk

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tooldeck._tool import ContentPart
    from tooldeck.host.boundary.outcome import ToolCallOutcome
    from tooldeck.host.permissions.request import Asker, PermissionRequest, Reply

CALL_ID = "cli-call"
EXIT_HELP = (
    "Exit status: 0 when the call completed; 1 when it failed, was declined or was "
    "interrupted (an ask no one could answer included); 2 when the command could not make "
    "the call (input that is not a JSON object, a config or store error, no code-mode "
    "tools for run-code)."
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "call",
        help="run one tool call",
        description="Run one tool call through the session boundary and print its text. "
        "INPUT is JSON text, @FILE with JSON, or - to read stdin (default {}).",
        epilog=EXIT_HELP,
    )
    parser.add_argument("name", metavar="NAME", help="the tool's effective name")
    parser.add_argument("input", nargs="?", default="{}", metavar="JSON | @file | -")
    parser.add_argument("--yes", action="store_true", help='answer "once" to every permission ask')
    add_json_option(parser)
    parser.set_defaults(handler=run)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the outcome as JSON: status, content parts (images and files as "
        "base64), metadata, output and error",
    )


def run(args: argparse.Namespace) -> int:
    import asyncio

    raw = read_input(args.input)
    from tooldeck.host.boundary.boundary import run_tool_call
    from tooldeck.host.call.values import ToolCall

    asker = choose_asker(args.yes, interactive=_interactive(args))
    with open_host(args, calls=True, asker=asker) as host:  # closing ends mounted MCP servers
        warn_failures(host)
        outcome = asyncio.run(
            run_tool_call(
                host.snapshot(),
                ToolCall(CALL_ID, args.name, raw),
                session_id="cli",
                message_id="cli",
            )
        )
    return report(args.name, outcome, asker, as_json=args.json)


def read_input(argument: str) -> str:
    """The call's JSON text from the argument, ``@file`` or stdin; must be an object."""
    if argument == "-":
        text = sys.stdin.read()
    elif argument.startswith("@"):
        try:
            text = Path(argument[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {argument[1:]}: {exc.strerror}") from None
    else:
        text = argument
    try:
        value = json.loads(text or "{}")
    except ValueError as exc:
        raise CommandError(f"input is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CommandError(f"input must be a JSON object, got {type(value).__name__}")
    return text or "{}"


def choose_asker(yes: bool, *, interactive: bool) -> Asker:
    """``--yes`` allows once; a terminal prompts; otherwise asks decline (``NoOneToAsk``)."""
    if yes:
        return _allow_once
    return ask_on_terminal if interactive else NoOneToAsk()


def _interactive(args: argparse.Namespace) -> bool:
    return args.input != "-" and sys.stdin.isatty()


def _allow_once(request: PermissionRequest) -> Reply:
    return "once"


_CHOICES = {
    "o": "once",
    "once": "once",
    "a": "always",
    "always": "always",
    "r": "reject",
    "reject": "reject",
}


def ask_on_terminal(request: PermissionRequest) -> Reply:
    """Prompt on stderr/stdin until the user picks once, always, reject or feedback."""
    from tooldeck.host.permissions.request import Reject
    from tooldeck.host.permissions.shown import attached_lines, visible

    shown = ", ".join(request.resources) or "*"
    if request.action == "elicitation":  # a mounted MCP server asks the user
        sys.stderr.write(_elicitation(request))
    else:
        asked = f"tooldeck: permission requested: {request.action} on {shown}"
        sys.stderr.write(visible(asked) + "\n")
        sys.stderr.write(attached_lines(request.metadata, request.resources))
    while True:
        answer = _prompt("[o]nce, [a]lways, [r]eject, reject with [f]eedback? ")
        if answer is None:
            return "reject"
        if answer in ("f", "feedback"):
            return Reject(_prompt("feedback for the model: ") or "")
        if answer in _CHOICES:
            return _CHOICES[answer]  # type: ignore[return-value]


def _elicitation(request: PermissionRequest) -> str:
    """What a mounted server asks, and what accepting sends (its form's defaults)."""
    metadata = request.metadata
    lines = [f"tooldeck: MCP server {metadata.get('server')!r} asks: {metadata.get('message')}"]
    if metadata.get("url"):
        from tooldeck.mcp.client.pages import look_alike

        lines.append(f"  it wants you to open: {metadata['url']}")
        warning = look_alike(str(metadata["url"]))
        if warning:
            lines.append(f"  {warning}")
    fields = (metadata.get("schema") or {}).get("properties") or {}
    for name, field in fields.items():
        default = field.get("default") if isinstance(field, dict) else None
        lines.append(f"  {name}: {default!r}" if default is not None else f"  {name}: (no default)")
    if fields:
        lines.append("  (accepting once or always sends these defaults)")
    from tooldeck.host.permissions.shown import visible

    return "".join(visible(line) + "\n" for line in lines)  # a server's words, not commands


def _prompt(text: str) -> str | None:
    sys.stderr.write(text)
    sys.stderr.flush()
    line = sys.stdin.readline()
    return line.strip().lower() if line else None


def report(
    label: str, outcome: ToolCallOutcome, asker: Asker | None = None, *, as_json: bool = False
) -> int:
    """Print a call's outcome: content on stdout when it completed, else the status and
    error type then the content on stderr (for an ask no one could answer, what would
    allow it); ``as_json``: the outcome as JSON on stdout, and that explanation on
    stderr. The exit code: 0 completed, 1 otherwise."""
    unasked = None  # for an ask no one could answer: what would allow the call
    if outcome.status == "declined" and isinstance(asker, NoOneToAsk) and asker.requests:
        unasked = asker.explain(label)
    if as_json:
        from tooldeck.host.boundary.pending import outcome_to_json

        data = json.loads(outcome_to_json(outcome))
        print_json({key: data[key] for key in ("status", "content", "metadata", "output", "error")})
        if unasked:
            print(unasked, file=sys.stderr)
        return 0 if outcome.status == "completed" else 1
    if outcome.status == "completed":
        print_content(outcome.content, sys.stdout)
        return 0
    if unasked:
        print(unasked, file=sys.stderr)
        return 1
    kind = f" ({outcome.error.type})" if outcome.error is not None else ""
    print(f"tooldeck: {label}: {outcome.status}{kind}", file=sys.stderr)
    print_content(outcome.content, sys.stderr)
    return 1


def print_content(content: Sequence[ContentPart], stream: Any) -> None:
    from tooldeck.host.call.sizes import format_size

    for part in content:
        text = getattr(part, "text", None)
        if text is None:
            size = format_size(len(getattr(part, "data", b"")))
            text = f"[{part.type}: {getattr(part, 'mime_type', '?')}, {size}]"
        print(text, file=stream)
