"""Properties of the execution boundary: random schemas and inputs, and many concurrent calls.

Valid instances come from ``valid_instances`` below rather than from
``hypothesis_jsonschema.from_schema``: hypothesis-jsonschema 0.23.1 (its latest release)
drives a private Hypothesis API (``many.more()``) that Hypothesis removed in 6.170.x, so
``from_schema`` raises ``AttributeError`` for every object schema with the Hypothesis this
project installs. The generator covers exactly the schema subset generated here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tooldeck import (
    Location,
    TextPart,
    Tool,
    ToolCall,
    ToolFailure,
    ToolResult,
    ToolService,
    run_tool_call,
)
from tooldeck.host.boundary.outcome import INTERRUPTED_TEXT
from tooldeck.host.config.config import Config, OutputConfig

from ...examples import examples

# -- strategies -------------------------------------------------------------------------------
NAMES = st.sampled_from(["a", "b", "c", "name", "n-1", "x y"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from([0.5, 1.0, -2.0])
    | (st.text(st.sampled_from("ab1 é"), max_size=3))
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)


def optional(draw, key, values):
    """``{key: value}`` or ``{}``: keywords appear in some schemas only."""
    return {key: draw(values)} if draw(st.booleans()) else {}


@st.composite
def numeric_schema(draw):
    low = draw(st.integers(-3, 3))
    high = low + draw(st.integers(0, 6))
    return {
        "type": draw(st.sampled_from(["integer", "number"])),
        **optional(draw, "minimum", st.just(low)),
        **optional(draw, "maximum", st.just(high)),
    }


@st.composite
def string_schema(draw):
    low = draw(st.integers(0, 2))
    return {
        "type": "string",
        **optional(draw, "minLength", st.just(low)),
        **optional(draw, "maxLength", st.just(low + draw(st.integers(0, 3)))),
    }


ENUMS = st.lists(SCALARS, min_size=1, max_size=4, unique_by=json.dumps).map(
    lambda values: {"enum": values}
)
LEAVES = (
    numeric_schema()
    | string_schema()
    | ENUMS
    | st.sampled_from([{"type": "boolean"}, {"type": "null"}, {}])
)


@st.composite
def object_schema(draw, children):
    properties = draw(st.dictionaries(NAMES, children, max_size=4))
    names = sorted(properties)
    required = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    closed = draw(st.sampled_from([None, None, False, True]))
    return {
        "type": "object",
        "properties": properties,
        **({"required": required} if required else {}),
        **({} if closed is None else {"additionalProperties": closed}),
    }


@st.composite
def array_schema(draw, children):
    low = draw(st.integers(0, 2))
    return {
        "type": "array",
        "items": draw(children),
        **optional(draw, "minItems", st.just(low)),
        **optional(draw, "maxItems", st.just(low + draw(st.integers(0, 2)))),
    }


SCHEMAS = st.recursive(
    LEAVES, lambda inner: object_schema(inner) | array_schema(inner), max_leaves=6
)
INPUT_SCHEMAS = object_schema(SCHEMAS)


EXTRA_NAMES = st.sampled_from(["zz", "extra", "a b"])


@st.composite
def valid_instances(draw, schema):
    """Instances ``schema`` accepts; open objects also get undeclared keys."""
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    kind = schema.get("type")
    if kind is None:
        return draw(JSON)
    if kind in ("integer", "number"):
        return draw(number_in(schema))
    if kind == "string":
        low = schema.get("minLength", 0)
        return draw(
            st.text(
                st.sampled_from("ab1 é"), min_size=low, max_size=schema.get("maxLength", low + 3)
            )
        )
    if kind == "array":
        low = schema.get("minItems", 0)
        return draw(
            st.lists(
                valid_instances(schema["items"]),
                min_size=low,
                max_size=schema.get("maxItems", low + 2),
            )
        )
    if kind == "object":
        return draw(valid_object(schema))
    return {"boolean": draw(st.booleans()), "null": None}[kind]


def number_in(schema):
    low, high = schema.get("minimum", -10), schema.get("maximum", 10)
    integers = st.integers(low, high)
    if schema["type"] == "integer":
        return integers | integers.map(float)  # 2.0 is an integer to JSON Schema
    return integers | st.floats(low, high, allow_nan=False)


@st.composite
def valid_object(draw, schema):
    properties = schema["properties"]
    required = schema.get("required", [])
    chosen = (
        draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if (properties) else []
    )
    value = {
        name: draw(valid_instances(properties[name]))
        for name in [*required, *(n for n in chosen if n not in required)]
    }
    if schema.get("additionalProperties", True) is True:
        extra = draw(
            st.dictionaries(EXTRA_NAMES.filter(lambda n: n not in properties), JSON, max_size=2)
        )
        value.update(extra)
    return value


@st.composite
def instances(draw, schema):
    """Valid instances, valid ones with one value replaced, and arbitrary JSON."""
    choice = draw(st.sampled_from(["valid", "mutated", "any"]))
    if choice == "any":
        return draw(JSON)
    value = draw(valid_object(schema))
    if choice == "mutated" and value:
        value[draw(st.sampled_from(sorted(value)))] = draw(JSON)
    return value


# -- the model of what an executor receives ---------------------------------------------------
_OPENERS = ("additionalProperties", "patternProperties", "unevaluatedProperties")


def without_undeclared(schema, value):
    """The instance minus undeclared keys of objects the advertised schema closes."""
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        properties = schema["properties"]
        closed = not any(key in schema for key in _OPENERS)
        declared = set(properties) | set(schema.get("required", ()))
        return {
            key: without_undeclared(properties.get(key, {}), item)
            for key, item in value.items()
            if not closed or key in declared
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [without_undeclared(schema["items"], item) for item in value]
    return value


def strict(value):
    """Equality that tells ``True`` from ``1`` and ``1.0`` from ``1``."""
    return json.dumps(value, sort_keys=True)


@pytest.fixture(scope="module")
def location(tmp_path_factory):
    root = tmp_path_factory.mktemp("properties")
    return Location(root, data_dir=root / "data")


def snapshot_for(location, *tools):
    service = ToolService(location)
    service.transform(lambda editor: [editor.add(t) for t in tools], source="test")
    return service.snapshot()


# -- (1) random schemas and instances ---------------------------------------------------------
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data(), schema=INPUT_SCHEMAS)
def test_a_call_validates_exactly_like_jsonschema_or_fails_formatted(location, data, schema):
    instance = data.draw(instances(schema), label="instance")
    as_text = data.draw(st.booleans(), label="as JSON text") or not isinstance(instance, dict)
    received = []

    def execute(value, ctx):
        received.append(value)
        return ToolResult("ok")

    snapshot = snapshot_for(
        location,
        Tool(name="t", description="Random.", input=schema, execute=execute, codemode=False),
    )
    advertised = snapshot.definitions[0].input_schema
    call = ToolCall("1", "t", json.dumps(instance) if as_text else instance)
    # A call is judged by the schema the model was shown: closed where derivation closed it.
    valid = Draft202012Validator(advertised).is_valid(instance)
    try:
        result = snapshot.execute_sync(call)
    except ToolFailure as failure:
        assert not valid, failure.message
        assert received == []
        assert failure.message.startswith("Invalid input for tool 't':\n- ")
        assert f"Arguments received:\n{json.dumps(instance, indent=2, ensure_ascii=False)}\n" in (
            failure.message
        )
        assert failure.message.endswith("\nCorrect the arguments and call 't' again.")
        assert not Draft202012Validator(advertised).is_valid(instance)
        return
    assert valid, instance
    assert result.content == (TextPart("ok"),)
    [value] = received
    assert strict(value) == strict(without_undeclared(advertised, instance))
    assert Draft202012Validator(advertised).is_valid(value)


# -- (2) many concurrent calls ----------------------------------------------------------------
class Scenario:
    """Tools whose behaviour depends on the call: the expected outcome is known per call."""

    def __init__(self):
        self.waiting = 0
        self.all_waiting = asyncio.Event()
        self.never = asyncio.Event()
        self.waiters = 0

    def tools(self):
        def sync_ok(value, ctx):
            return ToolResult(f"sync {ctx.call_id}", {"call": ctx.call_id})

        async def async_ok(value, ctx):
            await asyncio.sleep(0)
            ctx.progress({"call": ctx.call_id})
            return ToolResult(f"async {ctx.call_id}", {"call": ctx.call_id})

        def sync_fail(value, ctx):
            raise ToolFailure(f"failed {ctx.call_id}")

        async def async_fail(value, ctx):
            await asyncio.sleep(0)
            raise ToolFailure(f"failed {ctx.call_id}")

        def sync_defect(value, ctx):
            raise RuntimeError(f"bug {ctx.call_id}")

        async def async_defect(value, ctx):
            await asyncio.sleep(0)
            raise KeyError(ctx.call_id)

        async def inner_cancelled(value, ctx):
            await asyncio.sleep(0)
            raise asyncio.CancelledError()

        def big(value, ctx):
            return ToolResult("line\n" * 50)

        return [
            *(
                native(f)
                for f in (
                    sync_ok,
                    async_ok,
                    sync_fail,
                    async_fail,
                    sync_defect,
                    async_defect,
                    inner_cancelled,
                    big,
                )
            ),
            native(self.wait, "wait"),
        ]

    async def wait(self, value, ctx):
        self.waiting += 1
        if self.waiting == self.waiters:
            self.all_waiting.set()
        await self.never.wait()
        return ToolResult("never")


def native(fn, name=None):
    return Tool(name=name or fn.__name__, description="Concurrent.", execute=fn, codemode=False)


EXPECTED = {
    "sync_ok": ("completed", None),
    "async_ok": ("completed", None),
    "sync_fail": ("failed", "tool.execution"),
    "async_fail": ("failed", "tool.execution"),
    "sync_defect": ("failed", "unknown"),
    "async_defect": ("failed", "unknown"),
    "inner_cancelled": ("interrupted", None),
    "big": ("completed", None),
    "missing": ("failed", "tool.execution"),
}
KINDS = [*EXPECTED, "wait"]


def check(kind, index, result):
    if kind == "wait":
        assert isinstance(result, asyncio.CancelledError)
        return
    assert (result.status, result.error and result.error.type) == EXPECTED[kind]
    call_id = f"c{index}"
    if kind.endswith("_ok"):
        assert result.content == (TextPart(f"{kind.split('_')[0]} {call_id}"),)
        assert result.metadata == {"call": call_id}
    elif kind.endswith("_fail"):
        assert result.content == (TextPart(f"failed {call_id}"),)
    elif kind == "inner_cancelled":
        assert result.content == (TextPart(INTERRUPTED_TEXT),)
    elif kind == "big":
        saved = Path(result.metadata["output_path"])
        assert re.fullmatch(r"tool_shared(_\d+)?", saved.name)
        assert saved.read_text(encoding="utf-8") == "line\n" * 50
        assert result.content[0].text.startswith("line\n" * 9 + "line\n\n[output truncated")


def test_two_hundred_concurrent_calls_each_end_as_they_should(tmp_path, caplog):
    threads_before = set(threading.enumerate())
    config = Config(output=OutputConfig(max_lines=10))
    location = Location(tmp_path, data_dir=tmp_path / "data", config=config)
    kinds = [KINDS[i % len(KINDS)] for i in range(200)]
    progress = []

    async def host():
        scenario = Scenario()
        scenario.waiters = kinds.count("wait")
        snapshot = snapshot_for(location, *scenario.tools())
        tasks = [
            asyncio.create_task(
                run_tool_call(
                    snapshot,
                    ToolCall("shared" if kind == "big" else f"c{i}", kind),
                    progress=progress.append,
                )
            )
            for i, kind in enumerate(kinds)
        ]
        await scenario.all_waiting.wait()
        cancelled = [task for kind, task in zip(kinds, tasks, strict=True) if kind == "wait"]
        for task in cancelled:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(task.cancelled() for task in cancelled)
        return results, asyncio.all_tasks() - {asyncio.current_task()}

    with caplog.at_level(logging.ERROR, logger="tooldeck"):
        results, pending = asyncio.run(host())
    assert pending == set()
    for index, (kind, result) in enumerate(zip(kinds, results, strict=True)):
        check(kind, index, result)
    saved = {r.metadata["output_path"] for k, r in zip(kinds, results, strict=True) if k == "big"}
    assert len(saved) == kinds.count("big")  # a reused call id still gets its own file
    defects = [r for r in caplog.records if r.exc_info]
    assert len(defects) == kinds.count("sync_defect") + kinds.count("async_defect")
    assert sorted(p["call"] for p in progress) == sorted(
        f"c{i}" for i, k in enumerate(kinds) if k == "async_ok"
    )
    assert set(threading.enumerate()) == threads_before
