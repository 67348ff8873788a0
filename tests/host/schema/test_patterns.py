"""Foreign ``pattern``s are matched in bounded time: RE2 where it can, else a bounded engine."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tooldeck import Tool, ToolCall, ToolResult, ToolService
from tooldeck.host.schema.jsonschema_fast import SchemaValidationError, SchemaValidator
from tooldeck.host.schema.patterns import (
    PatternError,
    PatternTimeout,
    compile_pattern,
    has_slow_patterns,
    pattern_budget,
)

EVIL = "^(a+)+$"  # backtracks exponentially in Python's re
EVIL_LOOKAHEAD = "^(?=a)(a|aa)+$"  # RE2 cannot run it: the bounded engine must
VICTIM = "a" * 40 + "!"


def validate_in_thread(validator, instance, join_threads):
    """Validate where a hang fails the test (after 60 s) instead of stalling the run."""
    outcome: list[object] = []

    def run():
        try:
            outcome.append(validator.validate(instance))
        except SchemaValidationError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    join_threads(thread)
    return outcome[0]


def test_a_backtracking_pattern_runs_in_linear_time(join_threads):
    found = validate_in_thread(SchemaValidator({"pattern": EVIL}), VICTIM, join_threads)
    assert isinstance(found, SchemaValidationError)
    assert "does not match" in found.issues[0].message
    assert compile_pattern(EVIL).linear


def test_pattern_properties_and_additional_properties_are_bounded(join_threads):
    schema = {"patternProperties": {EVIL: {"type": "integer"}}, "additionalProperties": False}
    found = validate_in_thread(SchemaValidator(schema), {VICTIM: 1}, join_threads)
    assert isinstance(found, SchemaValidationError)
    assert "do" in found.issues[0].message and "not match any of the regexes" in str(found)


def test_a_pattern_re2_lacks_is_bounded_and_fails_with_a_clear_issue(join_threads):
    validator = SchemaValidator({"properties": {"name": {"pattern": EVIL_LOOKAHEAD}}})
    found = validate_in_thread(validator, {"name": VICTIM}, join_threads)
    assert isinstance(found, SchemaValidationError)
    (issue,) = found.issues
    assert issue.path == ("name",)
    assert "could not be checked against the pattern" in issue.message
    assert "within 1 s" in issue.message


def test_the_bounded_engine_still_matches_lookaround():
    pattern = compile_pattern("^(?!tmp)[a-z]+$")
    assert not pattern.linear
    assert pattern.search("home") and not pattern.search("tmpdir")


def test_one_budget_per_validation():
    slow = compile_pattern(EVIL_LOOKAHEAD)
    with pattern_budget(), pytest.raises(PatternTimeout):
        slow.search(VICTIM)
    with pattern_budget():  # a new validation starts with a new budget
        assert slow.search("aaa")


def test_lone_surrogates_are_matched_not_crashed():
    assert compile_pattern("^a.b$").search("a\ud800b")


def test_a_pattern_neither_engine_compiles():
    with pytest.raises(PatternError, match="does not compile"):
        compile_pattern("(unclosed")


def test_slow_patterns_are_found_anywhere_in_a_schema():
    assert not has_slow_patterns({"properties": {"a": {"pattern": EVIL}}})
    assert has_slow_patterns({"items": [{"anyOf": [{"pattern": EVIL_LOOKAHEAD}]}]})
    assert has_slow_patterns({"patternProperties": {"(?<=x)y": {}}})


def _tool(schema):
    async def run(input, ctx):
        return ToolResult(f"hello {input['name']}")

    return Tool(name="greet", description="Greet.", input=schema, execute=run, codemode=False)


async def test_slow_pattern_validation_runs_off_the_event_loop(tmp_path):
    service = ToolService()
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": EVIL_LOOKAHEAD}},
        "required": ["name"],
    }
    service.transform(lambda editor: editor.add(_tool(schema)), source="t")
    snapshot = service.snapshot()
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    try:
        with pytest.raises(Exception, match="could not be checked against the pattern"):
            await snapshot.execute(ToolCall("c1", "greet", {"name": VICTIM}))
        assert ticks > 0  # the loop kept running while the pattern was matched
    finally:
        ticker.cancel()
    done = await snapshot.execute(ToolCall("c2", "greet", {"name": "aaa"}))
    assert done.content[0].text == "hello aaa"


def test_unevaluated_properties_match_pattern_properties_in_bounded_time(join_threads):
    schema = {
        "allOf": [{"patternProperties": {EVIL: {"type": "integer"}}}],
        "unevaluatedProperties": False,
    }
    found = validate_in_thread(SchemaValidator(schema), {VICTIM: 1, "aa": 2}, join_threads)
    assert isinstance(found, SchemaValidationError)
    (issue,) = found.issues
    assert issue.message == f"Unevaluated properties are not allowed ({VICTIM!r} was unexpected)"


def test_a_key_unevaluated_properties_cannot_match_in_time_is_its_own_issue(join_threads):
    schema = {"patternProperties": {EVIL_LOOKAHEAD: {}}, "unevaluatedProperties": False}
    found = validate_in_thread(SchemaValidator(schema), {VICTIM: 1}, join_threads)
    assert isinstance(found, SchemaValidationError)
    assert found.issues  # patternProperties reports it too; never as unevaluated
    for issue in found.issues:
        assert issue.message.startswith(f"the key {VICTIM!r} could not be checked against the")


def test_property_names_patterns_are_bounded(join_threads):
    schema = {"propertyNames": {"pattern": EVIL}}
    found = validate_in_thread(SchemaValidator(schema), {VICTIM: 1}, join_threads)
    assert isinstance(found, SchemaValidationError)
    assert "does not match" in found.issues[0].message


_DEFS = {"named": {"properties": {"name": {"type": "string"}}}}
EVALUATING = [
    {"$defs": _DEFS, "$ref": "#/$defs/named", "unevaluatedProperties": False},
    {"allOf": [{"properties": {"a": True}}], "unevaluatedProperties": {"type": "integer"}},
    {
        "anyOf": [{"required": ["a"]}, {"patternProperties": {"^x": True}}],
        "unevaluatedProperties": False,
    },
    {
        "if": {"required": ["a"]},
        "then": {"properties": {"b": True}},
        "else": {"patternProperties": {"^c": True}},
        "unevaluatedProperties": False,
    },
    {"dependentSchemas": {"a": {"properties": {"b": True}}}, "unevaluatedProperties": False},
    {
        "oneOf": [{"additionalProperties": True}],
        "properties": {"z": False},
        "unevaluatedProperties": False,
    },
]
INSTANCES = [
    {},
    {"a": 1},
    {"a": 1, "b": 2},
    {"name": "n", "x1": 3},
    {"c": "s", "zz": 1},
    {"b": "t"},
]


@pytest.mark.parametrize("schema", EVALUATING)
@pytest.mark.parametrize("draft", ["2020-12", "2019-09"])
def test_bounded_unevaluated_properties_agree_with_jsonschema(schema, draft):
    from jsonschema import validators

    from tooldeck.host.schema.jsonschema_fast._bounded import bounded

    cls = {"2020-12": validators.Draft202012Validator, "2019-09": validators.Draft201909Validator}
    reference, mine = cls[draft](schema), bounded(cls[draft])(schema)
    for instance in INSTANCES:
        expected = sorted(e.message for e in reference.iter_errors(instance))
        assert sorted(e.message for e in mine.iter_errors(instance)) == expected, instance


def test_additional_properties_evaluates_the_properties_it_passes():
    """``additionalProperties`` marks as evaluated each property it validated, so only the
    one that failed it is also unevaluated. Pinned here rather than compared: jsonschema's
    own answer has changed between releases (before 4.24, a failing
    ``additionalProperties`` left every property unevaluated)."""
    from jsonschema import validators

    from tooldeck.host.schema.jsonschema_fast._bounded import bounded

    schema = {"additionalProperties": {"type": "string"}, "unevaluatedProperties": False}
    mine = bounded(validators.Draft202012Validator)(schema)
    assert sorted(e.message for e in mine.iter_errors({"name": "n", "x1": 3})) == [
        "3 is not of type 'string'",
        "Unevaluated properties are not allowed ('x1' was unexpected)",
    ]
    assert list(mine.iter_errors({"name": "n"})) == []
