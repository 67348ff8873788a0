"""One permission ask as the host's asker sees it, and the replies it may give.

Apart from ``permission.py`` so that what only carries an ask (``inflight.py``, the
answers of ``asks.py``) needs none of the service that decides it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from tooldeck._public import public


@public
@dataclass(frozen=True, slots=True)
class Reject:
    """A rejection with feedback: the tool fails with it and the model continues."""

    feedback: str


Reply: TypeAlias = Literal["once", "always", "reject"] | Reject
"""An asker's answer. ``once`` and rejections save nothing; ``always`` saves ``save``."""


@public
@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """One ask, as the host's asker sees it.

    ``resources`` are only those still needing an answer (allowed ones are left out);
    ``save`` are the patterns an "always" reply will allow for ``action``.
    """

    action: str
    resources: tuple[str, ...]
    save: tuple[str, ...]
    metadata: Mapping[str, Any]
    source: Mapping[str, Any]
    session_id: str = ""


@public
class Asker(Protocol):
    """The host's prompt (CLI, MCP elicitation, a test script); sync or async.

    A permission ask takes a ``Reply``. A mounted MCP server's question (the action
    ``"elicitation"``) takes one too, or a mapping: the form's fields, accepted.
    """

    def __call__(
        self, request: PermissionRequest
    ) -> Reply | Mapping[str, Any] | Awaitable[Reply | Mapping[str, Any]]: ...
