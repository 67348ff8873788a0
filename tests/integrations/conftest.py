"""A host with a small pack for the framework integrations: a native tool, a code-mode
tool, a tool that fails, one that asks permission and one that returns an image."""

from __future__ import annotations

import inspect
import io

import pytest
from PIL import Image

from tooldeck import (
    Host,
    ImagePart,
    PermissionCorrected,
    TextPart,
    Tool,
    ToolFailure,
    ToolResult,
    hookimpl,
)

PAIR = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}
TARGET = {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]}


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 2), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


async def launch(args, ctx):
    try:
        fuel = {"stages": 2, "note": f"one way to {args['target']}", "crew": {"pilots": 1}}
        await ctx.permission.assert_("launch", [args["target"]], metadata=fuel)
    except PermissionCorrected as exc:
        raise ToolFailure(f"not launched: {exc.feedback}") from exc
    LAUNCHED.append(args["target"])
    return ToolResult(f"launched {args['target']}")


def broken(args, ctx):
    raise ToolFailure("the disk is full")


LAUNCHED: list[str] = []


class Pack:
    """The pack the agents call: ``add``, ``broken``, ``launch``, ``photo`` (native),
    ``mul`` and ``land`` (code mode; ``land`` asks like ``launch``)."""

    @hookimpl
    def tool_transform(self, editor):
        def add(args, ctx):
            return ToolResult(str(args["a"] + args["b"]))

        def mul(args, ctx):
            return ToolResult(str(args["a"] * args["b"]))

        def photo(args, ctx):
            return ToolResult([TextPart("a red pixel"), ImagePart(png(), "image/png")])

        editor.add(Tool(name="add", description="Add.", input=PAIR, execute=add, codemode=False))
        editor.add(Tool(name="mul", description="Multiply.", input=PAIR, execute=mul))
        editor.add(Tool(name="broken", description="Fail.", execute=broken, codemode=False))
        editor.add(
            Tool(name="launch", description="Launch.", input=TARGET, execute=launch, codemode=False)
        )
        editor.add(Tool(name="land", description="Land.", input=TARGET, execute=launch))
        editor.add(Tool(name="photo", description="A photo.", execute=photo, codemode=False))


@pytest.fixture
def host(tmp_path):
    LAUNCHED.clear()
    with Host.open(
        tmp_path, plugins=[Pack()], disable=BUILTINS, data_dir=tmp_path / ".data"
    ) as opened:
        yield opened


BUILTINS = [
    f"builtin:{name}"
    for name in ("edit", "glob", "grep", "patch", "question", "read", "shell", "webfetch", "write")
]


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Async tests here fail when their event loop stalls (``tooldeck_loop_guard``)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("tooldeck_loop_guard")
