"""``pack_from_toolset``: a pydantic-ai ``FunctionToolset`` as a tooldeck plugin."""

from __future__ import annotations

import pydantic
import pytest
from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.toolsets import FunctionToolset

from tooldeck import Host, ToolCall, hookimpl, run_tool_call
from tooldeck.integrations.pydantic_ai import pack_from_toolset

from .conftest import BUILTINS, Pack


class Point(pydantic.BaseModel):
    x: int
    y: int


def toolset() -> FunctionToolset:
    tools = FunctionToolset()

    @tools.tool_plain
    def add(a: int, b: int) -> str:
        """Add, the toolset's way."""
        return f"toolset says {a + b}"

    @tools.tool_plain
    def norm(point: Point) -> dict:
        """Manhattan norm of a point."""
        return {"norm": abs(point.x) + abs(point.y)}

    @tools.tool_plain
    def picky(word: str) -> str:
        """Wants a long word."""
        if len(word) < 5:
            raise ModelRetry(f"{word!r} is too short")
        return word

    return tools


def open_host(tmp_path, *plugins):
    return Host.open(tmp_path, plugins=list(plugins), disable=BUILTINS, data_dir=tmp_path / "d")


async def call(host, name, args):
    return await run_tool_call(host.snapshot(), ToolCall("c1", name, args))


async def test_a_toolset_brought_in_after_a_pack_overrides_its_tool(tmp_path):
    with open_host(
        tmp_path, Pack(), pack_from_toolset(toolset(), name="fts", codemode=False)
    ) as host:
        outcome = await call(host, "add", {"a": 2, "b": 3})
        assert outcome.content[0].text == "toolset says 5"
        rows = {row.name: row for row in host.plugins}
        assert "fts" in rows


async def test_a_pack_brought_in_after_the_toolset_overrides_it(tmp_path):
    with open_host(
        tmp_path, pack_from_toolset(toolset(), name="fts", codemode=False), Pack()
    ) as host:
        outcome = await call(host, "add", {"a": 2, "b": 3})
        assert outcome.content[0].text == "5"


async def test_its_tools_take_a_namespace_and_run_in_code_mode(tmp_path):
    with open_host(tmp_path, pack_from_toolset(toolset(), name="fts", namespace="geo")) as host:
        assert "execute" in host.snapshot().names and "geo_norm" not in host.snapshot().names
        code = "await tools.geo.norm(x=-3, y=4)"
        outcome = await call(host, "execute", {"code": code})
        assert outcome.status == "completed", outcome
        assert outcome.content[0].text == '{"norm":7}'


async def test_tooldeck_validates_and_model_retry_becomes_a_failure(tmp_path):
    with open_host(tmp_path, pack_from_toolset(toolset(), name="fts", codemode=False)) as host:
        invalid = await call(host, "norm", {"x": "far", "y": 1})
        assert invalid.status == "failed"
        assert "- x: 'far' is not of type 'integer'" in invalid.content[0].text
        retry = await call(host, "picky", {"word": "hi"})
        assert (retry.status, retry.content[0].text) == ("failed", "'hi' is too short")


async def test_a_tooldeck_hook_or_override_can_add_a_permission_ask(tmp_path):
    asked = []

    class Guard:
        @hookimpl
        def tool_transform(self, editor):
            editor.update("add", lambda tool: tool.replace(execute=guarded(tool.execute)))

    def guarded(execute):
        async def run(args, ctx):
            await ctx.permission.assert_("add", [str(args["a"])])
            return await execute(args, ctx)

        return run

    plugins = [pack_from_toolset(toolset(), name="fts", codemode=False), Guard()]
    with Host.open(
        tmp_path,
        plugins=plugins,
        disable=BUILTINS,
        data_dir=tmp_path / "d",
        asker=lambda request: asked.append(request.resources) or "reject",
    ) as host:
        outcome = await call(host, "add", {"a": 2, "b": 3})
    assert (outcome.status, asked) == ("declined", [("2",)])


def test_a_tool_that_needs_a_run_context_is_refused():
    tools = FunctionToolset()

    @tools.tool
    def needs(ctx: RunContext[None], x: int) -> int:
        return x

    with pytest.raises(ValueError, match="tool 'needs' takes a RunContext"):
        pack_from_toolset(tools, name="ctx")

    prepared = FunctionToolset()
    prepared.add_function(lambda x: x, name="hidden", prepare=lambda ctx, tool_def: tool_def)
    with pytest.raises(ValueError, match="tool 'hidden' has a prepare function"):
        pack_from_toolset(prepared, name="prepared")


async def test_a_tool_that_requires_approval_asks_tooldecks_permission(tmp_path):
    tools, launched = FunctionToolset(), []

    @tools.tool_plain(requires_approval=True)
    def launch(target: str) -> str:
        """Launch."""
        launched.append(target)
        return f"launched {target}"

    asked = []
    pack = pack_from_toolset(tools, name="rockets", namespace="space", codemode=False)
    with Host.open(
        tmp_path,
        plugins=[pack],
        disable=BUILTINS,
        data_dir=tmp_path / "d",
        asker=lambda request: asked.append(request.action) or "reject",
    ) as host:
        outcome = await call(host, "space_launch", {"target": "moon"})
    assert (outcome.status, asked, launched) == ("declined", ["space_launch"], [])


def test_what_is_not_a_function_toolset_is_refused():
    with pytest.raises(TypeError, match="expected a pydantic-ai FunctionToolset, got list"):
        pack_from_toolset([], name="nope")
