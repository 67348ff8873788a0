"""Whether code mode can run here, and why not, without importing the sandbox.

``importlib.util.find_spec`` answers "is pydantic-monty installed" without loading it
(importing it costs a fifth of a second); the answer is cached for the process. A
worker that cannot start (no binary for this platform, say) is only found out on the
first program; the provider then records the reason and later snapshots go native.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location

MODULE = "pydantic_monty"


@functools.cache
def sandbox_missing() -> str | None:
    """Why the sandbox package cannot be used, or ``None`` when it is installed."""
    from importlib.util import find_spec

    try:
        found = find_spec(MODULE)
    except (ImportError, ValueError) as exc:
        return f"pydantic-monty cannot be found ({exc})"
    if found is None:
        return "pydantic-monty is not installed (pip install 'pydantic-monty>=1.4,<2')"
    return None


def off_reason(location: Location) -> str | None:
    """Why the Location's config turns code mode off, or ``None``."""
    if not location.config.codemode.enabled:
        return "code mode is off ([codemode] enabled = false)"
    if location.policy.hidden("execute"):
        return "code mode is off (a deny rule on the execute action)"
    return None
