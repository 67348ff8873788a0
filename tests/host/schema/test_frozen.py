from __future__ import annotations

import copy
import json
import pickle

import pytest

from tooldeck.host.schema.frozen import FrozenDict, FrozenList, freeze, thaw


def test_freeze_is_deep_and_equal_to_the_plain_value():
    value = {"a": [1, {"b": 2}], "c": "x"}
    frozen = freeze(value)
    assert frozen == value
    assert isinstance(frozen, FrozenDict)
    assert isinstance(frozen["a"], FrozenList)
    assert isinstance(frozen["a"][1], FrozenDict)
    assert json.loads(json.dumps(frozen)) == value


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.__setitem__("x", 1),
        lambda d: d.pop("c"),
        lambda d: d.update(x=1),
        lambda d: d.setdefault("x", 1),
        lambda d: d["a"].append(3),
        lambda d: d["a"].__setitem__(0, 9),
        lambda d: d.clear(),
    ],
)
def test_frozen_values_refuse_mutation(mutate):
    frozen = freeze({"a": [1, 2], "c": "x"})
    with pytest.raises(TypeError, match="read-only"):
        mutate(frozen)
    assert frozen == {"a": [1, 2], "c": "x"}


def test_copies_are_plain_and_mutable():
    frozen = freeze({"a": [1]})
    deep = copy.deepcopy(frozen)
    deep["a"].append(2)
    assert type(deep) is dict and type(deep["a"]) is list
    assert thaw(frozen) == {"a": [1]} and type(thaw(frozen)) is dict
    assert pickle.loads(pickle.dumps(frozen)) == frozen
