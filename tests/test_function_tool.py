from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from pydantic import BaseModel, Field, PlainSerializer
from typing_extensions import TypedDict

from tooldeck import (
    Location,
    Tool,
    ToolCall,
    ToolContext,
    ToolFailure,
    ToolResult,
    ToolService,
    tool,
)
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


AsText = Annotated[int, PlainSerializer(str, return_type=str)]


class Tally(TypedDict):
    count: AsText
    note: str


def as_text() -> AsText:
    """An annotated scalar."""
    return 42


def tally() -> Tally:
    """A TypedDict."""
    return {"count": 42, "note": "n"}


@pytest.mark.parametrize(
    ("function", "encoded"), [(as_text, "42"), (tally, {"count": "42", "note": "n"})]
)
def test_type_adapter_outputs_are_encoded_with_their_own_serializers(
    snapshot_of, function, encoded
):
    name = function.__name__
    result = snapshot_of(tool(function)).execute_sync(ToolCall("1", name, "{}"))
    assert result.output == encoded


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


def both_paths(tool_):
    """The tool as built (the fast path) and behind a plain executor (the general path)."""
    return [tool_, tool_.replace(execute=lambda inp, ctx: tool_.execute(inp, ctx))]


def fill(
    xs: list[int] = Field(default_factory=list),  # noqa: B008  (a spec: each call gets a fresh list)
    n: int = Field(default=3, ge=0, description="How many."),
) -> str:
    """Fill."""
    xs.append(n)
    return repr(xs)


def count(n: int = Field(default=3, ge=0)) -> int:
    """Count."""
    return n


@pytest.mark.parametrize("function", [fill, count])
@pytest.mark.parametrize("path", [0, 1])
def test_a_field_default_is_the_spec_of_the_field_on_both_paths(snapshot_of, function, path):
    tool_ = both_paths(tool(function))[path]
    snapshot = snapshot_of(tool_)
    expected = "[3]" if function is fill else 3
    assert snapshot.execute_sync(ToolCall("1", tool_.name, "{}")).output == expected
    assert snapshot.execute_sync(ToolCall("2", tool_.name, {})).output == expected
    with pytest.raises(ToolFailure, match=r"\n- n: Input should be greater than or equal to 0\n"):
        snapshot.execute_sync(ToolCall("3", tool_.name, '{"n": -1}'))


def test_a_field_default_gives_the_schema_its_constraints_and_description():
    schema = tool(fill).input.model_json_schema()  # warnings are errors: no JSON warning
    assert schema["properties"]["n"] == {
        "default": 3,
        "description": "How many.",
        "minimum": 0,
        "title": "N",
        "type": "integer",
    }
    assert schema["properties"]["xs"] == {
        "items": {"type": "integer"},
        "title": "Xs",
        "type": "array",
    }
    assert "required" not in schema


def test_a_default_factory_gives_each_call_a_fresh_value(snapshot_of):
    snapshot = snapshot_of(tool(fill))
    calls = [snapshot.execute_sync(ToolCall(str(i), "fill", {"n": i})).output for i in range(3)]
    assert calls == ["[0]", "[1]", "[2]"]


def test_a_field_description_wins_over_the_docstring_which_fills_in_the_rest():
    @tool
    def pick(
        a: int = Field(default=1, description="From the Field."),
        b: Annotated[int, Field(description="From Annotated.")] = 2,
        c: int = Field(default=3, title="Sea"),
        d: int = 4,
    ) -> int:
        """Pick.

        Args:
            a: From the docstring.
            b: From the docstring.
            c: From the docstring.
            d: From the docstring.
        """
        return a

    properties = pick.input.model_json_schema()["properties"]
    assert [properties[key]["description"] for key in "abcd"] == [
        "From the Field.",
        "From Annotated.",
        "From the docstring.",
        "From the docstring.",
    ]
    assert properties["c"]["title"] == "Sea"


@pytest.mark.parametrize("path", [0, 1])
def test_annotated_constraints_with_a_plain_default_still_apply(snapshot_of, path):
    def limit(n: Annotated[int, Field(ge=0)] = 3) -> int:
        """Limit."""
        return n

    snapshot = snapshot_of(both_paths(tool(limit))[path])
    assert snapshot.execute_sync(ToolCall("1", "limit", "{}")).output == 3
    with pytest.raises(ToolFailure, match=r"\n- n: Input should be greater than or equal to 0\n"):
        snapshot.execute_sync(ToolCall("2", "limit", '{"n": -1}'))


@pytest.mark.parametrize("path", [0, 1])
def test_a_field_default_with_an_alias_reads_the_alias(snapshot_of, path):
    def shout(text: str = Field(default="hi", alias="words")) -> str:
        """Shout."""
        return text.upper()

    tool_ = both_paths(tool(shout))[path]
    assert list(tool_.input.model_json_schema()["properties"]) == ["words"]
    snapshot = snapshot_of(tool_)
    assert snapshot.execute_sync(ToolCall("1", "shout", '{"words": "yo"}')).output == "YO"
    assert snapshot.execute_sync(ToolCall("2", "shout", "{}")).output == "HI"


@pytest.mark.parametrize("path", [0, 1])
def test_async_tools_taking_the_context_take_field_defaults_too(snapshot_of, path):
    @tool
    async def page(
        ctx: ToolContext,
        items: list[str] = Field(default_factory=list),  # noqa: B008  (a spec, as above)
        size: int = Field(default=2, ge=1, description="Page size."),
    ) -> str:
        """Page."""
        items.append(ctx.call_id)
        return f"{items} by {size}"

    snapshot = snapshot_of(both_paths(page)[path])
    results = [asyncio.run(snapshot.execute(ToolCall(c, "page", {}))).output for c in "xy"]
    assert results == ["['x'] by 2", "['y'] by 2"]
    assert page.input.model_json_schema()["properties"]["size"]["description"] == "Page size."
    with pytest.raises(ToolFailure, match=r"\n- size: Input should be greater than or equal to 1"):
        asyncio.run(snapshot.execute(ToolCall("z", "page", {"size": 0})))
