"""``definitions_for``: every format's definitions, built-ins included, accepted by the
SDKs' own types; OpenAI strict mode where the schema allows it."""

from __future__ import annotations

import mcp.types as mcp_types
import pytest

from tooldeck import Host, Tool, ToolResult


@pytest.fixture(scope="module")
def builtins(tmp_path_factory):
    root = tmp_path_factory.mktemp("builtins")
    return Host.open(root, plugins=[], data_dir=root / "data").snapshot()


@pytest.fixture(params=["builtins", "snapshot"])
def catalog(request):
    return request.getfixturevalue(request.param)


def test_openai(catalog, accepted):
    from openai.types.chat import ChatCompletionFunctionToolParam

    for strict in (False, True):
        for definition in catalog.definitions_for("openai", strict=strict):
            accepted(ChatCompletionFunctionToolParam, definition)


def test_openai_responses(catalog, accepted):
    from openai.types.responses import FunctionToolParam

    for strict in (False, True):
        for definition in catalog.definitions_for("openai-responses", strict=strict):
            accepted(FunctionToolParam, definition)


def test_anthropic(catalog, accepted):
    from anthropic.types import ToolParam

    for definition in catalog.definitions_for("anthropic"):
        accepted(ToolParam, definition)


def test_gemini(catalog):
    from google.genai import types as genai

    for definition in catalog.definitions_for("gemini"):
        genai.FunctionDeclaration.model_validate(definition)  # unknown keys are refused


def test_mcp(catalog):
    for definition in catalog.definitions_for("mcp"):
        parsed = mcp_types.Tool.model_validate(definition)
        assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == definition


def test_the_responses_shape_is_flat(snapshot):
    weather = snapshot.definitions_for("openai-responses")[-1]
    assert weather == {
        "type": "function",
        "name": "weather",
        "description": "The weather in a city.",
        "parameters": snapshot.definitions[-1].input_schema,
        "strict": False,
    }


def test_strict_where_the_schema_allows_it_and_which_tools_stay_non_strict(service):
    open_object = Tool(
        name="free",
        description="Takes anything.",
        codemode=False,
        input={"type": "object", "additionalProperties": True},
        execute=lambda i, c: ToolResult("ok"),
    )
    service.transform(lambda e: e.add(open_object), source="free")
    snapshot = service.snapshot()
    chat = {
        d["function"]["name"]: d["function"]
        for d in snapshot.definitions_for("openai", strict=True)
    }
    assert chat["weather"]["strict"] is True
    assert chat["weather"]["parameters"]["required"] == ["city", "units"]
    assert chat["weather"]["parameters"]["properties"]["units"] == {
        "type": ["string", "null"],
        "enum": ["C", "F", None],
    } or chat["weather"]["parameters"]["properties"]["units"]["anyOf"][1] == {"type": "null"}
    assert chat["free"]["strict"] is False
    assert chat["free"]["parameters"] == {"type": "object", "additionalProperties": True}
    assert snapshot.non_strict() == {
        "free": "root: allows additional properties; strict objects are closed"
    }
    responses = {d["name"]: d for d in snapshot.definitions_for("openai-responses", strict=True)}
    assert (responses["weather"]["strict"], responses["free"]["strict"]) == (True, False)
    assert "strict" not in snapshot.definitions_for("openai")[0]["function"]


def test_strict_is_for_the_openai_formats(snapshot):
    with pytest.raises(ValueError, match="applies to the 'openai' and 'openai-responses'"):
        snapshot.definitions_for("anthropic", strict=True)  # type: ignore[call-overload]


def test_rendered_once_per_snapshot(snapshot):
    first = snapshot.definitions_for("openai", strict=True)
    assert snapshot.definitions_for("openai", strict=True) is first
    assert snapshot.definitions_for("openai") is not first


def test_content_part_types_are_literals():
    from tooldeck import FilePart, ImagePart, TextPart

    part = TextPart("hi")
    assert (part.type, ImagePart(b"", "image/png").type, FilePart(b"", "a/b").type) == (
        "text",
        "image",
        "file",
    )


def test_gemini_takes_refs_type_lists_and_const_in_its_own_spelling(service):
    from google.genai import types as genai
    from pydantic import BaseModel

    class Node(BaseModel):
        name: str
        children: list[Node] = []

    schema = {
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/Node"},
            "maybe": {"type": ["integer", "null"]},
            "kind": {"const": "fixed"},
            "gt": {"type": "number", "exclusiveMinimum": 0},
        },
        "$defs": {"Node": Node.model_json_schema()["$defs"]["Node"]},
    }
    service.transform(
        lambda e: e.add(
            Tool(
                name="tree",
                description="x",
                input=schema,
                execute=lambda i, c: ToolResult("ok"),
                codemode=False,
            )
        ),
        source="tree",
    )
    [tree] = [d for d in service.snapshot().definitions_for("gemini") if d["name"] == "tree"]
    parameters = tree["parameters"]
    assert parameters["properties"]["tree"]["properties"]["children"]["items"] == {
        "ref": "#/defs/Node"
    }
    assert "$ref" not in str(parameters) and "$defs" not in str(parameters)
    assert parameters["defs"]["Node"]["properties"]["children"]["items"] == {"ref": "#/defs/Node"}
    assert parameters["properties"]["maybe"] == {"type": "integer", "nullable": True}
    assert parameters["properties"]["kind"] == {"enum": ["fixed"]}
    assert parameters["properties"]["gt"] == {"type": "number"}
    genai.FunctionDeclaration.model_validate(tree)


def test_a_session_snapshot_renders_strict_and_says_what_is_not(service):
    free = Tool(
        name="free",
        description="Takes anything.",
        codemode=False,
        input={"type": "object", "additionalProperties": True},
        execute=lambda i, c: ToolResult("ok"),
    )
    with service.session("s1") as session:
        session.transform(lambda e: e.add(free), source="session-pack")
        snapshot = service.snapshot(session="s1")
        chat = {
            d["function"]["name"]: d["function"]["strict"]
            for d in snapshot.definitions_for("openai", strict=True)
        }
        assert chat["free"] is False and chat["weather"] is True
        assert snapshot.non_strict() == {
            "free": "root: allows additional properties; strict objects are closed"
        }
        assert [d["name"] for d in snapshot.definitions_for("openai-responses", strict=True)] == [
            d.name for d in snapshot.definitions
        ]
