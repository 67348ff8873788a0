"""Fixtures for the built-in tool tests: a real Location in a temp dir, a scripted asker.

Built-ins are loaded the way the plugin host loads them: their module's hookimpls run
inside one ``ToolService.transform`` registration.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

import pytest

from tooldeck.host.location import Location
from tooldeck.host.permission import PermissionRequest, Reject
from tooldeck.host.question import QuestionRequest
from tooldeck.host.service import ToolService
from tooldeck.host.session import ToolCallOutcome, run_tool_call
from tooldeck.host.snapshot import ToolCall


@dataclass
class ScriptedAsker:
    """Replies per action ("once", "always", "reject", Reject(...)); default "once".

    Every request is recorded so tests can assert what was asked, in order.
    """

    replies: dict[str, Any] = field(default_factory=dict)
    default: Any = "once"
    requests: list[PermissionRequest] = field(default_factory=list)

    def __call__(self, request: PermissionRequest) -> Any:
        self.requests.append(request)
        return self.replies.get(request.action, self.default)

    def asked(self, action: str | None = None) -> list[PermissionRequest]:
        return [r for r in self.requests if action is None or r.action == action]


@dataclass
class ScriptedAnswerer:
    """Answers questions with fixed labels per question; ``None`` dismisses."""

    answers: Any = None
    requests: list[QuestionRequest] = field(default_factory=list)

    def __call__(self, request: QuestionRequest) -> Any:
        self.requests.append(request)
        return self.answers


@pytest.fixture
def asker() -> ScriptedAsker:
    return ScriptedAsker()


@pytest.fixture
def answerer() -> ScriptedAnswerer:
    return ScriptedAnswerer()


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def location(root, tmp_path, asker, answerer) -> Location:
    return Location(root, data_dir=tmp_path / "data", asker=asker, answerer=answerer)


class Builtins:
    """Loads built-in plugin modules into a service and calls their tools."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.service = ToolService(location)
        self.calls = 0

    def load(self, *modules: str) -> Builtins:
        for name in modules:
            module = importlib.import_module(f"tooldeck.builtin_plugins.{name}")
            self.service.transform(_transform_of(module, self.location), source=f"builtin:{name}")
        return self

    async def call(self, name: str, **arguments: Any) -> ToolCallOutcome:
        self.calls += 1
        call = ToolCall(id=f"call_{self.calls}", name=name, input=arguments)
        return await run_tool_call(self.service.snapshot(), call, session_id="s1", message_id="m1")


def _transform_of(module: Any, location: Location) -> Any:
    def transform(editor: Any) -> None:
        describe = getattr(module, "namespace_descriptions", None)
        if describe is not None:
            describe(editor=editor, location=location)
        module.tool_transform(editor=editor, location=location)

    return transform


@pytest.fixture
def builtins(location) -> Builtins:
    return Builtins(location)


__all__ = ["Builtins", "Reject", "ScriptedAnswerer", "ScriptedAsker"]
