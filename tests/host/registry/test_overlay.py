"""``Overlay`` behaves like a copy of its base dict that was then edited."""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import given

from tooldeck.host.registry.overlay import Overlay

NAMES = st.sampled_from("abcdef")
ops = st.lists(
    st.one_of(
        st.tuples(st.just("set"), NAMES, st.integers(0, 3)),
        st.tuples(st.just("pop"), NAMES),
        st.tuples(st.just("del"), NAMES),
        st.tuples(st.just("update"), st.dictionaries(NAMES, st.integers(0, 3), max_size=3)),
        st.tuples(st.just("copy")),
    ),
    max_size=20,
)


def apply(target, op):
    kind = op[0]
    if kind == "set":
        target[op[1]] = op[2]
    elif kind == "pop":
        return target.pop(op[1], "missing")
    elif kind == "del":
        if op[1] in target:
            del target[op[1]]
    elif kind == "update":
        target.update(op[1])
    return None


@given(base=st.dictionaries(NAMES, st.integers(0, 3)), ops=ops)
def test_an_overlay_reads_like_the_edited_dict(base, ops):
    frozen = dict(base)
    plain, overlay = dict(base), Overlay(frozen)
    for op in ops:
        if op[0] == "copy":
            plain, overlay = plain.copy(), overlay.copy()
            continue
        assert apply(overlay, op) == apply(plain, op)
        assert len(overlay) == len(plain)
        assert sorted(overlay) == sorted(plain)
        assert dict(overlay.items()) == plain
        assert all((name in overlay) == (name in plain) for name in "abcdefg")
        assert all(overlay.get(name) == plain.get(name) for name in "abcdefg")
    assert overlay == plain and overlay == overlay.copy()
    assert frozen == base  # the base is never written


@given(base=st.dictionaries(NAMES, st.integers(0, 3)), ops=ops)
def test_changes_hold_only_what_differs_from_the_base(base, ops):
    overlay = Overlay(dict(base))
    for op in ops:
        if op[0] != "copy":
            apply(overlay, op)
    for name, value in overlay.changes.items():
        if value is None:
            assert name in base and name not in overlay  # a removal of a base entry
        else:
            assert overlay[name] == value
    untouched = [name for name in base if name not in overlay.changes]
    assert all(overlay[name] == base[name] for name in untouched)


def test_a_missing_name_raises_key_error():
    overlay = Overlay({"a": 1})
    del overlay["a"]
    with pytest.raises(KeyError):
        overlay["a"]
    with pytest.raises(KeyError):
        del overlay["a"]
