"""A child process on a "full disk": its files may not grow past a limit.

``RLIMIT_FSIZE`` with ``SIGXFSZ`` ignored makes a write past the limit fail with
``EFBIG``, part-way as on a full disk, in a real process of this interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

__all__ = ["on_a_full_disk"]

_LIMIT = """\
import resource as _resource, signal as _signal
_signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)
_resource.setrlimit(_resource.RLIMIT_FSIZE, ({limit}, {limit}))
del _resource, _signal
"""


def on_a_full_disk(
    code: str, *args: str, limit: int = 1000, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -c code args...`` with files limited to ``limit`` bytes; its output
    captured as text."""
    return subprocess.run(
        [sys.executable, "-c", _LIMIT.format(limit=limit) + code, *args],
        env=dict(env) if env is not None else os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=60,
    )
