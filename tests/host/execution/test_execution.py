"""The execution boundary, ``Snapshot.execute`` / ``execute_sync`` (DESIGN §5)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from pydantic import BaseModel, ConfigDict

from tooldeck import (
    Location,
    PermissionDeclined,
    QuestionDismissed,
    TextPart,
    Tool,
    ToolCall,
    ToolFailure,
    ToolResult,
    ToolService,
)
from tooldeck.errors import TooldeckError, ToolDefectError, UsageError
from tooldeck.host.registry.record import record_of


class ReadInput(BaseModel):
    path: str
    offset: int = 0


class Count(BaseModel):
    lines: int


SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "integer"}},
        "inner": {"type": "object", "properties": {"x": {"type": "string"}}},
        "strict": {
            "type": "object",
            "properties": {"y": {"type": "integer"}},
            "additionalProperties": False,
        },
        "loose": {
            "type": "object",
            "properties": {"z": {"type": "integer"}},
            "additionalProperties": True,
        },
    },
    "required": ["a"],
}


class Recorder:
    """An executor that records what it received and returns ``result``."""

    def __init__(self, result=None):
        self.received = []
        self.threads = []
        self.result = result if result is not None else ToolResult("ok")

    def __call__(self, value, ctx):
        self.received.append(value)
        self.threads.append(threading.get_ident())
        return self.result


def snapshot_of(tmp_path, *tools):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(lambda editor: [editor.add(t) for t in tools], source="test")
    return service.snapshot()


def native(name, execute, **options):
    return Tool(
        name=name, description=f"The {name} tool.", execute=execute, codemode=False, **options
    )


def execute(snapshot, name, args="{}", **options):
    return asyncio.run(snapshot.execute(ToolCall("call_1", name, args), **options))


def failure_of(snapshot, name, args="{}"):
    with pytest.raises(ToolFailure) as caught:
        execute(snapshot, name, args)
    return caught.value


# -- resolving --------------------------------------------------------------------------------
def test_an_unknown_tool_is_a_failure_naming_it(tmp_path):
    snapshot = snapshot_of(tmp_path, native("read", Recorder(), input=ReadInput))
    message = failure_of(snapshot, "raed").message
    assert "'raed'" in message and "not available" in message
    assert "read" in message  # the model is pointed at what exists
    with pytest.raises(ToolFailure, match="'raed' is not available"):
        snapshot.execute_sync(ToolCall("1", "raed"))


# -- invalid input ----------------------------------------------------------------------------
@pytest.mark.parametrize("args", ['{"offset": 1}', '{"path": 5}', "[]", "not json", '"x"'])
def test_invalid_pydantic_input_never_reaches_the_executor(tmp_path, args):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("read", recorder, input=ReadInput))
    assert failure_of(snapshot, "read", args).message.startswith(
        "Invalid input for tool 'read':\n- "
    )
    assert recorder.received == []


@pytest.mark.parametrize(
    "args",
    ["{}", '{"a": "1"}', '{"a": 1, "strict": {"q": 1}}', "[1]", "{", '{"a": 1, "tags": [1, 2.5]}'],
)
def test_invalid_schema_input_never_reaches_the_executor(tmp_path, args):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("calc", recorder, input=SCHEMA))
    assert failure_of(snapshot, "calc", args).message.startswith(
        "Invalid input for tool 'calc':\n- "
    )
    assert recorder.received == []


def test_a_tool_without_input_accepts_only_an_object(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("now", recorder))
    execute(snapshot, "now", '{"ignored": 1}')
    assert recorder.received == [{}]
    assert "- root: " in failure_of(snapshot, "now", "[]").message
    assert len(recorder.received) == 1


def test_the_failure_lists_issues_echoes_the_arguments_and_asks_for_a_correction(tmp_path):
    snapshot = snapshot_of(tmp_path, native("calc", Recorder(), input=SCHEMA))
    args = {"a": "one", "tags": [1, "two"]}
    message = failure_of(snapshot, "calc", json.dumps(args)).message
    assert message == "\n".join(
        [
            "Invalid input for tool 'calc':",
            "- a: 'one' is not of type 'integer'",
            "- tags[1]: 'two' is not of type 'integer'",
            "Arguments received:",
            json.dumps(args, indent=2),
            "Correct the arguments and call 'calc' again.",
        ]
    )


def test_a_problem_with_the_whole_input_is_at_root(tmp_path):
    snapshot = snapshot_of(
        tmp_path,
        native("calc", Recorder(), input=SCHEMA),
        native("read", Recorder(), input=ReadInput),
    )
    assert "\n- root: [1] is not of type 'object'\n" in failure_of(snapshot, "calc", "[1]").message
    assert "\n- root: " in failure_of(snapshot, "read", "[]").message
    # One wording for invalid JSON, whichever validator (pydantic-core or jsonschema) parsed it.
    invalid = "\n- root: invalid JSON: Expecting property name enclosed in double quotes"
    assert invalid in failure_of(snapshot, "read", "{").message
    assert invalid in failure_of(snapshot, "calc", "{").message


def test_at_most_five_issues_are_listed_then_how_many_more(tmp_path):
    snapshot = snapshot_of(tmp_path, native("calc", Recorder(), input=SCHEMA))
    args = json.dumps({"a": 1, "tags": ["x"] * 8})
    lines = failure_of(snapshot, "calc", args).message.split("\n")
    issues = [line for line in lines if line.startswith("- ")]
    assert issues == [f"- tags[{i}]: 'x' is not of type 'integer'" for i in range(5)]
    assert lines[len(issues) + 1] == "...and 3 more"


def test_mapping_input_is_validated_and_echoed_too(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("read", recorder, input=ReadInput))
    execute(snapshot, "read", {"path": "a.txt"})
    assert recorder.received == [ReadInput(path="a.txt")]
    message = failure_of(snapshot, "read", {"path": 1}).message
    assert '{\n  "path": 1\n}' in message


def nested(depth):
    value = inner = []
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return value


RECURSIVE = {
    "type": "object",
    "properties": {"tree": {"type": "array", "items": {"$ref": "#/properties/tree"}}},
}


@pytest.mark.parametrize("depth", [1_000, 100_000])
@pytest.mark.parametrize(
    ("schema", "as_text"),
    [(ReadInput, True), (SCHEMA, True), (RECURSIVE, True), (RECURSIVE, False)],
    ids=["model-json", "schema-json", "recursive-json", "recursive-mapping"],
)
def test_deeply_nested_arguments_are_invalid_input_not_a_defect(tmp_path, depth, schema, as_text):
    """Parsing, checking and echoing recurse once per level; past the limit that is the
    model's input to correct, not a RecursionError escaping as a defect."""
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("calc", recorder, input=schema))
    if as_text:  # written out: json.dumps itself would recurse too deeply
        args = '{"a": 1, "path": "x", "tree": ' + "[" * depth + "]" * depth + "}"
    else:
        args = {"a": 1, "path": "x", "tree": nested(depth)}
    message = failure_of(snapshot, "calc", args).message
    assert message.startswith("Invalid input for tool 'calc':\n- ")
    if depth == 100_000:  # too deep for every parser; 1,000 levels parse on Python 3.12+
        assert "too deeply" in message or "recursion limit exceeded" in message
    assert message.endswith("Correct the arguments and call 'calc' again.")
    assert recorder.received == []


# -- valid input ------------------------------------------------------------------------------
def test_pydantic_input_arrives_as_a_model_instance(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("read", recorder, input=ReadInput))
    execute(snapshot, "read", '{"path": "a.txt", "offset": 3}')
    [value] = recorder.received
    assert type(value) is ReadInput and value == ReadInput(path="a.txt", offset=3)


def test_schema_input_arrives_as_a_dict(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("calc", recorder, input=SCHEMA))
    args = {"a": 1, "inner": {"x": "s"}, "loose": {"z": 1, "kept": 4}}
    execute(snapshot, "calc", json.dumps(args))
    assert recorder.received == [args]
    assert type(recorder.received[0]) is dict


class Where(BaseModel):
    city: str


class Trip(BaseModel):
    to: Where
    days: int = 1


class Anything(BaseModel):
    model_config = ConfigDict(extra="allow")
    note: str = ""


class Bag(BaseModel):
    label: str
    contents: Anything


def refused(key, where="root"):
    return f"- {where}: Additional properties are not allowed ('{key}' was unexpected)"


EXTRA_KEYS = [  # (input, its nested object, the call's arguments, the line naming the key)
    (SCHEMA, "inner", {"a": 1, "extra": 2}, refused("extra")),
    (SCHEMA, "inner", {"a": 1, "inner": {"x": "s", "more": 3}}, refused("more", "inner")),
    (Trip, "to", {"to": {"city": "Oslo"}, "dyas": 3}, "- dyas: Extra inputs are not permitted"),
    (Trip, "to", '{"to": {"city": "Oslo"}, "dyas": 3}', "- dyas: Extra inputs are not permitted"),
    (Trip, "to", {"to": {"city": "Oslo", "x": 1}}, "- to.x: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(("source", "nested", "args", "line"), EXTRA_KEYS)
def test_an_extra_key_is_refused_as_the_advertised_closed_schema_says(
    tmp_path, source, nested, args, line
):
    """A schema without ``additionalProperties`` (a raw one, or a pydantic model's) is
    advertised closed; a call with a key it does not declare is refused like the
    advertised schema says, not dropped (as pydantic's own ``extra="ignore"`` would,
    running the call without the argument the model meant to give)."""
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("calc", recorder, input=source))
    advertised = snapshot.definitions[0].input_schema
    assert advertised["additionalProperties"] is False
    assert advertised["properties"][nested]["additionalProperties"] is False
    assert line in failure_of(snapshot, "calc", args).message
    assert recorder.received == []


def test_a_pydantic_input_with_a_model_open_to_extra_keys_keeps_its_own_settings(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("bag", recorder, input=Bag))
    assert (
        snapshot.definitions[0].input_schema["properties"]["contents"]["additionalProperties"]
        is True
    )
    execute(snapshot, "bag", {"label": "a", "contents": {"note": "n", "size": 3}, "stray": 1})
    [bag] = recorder.received
    assert bag.contents.model_extra == {"size": 3}  # open where its schema is open
    assert not hasattr(bag, "stray")  # the rest as pydantic's own settings say


OPEN = {  # "inner" cannot be closed: it requires a name it does not declare
    "type": "object",
    "properties": {
        "a": {"type": "integer"},
        "inner": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]},
    },
}


def test_undeclared_keys_of_an_object_left_open_are_dropped_from_a_copy(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("calc", recorder, input=OPEN))
    assert "additionalProperties" not in snapshot.definitions[0].input_schema["properties"]["inner"]
    args = {"a": 1, "inner": {"x": "s", "y": 2, "more": 3}}
    execute(snapshot, "calc", args)
    assert args == {"a": 1, "inner": {"x": "s", "y": 2, "more": 3}}
    assert recorder.received == [{"a": 1, "inner": {"x": "s", "y": 2}}]


# -- the output contract ----------------------------------------------------------------------
def test_a_declared_output_that_is_missing_is_a_failure(tmp_path):
    snapshot = snapshot_of(tmp_path, native("count", Recorder(ToolResult("3")), output=Count))
    message = failure_of(snapshot, "count").message
    assert "'count'" in message and "returned no output" in message


@pytest.mark.parametrize(
    "output",
    [
        Count,
        {"type": "object", "properties": {"lines": {"type": "integer"}}, "required": ["lines"]},
    ],
)
def test_output_failing_its_schema_is_a_failure_naming_the_first_violation(tmp_path, output):
    bad = ToolResult(output={"lines": "many", "other": 1})
    snapshot = snapshot_of(tmp_path, native("count", Recorder(bad), output=output))
    message = failure_of(snapshot, "count").message
    assert "'count'" in message and "does not match its declared schema" in message
    assert "lines: " in message


NOT_JSON = "which is not JSON (use objects, arrays, strings, numbers, booleans and null)"


@pytest.mark.parametrize(
    ("output", "where"),
    [
        (object(), "root: is an object"),
        ({"tags": {"a", "b"}}, "tags: is a set"),
        ({"items": [1, {"at": b"x"}]}, "items[1].at: is a bytes"),
        ({"ratio": float("nan")}, "ratio: is nan"),
        ({1: "one"}, "root: has the key 1"),
    ],
    ids=["object", "set", "bytes", "nan", "int-key"],
)
def test_a_schema_output_that_is_not_json_is_a_failure_naming_the_tool(tmp_path, output, where):
    """Not a serialization defect escaping ``execute``, and not silently converted."""
    schema = {"type": ["object", "array", "string", "number", "boolean", "null"]}
    tool = native("shape", Recorder(ToolResult("x", output=output)), output=schema)
    message = failure_of(snapshot_of(tmp_path, tool), "shape").message
    assert message == (
        f"Tool 'shape' returned output that does not match its declared schema: {where}, "
        + NOT_JSON
    )


def test_a_tuple_in_a_schema_output_is_a_json_array(tmp_path):
    schema = {"type": "object", "properties": {"pair": {"type": "array"}}}
    tool = native("pair", Recorder(ToolResult("x", output={"pair": (1, 2)})), output=schema)
    assert execute(snapshot_of(tmp_path, tool), "pair").output == {"pair": [1, 2]}


def test_valid_output_is_returned_and_rendered_when_there_is_no_content(tmp_path):
    snapshot = snapshot_of(
        tmp_path, native("count", Recorder(ToolResult(output={"lines": 3})), output=Count)
    )
    result = execute(snapshot, "count")
    assert result.output == {"lines": 3}
    assert result.content == (TextPart('{\n  "lines": 3\n}'),)


def test_output_without_a_declared_schema_is_a_defect(tmp_path):
    snapshot = snapshot_of(tmp_path, native("count", Recorder(ToolResult("3", output=3))))
    with pytest.raises(ToolDefectError, match="declares no output schema"):
        execute(snapshot, "count")


def test_returning_something_else_than_a_tool_result_is_a_defect(tmp_path):
    snapshot = snapshot_of(tmp_path, native("count", lambda value, ctx: "3"))
    with pytest.raises(ToolDefectError, match=r"expected tooldeck\.ToolResult"):
        execute(snapshot, "count")


# -- content ----------------------------------------------------------------------------------
def test_str_content_becomes_one_text_part_with_metadata_kept(tmp_path):
    metadata = {"k": [1]}
    snapshot = snapshot_of(tmp_path, native("say", Recorder(ToolResult("hello", metadata))))
    result = execute(snapshot, "say")
    assert result.content == (TextPart("hello"),)
    assert result.metadata is metadata
    assert result.output is None


@pytest.mark.parametrize("content", [None, "", []])
def test_missing_content_without_output_is_one_empty_text_part(tmp_path, content):
    snapshot = snapshot_of(tmp_path, native("say", Recorder(ToolResult(content))))
    assert execute(snapshot, "say").content == (TextPart(""),)


# -- what propagates --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_tool_failure_propagates_as_is(tmp_path, kind):
    raised = ToolFailure("no such file", metadata={"path": "x"})
    snapshot = snapshot_of(tmp_path, native("read", raiser(raised, kind)))
    assert failure_of(snapshot, "read") is raised


def raiser(exc, kind):
    def sync(value, ctx):
        raise exc

    async def asynchronous(value, ctx):
        raise exc

    return sync if kind == "sync" else asynchronous


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("exc", [RuntimeError("boom"), ValueError("bad"), TooldeckError("x")])
def test_any_other_exception_propagates_unchanged(tmp_path, kind, exc):
    snapshot = snapshot_of(tmp_path, native("read", raiser(exc, kind)))
    with pytest.raises(type(exc)) as caught:
        execute(snapshot, "read")
    assert caught.value is exc


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_cancelled_error_propagates_unchanged(tmp_path, kind):
    exc = asyncio.CancelledError("stop")
    snapshot = snapshot_of(tmp_path, native("read", raiser(exc, kind)))

    async def scenario():
        try:
            await snapshot.execute(ToolCall("1", "read"))
        except asyncio.CancelledError as caught:
            return caught

    assert asyncio.run(scenario()) is exc


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_keyboard_interrupt_propagates_unchanged(tmp_path, kind):
    exc = KeyboardInterrupt()
    snapshot = snapshot_of(tmp_path, native("read", raiser(exc, kind)))
    with pytest.raises(KeyboardInterrupt) as caught:
        snapshot.execute_sync(ToolCall("1", "read"))
    assert caught.value is exc


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_permission_declined_propagates_unchanged(tmp_path, kind):
    exc = PermissionDeclined("edit", ["a.txt"])
    snapshot = snapshot_of(tmp_path, native("edit", raiser(exc, kind)))
    with pytest.raises(PermissionDeclined) as caught:
        execute(snapshot, "edit")
    assert caught.value is exc


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_question_dismissed_propagates_unchanged(tmp_path, kind):
    exc = QuestionDismissed()
    snapshot = snapshot_of(tmp_path, native("ask", raiser(exc, kind)))
    with pytest.raises(QuestionDismissed) as caught:
        execute(snapshot, "ask")
    assert caught.value is exc


# -- progress and context ---------------------------------------------------------------------
def test_progress_metadata_reaches_the_host_callback_unchanged(tmp_path):
    sent = {"done": 1, "of": 3}

    async def work(value, ctx):
        ctx.progress(sent)
        return ToolResult("ok")

    received = []
    snapshot = snapshot_of(tmp_path, native("work", work))
    execute(snapshot, "work", progress=received.append)
    assert len(received) == 1 and received[0] is sent
    execute(snapshot, "work")  # no callback: progress is a no-op


def test_the_context_carries_the_call(tmp_path):
    seen = []

    def spy(value, ctx):
        seen.append(ctx)
        return ToolResult("x")

    snapshot = snapshot_of(tmp_path, native("spy", spy))
    snapshot.execute_sync(ToolCall("c9", "spy"), session_id="s", message_id="m", agent="plan")
    [ctx] = seen
    assert (ctx.call_id, ctx.session_id, ctx.message_id, ctx.agent) == ("c9", "s", "m", "plan")
    assert ctx.location is snapshot.location
    assert ctx.source == {"type": "tool", "message_id": "m", "id": "c9"}


# -- execute_sync and threads -----------------------------------------------------------------
async def async_echo(value, ctx):
    await asyncio.sleep(0)
    return ToolResult(f"async {value.path} in {threading.get_ident()}")


def test_execute_sync_runs_sync_and_async_executors(tmp_path):
    recorder = Recorder(ToolResult("sync"))
    snapshot = snapshot_of(
        tmp_path, native("s", recorder, input=ReadInput), native("a", async_echo, input=ReadInput)
    )
    assert snapshot.execute_sync(ToolCall("1", "s", '{"path": "p"}')).content == (TextPart("sync"),)
    result = snapshot.execute_sync(ToolCall("1", "a", '{"path": "p"}'))
    assert result.content == (TextPart(f"async p in {threading.get_ident()}"),)


def test_execute_sync_from_a_plain_thread_while_another_thread_runs_a_loop(tmp_path):
    snapshot = snapshot_of(tmp_path, native("a", async_echo, input=ReadInput))

    async def host():
        loop_thread = threading.get_ident()
        result = await asyncio.to_thread(snapshot.execute_sync, ToolCall("1", "a", '{"path": "p"}'))
        return loop_thread, result.content[0].text

    loop_thread, text = asyncio.run(host())
    worker = int(text.rsplit(" ", 1)[1])
    assert text.startswith("async p in ") and worker != loop_thread


def test_execute_sync_inside_a_running_loop_is_a_clear_error(tmp_path):
    started = []

    async def never_started(value, ctx):
        started.append(True)
        return ToolResult("x")

    snapshot = snapshot_of(tmp_path, native("a", never_started))

    async def host():
        snapshot.execute_sync(ToolCall("1", "a"))

    with pytest.raises(UsageError, match=r"running event loop.*await snapshot\.execute"):
        asyncio.run(host())
    assert started == []


def test_a_sync_executor_runs_in_the_calling_thread(tmp_path, join_threads):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("s", recorder))
    snapshot.execute_sync(ToolCall("1", "s"))

    async def host():
        await snapshot.execute(ToolCall("2", "s"))
        return threading.get_ident()

    loop_thread = asyncio.run(host())
    assert recorder.threads == [threading.get_ident(), loop_thread]

    callers = []

    def from_a_thread():
        callers.append(threading.get_ident())
        snapshot.execute_sync(ToolCall("3", "s"))

    thread = threading.Thread(target=from_a_thread)
    thread.start()
    join_threads(thread)
    assert recorder.threads[-1] == callers[0]


# -- validators are compiled once -------------------------------------------------------------
@pytest.mark.parametrize(
    "schema", [ReadInput, {"type": "object", "properties": {"path": {"type": "string"}}}]
)
def test_the_input_validator_is_built_once_and_shared_across_calls_and_snapshots(tmp_path, schema):
    tool = native("read", Recorder(), input=schema)
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(lambda editor: editor.add(tool), source="a")
    first = service.snapshot()
    first.execute_sync(ToolCall("1", "read", '{"path": "a"}'))
    record = record_of(tool)
    from_json, from_python = record.input_json, record.input_python
    first.execute_sync(ToolCall("2", "read", '{"path": "b"}'))
    service.transform(lambda editor: editor.add(native("other", Recorder())), source="b")
    second = service.snapshot()
    assert second is not first
    second.execute_sync(ToolCall("3", "read", '{"path": "c"}'))
    with pytest.raises(ToolFailure):
        second.execute_sync(ToolCall("4", "read", '{"path": 1}'))
    assert record.input_json is from_json and record.input_python is from_python


def test_the_output_validator_is_built_once(tmp_path):
    tool = native("count", Recorder(ToolResult(output={"lines": 1})), output=Count)
    snapshot = snapshot_of(tmp_path, tool)
    snapshot.execute_sync(ToolCall("1", "count"))
    validator = record_of(tool).output_validator
    snapshot_of(tmp_path, tool).execute_sync(ToolCall("2", "count"))
    assert record_of(tool).output_validator is validator


def test_execute_sync_refuses_a_running_loop_before_calling_any_executor(tmp_path):
    recorder = Recorder()
    snapshot = snapshot_of(tmp_path, native("sync_tool", recorder))

    async def inside_a_loop():
        snapshot.execute_sync(ToolCall("1", "sync_tool"))

    with pytest.raises(UsageError, match="running event loop"):
        asyncio.run(inside_a_loop())
    assert recorder.received == []


def test_none_is_valid_output_when_the_schema_allows_null(tmp_path):
    from pydantic import TypeAdapter

    nullable = native(
        "maybe", Recorder(ToolResult("nothing", output=None)), output=TypeAdapter(int | None)
    )
    strict = native("count", Recorder(ToolResult("nothing", output=None)), output=Count)
    snapshot = snapshot_of(tmp_path, nullable, strict)
    assert execute(snapshot, "maybe").output is None
    assert "returned no output" in failure_of(snapshot, "count").message


class JsonText(str):
    """A ``str`` subclass, as some frameworks hand arguments over."""


@pytest.mark.parametrize("kind", ["model", "schema", "function"])
def test_a_str_subclass_is_json_text_like_a_str(tmp_path, kind):
    from tooldeck import tool

    def add(a: int, b: int = 0) -> int:
        """Add."""
        return a + b

    tools = {
        "model": Tool(
            name="add",
            description="Add.",
            input=ReadInput,
            execute=lambda i, c: ToolResult(i.path),
        ),
        "schema": Tool(
            name="add", description="Add.", input=SCHEMA, execute=lambda i, c: ToolResult("ok")
        ),
        "function": tool(add),
    }
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(lambda editor: editor.add(tools[kind]), source="test")
    text = {"model": '{"path": "p"}', "schema": '{"a": 1}', "function": '{"a": 1, "b": 2}'}[kind]
    snapshot = service.snapshot()
    plain = snapshot.execute_sync(ToolCall("c1", "add", text))
    assert snapshot.execute_sync(ToolCall("c1", "add", JsonText(text))) == plain


# -- async def executors ----------------------------------------------------------------------
def test_an_async_def_executors_call_runs_only_when_the_boundary_awaits_it(tmp_path):
    received = []

    async def later(value, ctx):
        received.append((value, ctx.call_id))
        return ToolResult("ok")

    snap = snapshot_of(tmp_path, native("later", later, input=SCHEMA))
    started = snap.run(ToolCall("call_1", "later", '{"a": 1}'), snap.default_scope)
    assert asyncio.iscoroutine(started) and received == []
    done = asyncio.run(started)
    assert received == [({"a": 1}, "call_1")]
    assert [part.text for part in done.content] == ["ok"]


def test_invalid_input_of_an_async_def_executor_never_reaches_it(tmp_path):
    received = []

    async def later(value, ctx):
        received.append(value)
        return ToolResult("ok")

    snap = snapshot_of(tmp_path, native("later", later, input=SCHEMA))
    failure = failure_of(snap, "later", '{"a": "one"}')
    assert failure.message.startswith("Invalid input for tool 'later':\n- a: ")
    assert received == []


def test_an_async_def_executor_returning_no_tool_result_is_a_defect(tmp_path):
    async def wrong(value, ctx):
        return "ok"

    snap = snapshot_of(tmp_path, native("wrong", wrong))
    with pytest.raises(ToolDefectError, match=r"expected tooldeck\.ToolResult"):
        execute(snap, "wrong")
