"""The execution suite runs under the loop guard: an async test fails when its event loop
stalls (``tooldeck_loop_guard``)."""

from __future__ import annotations

import inspect

import pytest


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Async tests here fail when their event loop stalls (``tooldeck_loop_guard``)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("tooldeck_loop_guard")
