"""A rebuilt snapshot that takes what did not change from the previous one equals the one
built the plain way (``host/execution/reuse.py``), over generated catalogs and edits."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from tooldeck import Location, Snapshot, Tool, ToolResult
from tooldeck.host.execution.reuse import index_after
from tooldeck.host.registry.state import ToolState
from tooldeck.providers.formats import FORMATS

from ...examples import examples
from .test_layered import FakeCodeMode, HideActions, apply, edit, make, outcomes, readings

STRICT = ("openai", "openai-responses")


def read_all(snapshot):
    """What a host reads, strict listings too: fills the snapshot's listing caches."""
    return {
        **readings(snapshot),
        "strict": [
            snapshot.definitions_for(f, strict=True) for f in ("openai", "openai-responses")
        ],
    }


@settings(max_examples=examples(150), deadline=None)
@given(
    first=st.lists(st.lists(edit, max_size=6), min_size=1, max_size=3),
    then=st.lists(edit, max_size=3),
    hidden=st.sets(st.sampled_from(("a", "b", "edit", "read", "execute"))),
    codemode=st.sampled_from((None, True, False)),
    flip=st.booleans(),
    read_before=st.booleans(),
)
def test_a_snapshot_after_an_edit_equals_the_plain_one(
    tmp_path_factory, first, then, hidden, codemode, flip, read_before
):
    location = Location(tmp_path_factory.mktemp("loc"), data_dir="/tmp/tooldeck-reuse")
    state = ToolState()
    for i, edits in enumerate(first):
        state.add(lambda e, edits=edits, i=i: apply(e, edits, f"L{i}"), f"loc{i}")
    permissions = HideActions(*hidden) if hidden else None
    provider = None if codemode is None else FakeCodeMode(codemode)
    previous = Snapshot(state.current(), location, permissions=permissions, codemode=provider)
    if read_before:
        read_all(previous)
    state.add(lambda e: apply(e, then, "then"), "then")
    if provider is not None and flip:
        provider._available = not provider._available
    catalog = state.current()
    after = Snapshot(
        catalog, location, permissions=permissions, codemode=provider, previous=previous
    )
    plain = Snapshot(catalog, location, permissions=permissions, codemode=provider)
    assert read_all(after) == read_all(plain)
    assert outcomes(after) == outcomes(plain)


def test_one_changed_tool_of_many_takes_the_rest_from_the_previous_snapshot(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    state = ToolState()
    state.add(lambda e: [e.add(make(f"t{n}", "v1", False, None)) for n in range(100)], "many")
    previous = Snapshot(state.current(), location)
    listing = previous.definitions_for("openai")
    state.add(lambda e: e.update("t7", lambda t: t.replace(description="v2")), "change")
    catalog = state.current()
    after = Snapshot(catalog, location, previous=previous)
    fresh = after.definitions_for("openai")
    assert fresh == Snapshot(catalog, location).definitions_for("openai")
    place = after.names.index("t7")
    assert fresh[place]["function"]["description"] == "v2"
    assert all(fresh[n] is listing[n] for n in range(100) if n != place)  # the same objects


def test_added_removed_or_many_changed_tools_are_built_the_plain_way(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    state = ToolState()
    state.add(lambda e: [e.add(make(f"t{n}", "v1", False, None)) for n in range(40)], "many")
    previous = Snapshot(state.current(), location)

    def after(edit):
        state.add(edit, f"edit{len(state.transforms)}")
        snapshot = Snapshot(state.current(), location)
        return index_after(previous, snapshot, None, None)

    assert after(lambda e: e.update("t1", lambda t: t.replace(description="v2"))) is not None
    assert after(lambda e: e.add(make("t99", "v1", False, None))) is None
    state.add(lambda e: e.remove("t99"), "undo")
    everything = [f"t{n}" for n in range(40)]
    assert (
        after(lambda e: [e.update(n, lambda t: t.replace(description="v3")) for n in everything])
        is None
    )


def test_a_listing_of_a_tool_without_a_cached_rendering_is_rendered(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    state = ToolState()
    tools = [
        Tool(name=f"t{n}", description="d", execute=lambda i, c: ToolResult("x")) for n in range(3)
    ]
    state.add(lambda e: [e.add(t) for t in tools], "tools")
    previous = Snapshot(state.current(), location)
    previous.definitions_for("gemini")
    state.add(lambda e: e.update("t1", lambda t: t.replace(description="new")), "change")
    catalog = state.current()
    after = Snapshot(catalog, location, previous=previous)
    for fmt in FORMATS:
        assert after.definitions_for(fmt) == Snapshot(catalog, location).definitions_for(fmt)
