"""Content normalization: text, output rendered as JSON, sequences of parts, defects."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from collections import UserList

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from tooldeck._tool import FilePart, TextPart
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.content import normalize_content, render_output

# --- text -------------------------------------------------------------------------


def test_str_becomes_one_text_part():
    result = normalize_content("t", "hello", None)
    assert result == (TextPart("hello"),)
    assert type(result) is tuple


def test_str_subclass_becomes_plain_text():
    class Label(str):
        pass

    (part,) = normalize_content("t", Label("label"), None)
    assert part == TextPart("label")
    assert type(part.text) is str


# --- missing content renders the output ---------------------------------------------------


class Point(BaseModel):
    x: int
    label: str
    at: datetime.date


@dataclasses.dataclass
class Pair:
    left: int
    right: str


class Level(enum.IntEnum):
    HIGH = 3


@pytest.mark.parametrize("content", [None, "", [], ()])
def test_missing_content_without_output_is_one_empty_text_part(content):
    """Every call answers the model: no content and no output is still one (empty) part."""
    assert normalize_content("t", content, None) == (TextPart(""),)


@pytest.mark.parametrize("content", [None, "", [], ()])
def test_missing_or_empty_content_renders_the_output(content):
    """An empty text says nothing and the declared output does: the output wins."""
    output = {"name": "café", "items": [1, 2]}
    expected = json.dumps(output, ensure_ascii=False, indent=2)
    assert normalize_content("t", content, output) == (TextPart(expected),)


@pytest.mark.parametrize(
    "output",
    [
        {"name": "café", "nested": {"ok": True, "none": None}, "items": [1, 2.5, "x"]},
        [1, "two", [3]],
        [],
        {},
        0,
        -17,
        10**40,
        'text with "quotes", a newline\n, a tab\t and ünïcode',
        "",
        True,
        False,
        1.5,
        0.1,
        1e300,
        float("nan"),
        float("inf"),
        float("-inf"),
        Level.HIGH,
    ],
    ids=repr,
)
def test_output_renders_like_json_dumps(output):
    (part,) = normalize_content("t", None, output)
    assert part.text == json.dumps(output, ensure_ascii=False, indent=2)


@given(st.one_of(st.integers(), st.floats(), st.booleans(), st.text()))
def test_scalar_fast_paths_equal_json_dumps(output):
    (part,) = normalize_content("t", None, output)
    assert part.text == json.dumps(output, ensure_ascii=False, indent=2)


def test_pydantic_model_output_renders_as_its_json():
    point = Point(x=1, label="ü", at=datetime.date(2024, 5, 1))
    (part,) = normalize_content("t", None, point)
    expected = {"x": 1, "label": "ü", "at": "2024-05-01"}
    assert part.text == json.dumps(expected, ensure_ascii=False, indent=2)


def test_models_and_dataclasses_nested_in_containers_render():
    output = {"pair": Pair(1, "r"), "points": [Point(x=2, label="p", at=datetime.date(2024, 1, 2))]}
    (part,) = normalize_content("t", [], output)
    assert json.loads(part.text) == {
        "pair": {"left": 1, "right": "r"},
        "points": [{"x": 2, "label": "p", "at": "2024-01-02"}],
    }


def test_unserializable_output_is_an_error():
    with pytest.raises(PydanticSerializationError):
        normalize_content("t", None, object())


def test_content_wins_over_output():
    assert normalize_content("t", "read this", {"ignored": True}) == (TextPart("read this"),)


# --- sequences of parts -------------------------------------------------------------------


def test_text_and_file_parts_are_kept_as_is_in_order():
    text, pdf = TextPart("a"), FilePart(b"%PDF-1.7", "application/pdf", "doc.pdf")
    result = normalize_content("t", [text, pdf, TextPart("b")], None)
    assert result == (text, pdf, TextPart("b"))
    assert result[0] is text
    assert result[1] is pdf


def test_bare_strings_in_a_sequence_become_text_parts():
    assert normalize_content("t", ("a", TextPart("b")), None) == (TextPart("a"), TextPart("b"))


def test_any_sequence_is_accepted():
    assert normalize_content("t", UserList([TextPart("a")]), None) == (TextPart("a"),)


@pytest.mark.parametrize(
    ("item", "name"),
    [(3, "int"), ({"type": "text"}, "dict"), (b"raw", "bytes"), (None, "NoneType")],
)
def test_an_item_that_is_not_a_part_is_a_defect(item, name):
    with pytest.raises(ToolDefectError, match=f"^tool 't': content items must be .* got {name}$"):
        normalize_content("t", [TextPart("ok"), item], None)


@pytest.mark.parametrize(
    ("content", "name"),
    [(42, "int"), (b"raw", "bytes"), ({"a": 1}, "dict")],
)
def test_content_that_is_not_str_none_or_a_sequence_is_a_defect(content, name):
    with pytest.raises(ToolDefectError, match=f"^tool 't': content must be .* got {name}$"):
        normalize_content("t", content, None)


def test_a_text_part_whose_text_is_not_a_str_is_a_defect():
    with pytest.raises(ToolDefectError, match=r"TextPart\.text must be a str, got int$"):
        normalize_content("t", [TextPart(12345)], None)  # type: ignore[arg-type]


def test_a_lone_part_is_one_part():
    assert normalize_content("t", TextPart("lone"), None) == (TextPart("lone"),)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(JSON_VALUES)
def test_a_missing_content_renders_the_output_as_normalize_content_does(value):
    """Pins the shortcut in ``call._finished`` (``bench/DECISIONS.md``): a ``tool(fn)``
    result without content goes straight to ``render_output``."""
    assert render_output(value) == normalize_content("t", None, value)
