"""tooldeck-guard: one ``tool_call`` wrapper that refuses shell commands and hides secrets.

Why a hook and not an override of ``shell``: a hook wraps *every* call at tooldeck's
one call boundary, whichever pack supplied the tool and however the call arrived (the
model's own call, a call nested in a code-mode program, a mounted MCP server's tool, a
call served over MCP). So the refusal holds for any ``shell`` (the built-in or one that
overrides it), and the redaction covers results of tools this pack has never heard of.

What it does, per call:

* a ``shell`` call whose ``command`` matches one of the ``refuse`` patterns (regular
  expressions, searched anywhere in the command) fails before anything runs, with the
  pattern in the message, so the model knows what not to retry;
* every result's text, output and metadata, and every failure's message, has each
  ``secrets`` value replaced by ``[redacted]``.

Configured by the constructor (``Guard(refuse=[...], secrets=[...])``), or, for the
installed entry point, by the environment: ``TOOLDECK_GUARD_REFUSE`` (one pattern per
line) and ``TOOLDECK_GUARD_SECRETS`` (comma-separated *names* of environment variables
whose values are secrets), read once at import.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Generator, Iterable, Mapping
from typing import Any

from tooldeck import TextPart, ToolCall, ToolFailure, ToolResult, hookimpl

__all__ = ["REDACTED", "Guard", "plugin"]

REDACTED = "[redacted]"


class Guard:
    """Refuses ``shell`` commands matching ``refuse`` and redacts ``secrets`` everywhere."""

    def __init__(self, refuse: Iterable[str] = (), secrets: Iterable[str] = ()) -> None:
        patterns = []
        for pattern in refuse:
            try:
                patterns.append(re.compile(pattern))
            except re.error as exc:
                raise ValueError(f"tooldeck-guard: refuse pattern {pattern!r}: {exc}") from None
        self.refuse = tuple(patterns)
        # Longest first, so a secret containing another is replaced whole.
        self.secrets = tuple(sorted({s for s in secrets if s}, key=len, reverse=True))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> Guard:
        """The guard ``TOOLDECK_GUARD_REFUSE`` and ``TOOLDECK_GUARD_SECRETS`` describe."""
        refuse = [p for p in environ.get("TOOLDECK_GUARD_REFUSE", "").splitlines() if p.strip()]
        names = [n.strip() for n in environ.get("TOOLDECK_GUARD_SECRETS", "").split(",")]
        return cls(refuse, [environ.get(n, "") for n in names if n])

    @hookimpl(wrapper=True)
    def tool_call(self, call: ToolCall, context: Any) -> Generator[None, ToolResult, ToolResult]:
        if context.name == "shell":
            self._check(_command(call.input))
        try:
            result = yield
        except ToolFailure as exc:
            message = self.redact(exc.message)
            if message == exc.message:
                raise
            raise ToolFailure(message) from None
        return self.redacted(result)

    def _check(self, command: str) -> None:
        for pattern in self.refuse:
            if pattern.search(command):
                raise ToolFailure(
                    self.redact(
                        f"The guard refuses this shell command: it matches /{pattern.pattern}/. "
                        "Do not run it another way; ask the user if it is needed."
                    )
                )

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``[redacted]``."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def redacted(self, result: ToolResult) -> ToolResult:
        """``result`` with secrets redacted from its text parts, output and metadata."""
        if not self.secrets:
            return result
        content, metadata, output = result
        parts = tuple(
            TextPart(self.redact(p.text)) if isinstance(p, TextPart) else p for p in content or ()
        )
        return ToolResult(parts, self._value(metadata), self._value(output))

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {k: self._value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._value(v) for v in value]
        return value


def _command(raw: str | Mapping[str, Any]) -> str:
    """The ``command`` argument of a ``shell`` call, as sent (``""`` if unreadable)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return raw  # not JSON: the tool refuses it; check the text as it is anyway
    command = raw.get("command", "") if isinstance(raw, Mapping) else ""
    return command if isinstance(command, str) else str(command)


plugin = Guard.from_environment()
"""The entry point's guard, configured from the environment at import."""
