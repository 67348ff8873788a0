from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from tooldeck import Location, Tool, ToolCall, ToolContext, ToolResult, ToolService, tool
from tooldeck._function_tool import parse_docstring


def test_tool_from_a_typed_function_with_google_docstring():
    @tool
    def search(query: str, limit: int = 10, tags: list[str] | None = None) -> list[str]:
        """Search the index.

        Finds documents.

        Args:
            query: What to look for.
            limit: How many results
                at most.
            tags: Only these tags.
        """
        return [query] * limit

    assert isinstance(search, Tool)
    assert search.name == "search"
    assert search.description == "Search the index.\n\nFinds documents."
    schema = search.input.model_json_schema()
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "What to look for."
    assert schema["properties"]["limit"]["description"] == "How many results at most."
    assert schema["properties"]["limit"]["default"] == 10


def test_options_and_sphinx_docstrings():
    @tool(name="lookup", namespace="kb", codemode=False, permission="kb", pinned=True)
    def find(key: str) -> str:
        """Find a key.

        :param key: The key to find.
        """
        return key

    assert (find.name, find.namespace, find.codemode, find.permission, find.pinned) == (
        "lookup",
        "kb",
        False,
        "kb",
        True,
    )
    assert find.input.model_json_schema()["properties"]["key"]["description"] == "The key to find."


def test_parse_docstring_without_sections():
    assert parse_docstring("Just text.\nMore.") == ("Just text.\nMore.", {})


@pytest.fixture
def snapshot_of(tmp_path):
    def build(*tools):
        service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"))
        service.transform(lambda e: [e.add(t) for t in tools], source="fn")
        return service.snapshot()

    return build


def test_return_value_becomes_validated_output_and_json_content(snapshot_of):
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    result = snapshot_of(add).execute_sync(ToolCall("1", "add", '{"a": 1, "b": 2}'))
    assert result.output == 3
    assert result.content[0].text == "3"


def test_str_return_is_content_and_output(snapshot_of):
    @tool
    def hello(name: str) -> str:
        """Greet."""
        return f"hi {name}"

    result = snapshot_of(hello).execute_sync(ToolCall("1", "hello", '{"name": "x"}'))
    assert (result.content[0].text, result.output) == ("hi x", "hi x")


class Stats(BaseModel):
    count: int


def test_model_return_and_context_injection(snapshot_of):
    seen = []

    @tool
    async def stats(path: str, ctx: ToolContext) -> Stats:
        """Count."""
        seen.append(ctx.call_id)
        return Stats(count=len(path))

    assert stats.output is Stats
    assert "ctx" not in stats.input.model_json_schema()["properties"]
    result = asyncio.run(snapshot_of(stats).execute(ToolCall("c9", "stats", '{"path": "abc"}')))
    assert result.output == {"count": 3} and seen == ["c9"]


def test_unannotated_or_toolresult_returns_have_no_output(snapshot_of):
    @tool
    def plain(x: int):
        """Plain."""
        return {"x": x}

    @tool
    def explicit(x: int) -> ToolResult:
        """Explicit."""
        return ToolResult(f"x={x}", metadata={"m": 1})

    assert plain.output is None and explicit.output is None
    snap = snapshot_of(plain, explicit)
    assert snap.execute_sync(ToolCall("1", "plain", '{"x": 2}')).content[0].text == '{\n  "x": 2\n}'
    result = snap.execute_sync(ToolCall("1", "explicit", '{"x": 2}'))
    assert result.content[0].text == "x=2" and result.metadata == {"m": 1}


def test_var_args_are_refused():
    def bad(*args: int) -> None:
        """Bad."""

    with pytest.raises(TypeError, match=r"\*args/\*\*kwargs cannot become tool input"):
        tool(bad)


@pytest.mark.parametrize("not_a_function", [42, "add"])
def test_tool_of_something_that_is_not_a_function_says_so(not_a_function):
    with pytest.raises(TypeError, match=r"tool\(\) takes a typed function, got"):
        tool(not_a_function)


def test_tool_of_a_tool_says_it_is_a_tool_already():
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    with pytest.raises(TypeError, match=r"\(a Tool already\)"):
        tool(add)
