"""Fixtures for the built-in tool tests: thin aliases over the shipped ``tooldeck_*`` ones.

``asker``, ``answerer``, ``location`` and ``root`` are ``tooldeck_asker``,
``tooldeck_answerer``, ``tooldeck_location`` and its root. ``builtins`` loads built-in
modules one by one into a real host (``TestHost.for_location``); ``type(builtins)(loc)``
does the same on another Location (one with a ``Config``, say).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject
from tooldeck.testing import ScriptedAnswerer, ScriptedAsker, TestHost


@pytest.fixture
def asker(tooldeck_asker) -> ScriptedAsker:
    return tooldeck_asker


@pytest.fixture
def answerer(tooldeck_answerer) -> ScriptedAnswerer:
    return tooldeck_answerer


@pytest.fixture
def location(tooldeck_location) -> Location:
    return tooldeck_location


@pytest.fixture
def root(tooldeck_location):
    return tooldeck_location.root


class Builtins:
    """``load(*modules)`` built-ins into a host on ``location``; ``call`` their tools.

    Snapshots show every registered tool (``visibility=False``), so a denied tool is
    still called and fails with ``permission.rejected``.
    """

    def __init__(self, location: Location) -> None:
        self.location = location
        self.modules: list[str] = []
        self.host = TestHost.for_location(location, builtins=False, visibility=False)
        self.calls = 0

    def load(self, *modules: str) -> Builtins:
        self.modules += modules
        self.host = TestHost.for_location(self.location, builtins=self.modules, visibility=False)
        return self

    @property
    def service(self):
        return self.host.service

    async def call(self, name: str, **arguments: Any) -> ToolCallOutcome:
        self.calls += 1
        return await self.host.call_with(name, arguments, call_id=f"call_{self.calls}")


@pytest.fixture
def builtins(location) -> Builtins:
    return Builtins(location)


__all__ = ["Builtins", "Reject", "ScriptedAnswerer", "ScriptedAsker"]


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Async tests here fail when their event loop stalls (``tooldeck_loop_guard``)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("tooldeck_loop_guard")
