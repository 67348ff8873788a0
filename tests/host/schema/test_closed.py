"""Which validators a pydantic input gets: closed by an override only where it must be."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.dataclasses import dataclass
from typing_extensions import TypedDict

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


@pytest.mark.parametrize(
    ("annotation", "settings"),
    [
        (Plain, {None}),
        (Closed, {"forbid"}),
        (ClosedHoldingPlain, {"forbid", None}),
        (PlainHoldingOpen, {None, "allow"}),
        (dict[str, Shape], {None}),
        (OpenData | None, {"allow"}),
        (list[StdData], set()),  # a stdlib dataclass: pydantic's default, not a setting
        (int, set()),
    ],
)
def test_the_extra_setting_of_every_model_in_an_input(annotation, settings):
    assert extra_settings(annotation) == settings


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
