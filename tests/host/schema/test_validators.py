"""Input and output validators of a tool's schema sources."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck.host.schema.validators import SchemaIssues, _loads, input_validators, output_validator

from ...examples import examples

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def json_texts(draw):
    """Texts json.dumps writes (any spacing, escapes or not), and small edits of them."""
    value = draw(JSON_VALUES)
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2])),
        separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])),
    )
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["", " ", ",", "]", "}", '"', "\\", "x", "\ud800"]))
        text = text[:at] + edit + text[at:]
    return text


def same(a, b):
    """The same JSON value: its JSON text (ints, floats, NaN, bools and key order kept)."""
    return json.dumps(a) == json.dumps(b)


@pytest.mark.slow
@settings(max_examples=2000)
@given(json_texts())
def test_parsing_json_text_agrees_with_json_loads(text):
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(SchemaIssues, match="invalid JSON"):
            _loads(text)
        return
    assert same(_loads(text), expected)


@pytest.mark.parametrize(
    "text", ['"\\ud800"', "[" * 500 + "]" * 500, '{"a": "\\udfff x"}', "NaN", "-Infinity", "1e400"]
)
def test_what_the_fast_parser_refuses_json_loads_still_reads(text):
    assert same(_loads(text), json.loads(text))


def test_invalid_json_says_what_json_loads_says():
    with pytest.raises(SchemaIssues) as raised:
        _loads('{"a": 1,}')
    [(path, message)] = raised.value.issues
    with pytest.raises(ValueError) as parsed:  # the wording differs between Python versions
        json.loads('{"a": 1,}')
    assert (path, message) == ("root", f"invalid JSON: {parsed.value}")


def test_a_json_schema_input_validator_parses_then_checks():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    from_json, from_python = input_validators(schema)
    assert from_json('{"a": 1, "extra": 2}') == {"a": 1} == from_python({"a": 1, "extra": 2})
    with pytest.raises(SchemaIssues):
        from_json('{"a": "x"}')


def _checked(validate, value):
    try:
        return "ok", validate(value)
    except SchemaIssues as exc:
        return "issues", exc.issues


@settings(max_examples=examples(300), deadline=None)
@given(
    kind=st.sampled_from(["integer", "number", "string", "boolean", "null", "object", "array"]),
    value=st.one_of(
        st.integers(),
        st.floats(),
        st.text(max_size=5),
        st.booleans(),
        st.none(),
        st.lists(st.integers(), max_size=2),
        st.tuples(st.integers()),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
        st.builds(set),
    ),
)
def test_a_bare_scalar_output_type_agrees_with_the_full_check(kind, value):
    # {"type": kind} takes the exact-class shortcut; with an annotation beside it, it does not.
    short = _checked(output_validator({"type": kind}), value)
    full = _checked(output_validator({"type": kind, "description": "d"}), value)
    assert short[0] == full[0]
    if short[0] == "ok":
        assert short[1] is full[1] or (short[1] == full[1] and type(short[1]) is type(full[1]))
    else:
        assert short[1] == full[1]
