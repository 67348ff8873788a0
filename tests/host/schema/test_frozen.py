from __future__ import annotations

import copy
import json
import pickle
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def plain_freeze(value):
    """The rule ``freeze`` implements, written plainly (its fast path is pinned to it)."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: plain_freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([plain_freeze(v) for v in value])
    return value


def shape(value):
    """``value`` with every container's class beside it, and what is shared by identity."""
    if isinstance(value, Mapping):
        return (type(value), {k: shape(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return (type(value), [shape(v) for v in value])
    return (type(value), value)


class Point(NamedTuple):
    x: int
    y: Any


class Str(str):
    pass


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.builds(Str, st.text(max_size=3)),
    st.builds(object),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.builds(Point, inner, inner),
        st.dictionaries(st.text(max_size=4), inner, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=4).map(MappingProxyType),
        st.dictionaries(st.text(max_size=4), inner, max_size=4).map(OrderedDict),
        st.dictionaries(st.text(max_size=4), inner, max_size=4).map(plain_freeze),
    ),
    max_leaves=20,
)


@given(values)
def test_freeze_agrees_with_the_plain_rule(value):
    frozen, plain = freeze(value), plain_freeze(value)
    assert shape(frozen) == shape(plain)
    if isinstance(value, FrozenDict | FrozenList):
        assert frozen is value
