"""Fixtures for code mode: one real sandbox pool per test module, snapshots per test."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService, hookimpl, run_tool_call
from tooldeck.codemode import CodeMode
from tooldeck.codemode.sandbox import SandboxPool
from tooldeck.host.config.config import Config


class Adder:
    """A plugin with one code-mode tool, ``add`` (JSON Schema input)."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(
            Tool(
                name="add",
                description="Add.",
                input={
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                },
                execute=lambda i, c: ToolResult(str(i["a"] + i["b"])),
            )
        )


@pytest.fixture(scope="module")
def codemode():
    """A ``CodeMode`` provider shared by a module's tests: its worker pool starts once."""
    provider = CodeMode()
    yield provider
    provider.close()


class Deck:
    """Builds snapshots for one test: tools, namespace descriptions, ``[codemode]`` config."""

    def __init__(self, tmp_path, provider: CodeMode) -> None:
        self.tmp_path = tmp_path
        self.provider = provider
        self.progress: list[dict[str, Any]] = []

    def snapshot(
        self,
        *tools: Tool,
        namespaces: dict[str, str] | None = None,
        asker: Callable[..., Any] | None = None,
        permission: Sequence[dict[str, str]] = (),
        **codemode: Any,
    ):
        config = Config.model_validate(
            {"codemode": codemode, "permission": list(permission)}, strict=False
        )
        location = Location(
            self.tmp_path, config=config, data_dir=self.tmp_path / "data", asker=asker
        )
        service = ToolService(location, codemode=self.provider)

        def transform(editor):
            for name, text in (namespaces or {}).items():
                editor.namespace(name, text)
            for tool in tools:
                editor.add(tool)

        service.transform(transform, source="test")
        return service.snapshot(location.policy)

    async def run(self, snapshot, code: str, *, call_id: str = "c1", progress: bool = False):
        """Run ``code`` through ``execute``; ``progress``: collect the call's progress events
        in ``self.progress`` (the program's calls then all run on the loop)."""
        return await run_tool_call(
            snapshot,
            ToolCall(call_id, "execute", {"code": code}),
            session_id="s1",
            message_id="m1",
            progress=self.progress.append if progress else None,
        )


@pytest.fixture
def deck(tmp_path, codemode) -> Deck:
    return Deck(tmp_path, codemode)


def text_tool(name: str, reply: Callable[[dict[str, Any]], str], **options: Any) -> Tool:
    """A JSON-Schema tool whose every property is a string, replying with text."""
    properties = options.pop("properties", {"text": {"type": "string"}})
    schema = {
        "type": "object",
        "properties": properties,
        "required": options.pop("required", list(properties)),
    }
    return Tool(
        name=name,
        description=options.pop("description", f"The {name} tool."),
        input=schema,
        execute=lambda i, c: ToolResult(reply(i)),
        **options,
    )


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Async tests here fail when their event loop stalls (``tooldeck_loop_guard``)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("tooldeck_loop_guard")


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    """A started sandbox pool of one warm worker, for tests that drive sessions directly."""
    pool = SandboxPool(request_timeout=30, max_processes=1)
    pool.start()
    yield pool
    pool.close()
