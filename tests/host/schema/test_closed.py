"""Which validators a pydantic input gets: closed by an override only where it must be."""

from __future__ import annotations

import dataclasses
import json
from typing import Generic, NamedTuple, TypeVar

import pytest
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass
from typing_extensions import TypeAliasType, TypedDict

from tooldeck.host.schema.closed import closed_validators, extra_settings


class Plain(BaseModel):
    a: int


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


class ClosedHoldingPlain(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inner: Plain


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class PlainHoldingOpen(BaseModel):
    items: list[Open]


class Shape(TypedDict):
    side: int


@dataclass(config=ConfigDict(extra="allow"))
class OpenData:
    a: int


@dataclasses.dataclass
class StdData:
    a: int


class Holder(NamedTuple):
    inner: Open


Items = TypeAliasType("Items", list[Open])
T = TypeVar("T")


class Generic_(TypedDict, Generic[T]):
    value: T


@pytest.mark.parametrize(
    ("annotation", "settings"),
    [
        (Plain, {"ignore"}),
        (Closed, {"forbid"}),
        (ClosedHoldingPlain, {"forbid", "ignore"}),
        (PlainHoldingOpen, {"ignore", "allow"}),
        (dict[str, Shape], {"ignore"}),
        (OpenData | None, {"allow"}),
        (list[StdData], {"ignore"}),  # a stdlib dataclass: pydantic's default
        (Holder, {"allow"}),  # a NamedTuple's fields
        (Items, {"allow"}),  # a type alias's value
        (Generic_[Open], {"ignore", "allow"}),
        (int, set()),
    ],
)
def test_the_extra_setting_of_every_object_in_an_input(annotation, settings):
    assert set(extra_settings(TypeAdapter(annotation).core_schema)) == settings


def test_a_model_closed_all_through_keeps_its_own_validators():
    core = Closed.__pydantic_validator__
    assert closed_validators(Closed) == (core.validate_json, core.validate_python)


def test_a_model_open_anywhere_keeps_its_own_validators():
    core = PlainHoldingOpen.__pydantic_validator__
    json_validator, _ = closed_validators(PlainHoldingOpen)
    assert json_validator == core.validate_json
    assert json_validator('{"items": [{"a": 1, "b": 2}], "stray": 0}').items[0].b == 2


@pytest.mark.parametrize("model", [Plain, ClosedHoldingPlain])
def test_a_model_that_would_drop_a_key_refuses_it_instead(model):
    json_validator, python_validator = closed_validators(model)
    data = {"a": 1, "stray": 0} if model is Plain else {"inner": {"a": 1, "stray": 0}}
    for validate, given in ((python_validator, data), (json_validator, json.dumps(data))):
        with pytest.raises(ValidationError, match="stray\n  Extra inputs are not permitted"):
            validate(given)
    assert type(python_validator({"a": 1} if model is Plain else {"inner": {"a": 1}})) is model


@dataclasses.dataclass
class Box:
    contents: Open


@dataclasses.dataclass
class PlainBox:
    contents: Plain


class Sent(BaseModel):
    box: Box


class PlainSent(BaseModel):
    box: PlainBox


def test_a_model_behind_a_dataclass_counts_where_it_is_open_and_where_it_is_not():
    _, open_python = closed_validators(Sent)
    sent = open_python({"box": {"contents": {"a": 1, "size": 3}}})
    assert sent.box.contents.model_extra == {"size": 3}
    _, plain_python = closed_validators(PlainSent)
    with pytest.raises(ValidationError, match=r"box\.contents\.size\n  Extra inputs"):
        plain_python({"box": {"contents": {"a": 1, "size": 3}}})


@pytest.mark.parametrize("source", [TypeAdapter(Shape), TypeAdapter(Plain), Shape])
def test_a_type_adapter_or_a_typed_dict_refuses_a_key_too(source):
    _, python_validator = closed_validators(source)
    with pytest.raises(ValidationError, match="stray\n  Extra inputs are not permitted"):
        python_validator({"side": 1, "a": 1, "stray": 0})


class Deferred(BaseModel):
    model_config = ConfigDict(defer_build=True)
    a: int


def test_a_deferred_model_is_built_and_closed():
    _, python_validator = closed_validators(Deferred)
    with pytest.raises(ValidationError, match="stray\n  Extra inputs are not permitted"):
        python_validator({"a": 1, "stray": 0})
