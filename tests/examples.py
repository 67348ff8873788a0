"""How many examples a property test draws.

Each property names its full count; CI's tox envs, which run every test, draw it in full
(``TOOLDECK_TESTS_THOROUGH=1``, set in ``tox.ini``). The default run, the README's test
command, draws a quarter of it (never fewer than 20), which keeps that command within its
time budget while every property still runs on every change.
"""

from __future__ import annotations

import os

THOROUGH = os.environ.get("TOOLDECK_TESTS_THOROUGH") == "1"


def examples(full: int) -> int:
    """``full`` in a thorough run, else a quarter of it (at least 20, at most ``full``)."""
    return full if THOROUGH else min(full, max(20, full // 4))
