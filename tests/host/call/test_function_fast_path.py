"""The fast path of ``tool(fn)`` tools, pinned to the general path over generated tools.

The fast path (the call path ``host/call/path.py`` chooses for such a tool, and
``host/call/arguments.py``) validates the call's JSON text straight into the
function's keyword arguments and takes its return value straight to the output contract
and the content. The general path is what
any executor gets: validate into the input model, build a ``ToolContext``, call
``tool.execute``, check the ``ToolResult``. Both must give the same result, the same
failure with the same text, and call the function with the same arguments.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo

from tooldeck import (
    Location,
    TextPart,
    ToolCall,
    ToolFailure,
    ToolResult,
    ToolService,
    tool,
)
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.arguments import arguments_of


class Point(BaseModel):
    x: int
    y: int = 0


# (annotation, values that fit it) for parameters and return values.
KINDS: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (int, st.integers(-3, 3)),
    (str, st.text("ab é", max_size=3)),
    (float, st.sampled_from([0.5, -1.0, 2.0])),
    (bool, st.booleans()),
    (list[int], st.lists(st.integers(0, 3), max_size=2)),
    (dict[str, int], st.dictionaries(st.sampled_from("pq"), st.integers(0, 3), max_size=2)),
    (int | None, st.none() | st.integers(0, 3)),
    (Literal["a", "b"], st.sampled_from(["a", "b"])),
    (Annotated[int, Field(ge=0, le=5)], st.integers(0, 5)),
    (Point, st.builds(Point, x=st.integers(0, 3))),
    (Any, st.integers(0, 3) | st.text("ab", max_size=2)),
]
ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from([1.5, 2.0])
    | st.text("ab1", max_size=2),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("xy"), inner, max_size=2)
    ),
    max_leaves=4,
)
RETURNS = st.sampled_from(["none", "content only", "ToolResult", *range(len(KINDS))])


def jsonable(value: Any) -> Any:
    return value.model_dump() if isinstance(value, BaseModel) else value


@st.composite
def field_defaults(draw, default: Any, values: st.SearchStrategy[Any]) -> Any:
    """``default`` as it is, or as the spec of a ``Field(...)`` default, sometimes a factory."""
    described = {"description": "A field."} if draw(st.booleans()) else {}
    shape = draw(st.sampled_from(["as it is", "Field", "factory"]))
    if shape == "Field":
        spec = ... if default is inspect.Parameter.empty else default
        return Field(spec, **described)
    if shape == "factory":
        value = draw(values)
        return Field(default_factory=lambda: copy.deepcopy(value), **described)
    return default


@st.composite
def functions(draw):
    """A function with a generated signature, its tool, and a JSON call for it."""
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "limit"]), unique=True, max_size=3))
    parameters, annotations, arguments = [], {}, {}
    for name in names:
        annotation, values = KINDS[draw(st.integers(0, len(KINDS) - 1))]
        default = draw(st.none() | values) if draw(st.booleans()) else inspect.Parameter.empty
        if default is not None and not isinstance(default, str | int | float | bool):
            default = inspect.Parameter.empty  # mutable defaults keep the model's way
        default = draw(field_defaults(default, values))
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default))
        annotations[name] = annotation
        given_value = draw(values | ANY_VALUE) if draw(st.integers(0, 3)) else None
        if (default is inspect.Parameter.empty or draw(st.booleans())) and (
            given_value is not None or draw(st.booleans())
        ):
            arguments[name] = jsonable(given_value)
    if draw(st.booleans()):
        arguments[draw(st.sampled_from(["extra", "a"]))] = draw(ANY_VALUE)
    returns = draw(RETURNS)
    if returns == "none":
        returned = None
    elif returns == "content only":
        returned = draw(st.none() | st.text("ab", max_size=2) | st.lists(st.integers(0, 2)))
    elif returns == "ToolResult":
        annotations["return"] = ToolResult
        returned = ToolResult(draw(st.none() | st.text("ab", max_size=2)))
    else:
        annotation, values = KINDS[returns]
        annotations["return"] = annotation
        returned = draw(values | ANY_VALUE)  # sometimes not what the annotation says
    is_async = draw(st.booleans())
    received: list[dict[str, Any]] = []
    signature = inspect.Signature(parameters)

    def record(**kwargs: Any) -> Any:
        # What a function with this signature sees: the arguments, defaults filled in.
        bound = signature.bind(**kwargs)
        bound.apply_defaults()
        received.append(bound.arguments)
        return returned

    async def record_async(**kwargs: Any) -> Any:
        return record(**kwargs)

    function = record_async if is_async else record
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__annotations__ = annotations
    function.__doc__ = "A generated tool."
    text = (
        json.dumps(arguments)
        if draw(st.integers(0, 9))
        else draw(st.sampled_from(["[1, 2]", '"text"', "{", "null", '{"a": }']))
    )
    return tool(function, name="generated"), text, received


def outcome(tool_, text: str, received: list[dict[str, Any]]) -> tuple[Any, ...]:
    """What executing ``text`` gives, as comparable data: result or failure, and calls."""
    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    service.transform(lambda editor: editor.add(tool_), source="test")
    received.clear()
    try:
        result = service.snapshot().execute_sync(ToolCall("c1", "generated", text))
        shown: Any = ("result", result.content, dict(result.metadata), result.output)
    except (ToolFailure, ToolDefectError, ValueError, TypeError) as exc:
        shown = ("raised", type(exc).__name__, str(exc))
    return shown, [sorted((k, repr(v)) for k, v in call.items()) for call in received]


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(functions())
def test_the_fast_path_gives_what_the_general_path_gives(generated):
    fast_tool, text, received = generated
    general_tool = fast_tool.replace(execute=lambda inp, ctx: fast_tool.execute(inp, ctx))
    shown = outcome(fast_tool, text, received)
    assert not [v for call in received for v in call.values() if isinstance(v, FieldInfo)]
    assert shown == outcome(general_tool, text, received)


def test_the_fast_path_validates_into_the_arguments_without_a_model(monkeypatch):
    @tool
    def add(a: int, b: int = 2) -> int:
        """Add."""
        return a + b

    arguments = arguments_of(add.execute)  # type: ignore[arg-type]
    assert arguments('{"a": 1}') == {"a": 1}
    assert arguments({"a": "3", "b": 4}) == {"a": 3, "b": 4}
    with pytest.raises(ValidationError, match="other\n  Extra inputs are not permitted"):
        arguments({"a": 1, "other": 0})  # refused as the closed schema says, never dropped
    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    service.transform(lambda editor: editor.add(add), source="test")
    monkeypatch.setattr(add.input, "__pydantic_validator__", None)  # the model is not used
    assert service.snapshot().execute_sync(ToolCall("c1", "add", '{"a": 1}')).output == 3


def test_the_fast_path_fills_in_a_default_the_function_has_only_as_a_field_spec():
    def take(a: int = 1, b: int = Field(default=2, ge=0)) -> int:
        """Take."""
        return a + b

    arguments = arguments_of(tool(take).execute)  # type: ignore[arg-type]
    assert arguments("{}") == {"b": 2}  # a's own default is the model's: left to the function
    assert arguments({"a": 3, "b": 4}) == {"a": 3, "b": 4}


class Point(BaseModel):
    x: int


def move(to: Point, speed: int = 1) -> int:
    """Move."""
    return to.x * speed


async def move_async(to: Point, speed: int = 1) -> int:
    """Move."""
    return to.x * speed


@pytest.mark.parametrize("function", [move, move_async])
@pytest.mark.parametrize(
    ("args", "where"),
    [({"to": {"x": 1}, "sped": 2}, "sped"), ({"to": {"x": 1, "y": 2}}, "to.y")],
)
def test_a_misspelt_argument_is_refused_not_dropped(function, args, where):
    """The schema the model is shown is closed, at the top and in the nested model; the
    call is judged by it, in the fast path of a ``def`` and the path of an ``async def``."""
    fn = tool(function)
    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    service.transform(lambda editor: editor.add(fn), source="test")
    snapshot = service.snapshot()
    with pytest.raises(ToolFailure, match=f"- {where}: Extra inputs are not permitted"):
        snapshot.execute_sync(ToolCall("c1", fn.name, json.dumps(args)))
    assert snapshot.execute_sync(ToolCall("c2", fn.name, {"to": {"x": 2}, "speed": 3})).output == 6


@dataclasses.dataclass
class Crate:
    at: Point


def ship(crate: Crate) -> int:
    """Ship."""
    return crate.at.x


def test_a_misspelt_key_of_a_model_behind_a_dataclass_is_refused_too():
    fn = tool(ship)
    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    service.transform(lambda editor: editor.add(fn), source="test")
    with pytest.raises(ToolFailure, match=r"- crate\.at\.y: Extra inputs are not permitted"):
        service.snapshot().execute_sync(ToolCall("c1", "ship", {"crate": {"at": {"x": 1, "y": 2}}}))


def test_a_tool_whose_input_was_replaced_takes_the_general_path():
    class Other(BaseModel):
        a: int
        b: int = 5

    @tool
    def add(a: int, b: int = 2) -> int:
        """Add."""
        return a + b

    replaced = add.replace(input=Other)
    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    service.transform(lambda editor: editor.add(replaced), source="test")
    result = service.snapshot().execute_sync(ToolCall("c1", "add", '{"a": 1}'))
    assert (result.content, result.output) == ((TextPart("6"),), 6)


def aliased(items: Annotated[list[int], Field(alias="values")]) -> int:
    """Count."""
    return len(items)


def mutable(items: list[int] = [1]) -> int:  # noqa: B006  (what the fast path must avoid)
    """Count."""
    return len(items)


@pytest.mark.parametrize(
    ("function", "text", "expected"),
    [(aliased, '{"values": [1, 2]}', {"items": [1, 2]}), (mutable, "{}", {"items": [1]})],
)
def test_fields_with_aliases_or_mutable_defaults_keep_the_model_way(function, text, expected):
    arguments = arguments_of(tool(function).execute)  # type: ignore[arg-type]
    assert arguments(text) == expected


@pytest.mark.parametrize("depth", [100, 5000])
def test_deeply_nested_arguments_fail_alike_on_both_paths(depth):
    def take(a: Any) -> str:
        """Take."""
        return "took"

    fast_tool = tool(name="generated")(take)
    general_tool = fast_tool.replace(execute=lambda inp, ctx: fast_tool.execute(inp, ctx))
    text = '{"a": ' + "[" * depth + "]" * depth + "}"
    shown = outcome(fast_tool, text, [])
    assert shown == outcome(general_tool, text, [])
    assert shown[0][0] == ("result" if depth == 100 else "raised"), shown
    mapping: Any = []
    for _ in range(depth):
        mapping = [mapping]
    fast = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    fast.transform(lambda editor: editor.add(fast_tool), source="test")
    general = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    general.transform(lambda editor: editor.add(general_tool), source="test")
    results = []
    for service in (fast, general):
        try:
            result = service.snapshot().execute_sync(ToolCall("c1", "generated", {"a": mapping}))
            results.append(("result", result.content))
        except ToolFailure as exc:
            results.append(("failed", exc.message))
    assert results[0] == results[1]


@pytest.mark.parametrize("text", ["{", '{"a": }', '{"a": ' + "[" * 100_000])
def test_invalid_json_reads_as_json_loads_words_it_on_both_paths(text):
    def take(a: int = 0) -> int:
        """Take."""
        return a

    fast_tool = tool(name="generated")(take)
    general_tool = fast_tool.replace(execute=lambda inp, ctx: fast_tool.execute(inp, ctx))
    shown = outcome(fast_tool, text, [])
    assert shown == outcome(general_tool, text, [])
    (raised, kind, message), calls = shown
    assert (raised, kind, calls) == ("raised", "ToolFailure", [])
    try:
        json.loads(text)
    except RecursionError:
        assert "\n- root: the arguments nest arrays or objects too deeply" in message
    except ValueError as exc:
        assert f"\n- root: invalid JSON: {exc}\n" in message
