"""A session's snapshot, layered on the Location's, equals the one built the plain way.

``LayeredSnapshot`` decides visibility and code-mode routing only for the names a
session changed and shares everything else with the Location's snapshot. These tests
pin it to ``Snapshot(session_catalog, ...)`` over generated catalogs, sessions,
permissions and code-mode settings: every public reading and every call agree.
"""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from tooldeck import Location, Snapshot, Tool, ToolCall, ToolFailure, ToolResult
from tooldeck.host.execution.layered import LayeredSnapshot
from tooldeck.host.registry.session import SessionState, Templates
from tooldeck.host.registry.state import ToolState
from tooldeck.providers.formats import FORMATS

from ...examples import examples

NAMES = ("a", "b", "c", "d", "execute")
ACTIONS = (None, "edit", "read")


class HideActions:
    def __init__(self, *actions):
        self.actions = set(actions)

    def hidden(self, action):
        return action in self.actions


class FakeCodeMode:
    def __init__(self, available):
        self._available = available

    def available(self, location):
        return self._available

    def build(self, snapshot, tools):
        listed = ", ".join(entry.name for entry in tools)
        return Tool(
            name="execute",
            description=f"Run a program with: {listed or 'nothing'}.",
            codemode=False,
            execute=lambda inp, ctx: ToolResult(f"ran {listed}"),
        )


def make(name, tag, codemode, permission):
    return Tool(
        name=name,
        description=f"{name} {tag}",
        codemode=codemode,
        permission=permission,
        execute=lambda inp, ctx: ToolResult(f"{name} {tag} in {ctx.session_id}"),
    )


tool_spec = st.tuples(st.sampled_from(NAMES), st.booleans(), st.sampled_from(ACTIONS))
edit = st.one_of(
    st.tuples(st.just("add"), tool_spec),
    st.tuples(st.just("remove"), st.sampled_from(NAMES)),
    st.tuples(st.just("update"), st.sampled_from(NAMES)),
)


def apply(editor, edits, tag):
    for kind, arg in edits:
        if kind == "add":
            name, codemode, permission = arg
            if name == "execute" and not codemode:
                continue  # reserved for the code-mode tool
            editor.add(make(name, tag, codemode, permission))
        elif kind == "remove":
            editor.remove(arg)
        else:
            editor.update(arg, lambda t: t.replace(description=t.description + " (session)"))


def readings(snapshot):
    """Everything a host can read from a snapshot, with code-mode tools by name."""
    return {
        "names": snapshot.names,
        "definitions": [
            (d.name, d.description, d.input_schema, d.output_schema) for d in snapshot.definitions
        ],
        "formats": {fmt: snapshot.definitions_for(fmt) for fmt in FORMATS},
        "codemode": [(e.name, e.tool) for e in snapshot.codemode_catalog],
        "get": {name: _described(snapshot.get(name)) for name in (*NAMES, "zz")},
    }


def _described(tool):
    return None if tool is None else (tool.name, tool.description)


def outcomes(snapshot):
    """Every call by name: advertised tools, code-mode tools (also as ``tools.<name>``)."""
    results = {}
    for name in (*NAMES, *(f"tools.{n}" for n in NAMES), "zz"):
        try:
            done = snapshot.execute_sync(ToolCall("c", name, "{}"))
            results[name] = done.content[0].text
        except ToolFailure as failure:
            results[name] = "failed: " + failure.message
    return results


@settings(max_examples=examples(1000), deadline=None)
@given(
    location_edits=st.lists(st.lists(edit, max_size=6), max_size=3),
    session_edits=st.lists(st.lists(edit, max_size=4), max_size=2),
    hidden=st.sets(st.sampled_from(("a", "b", "edit", "read", "execute"))),
    codemode=st.sampled_from((None, True, False)),
)
@pytest.mark.slow
def test_the_layered_snapshot_equals_the_plain_one(
    tmp_path_factory, location_edits, session_edits, hidden, codemode
):
    root = tmp_path_factory.mktemp("loc")
    location = Location(root, data_dir=root / "data")
    base_state = ToolState()
    for i, edits in enumerate(location_edits):
        base_state.add(lambda e, edits=edits, i=i: apply(e, edits, f"L{i}"), f"loc{i}")
    session = SessionState(base_state, Templates(), "s1")
    for i, edits in enumerate(session_edits):
        session.add(lambda e, edits=edits, i=i: apply(e, edits, f"S{i}"), f"ses{i}")
    catalog = session.current()
    permissions = HideActions(*hidden) if hidden else None
    provider = None if codemode is None else FakeCodeMode(codemode)

    base = Snapshot(catalog.base, location, permissions=permissions, codemode=provider)
    layered = LayeredSnapshot(
        catalog, base, permissions=permissions, codemode=provider, session_id="s1"
    )
    plain = Snapshot(catalog, location, permissions=permissions, codemode=provider, session_id="s1")
    assert readings(layered) == readings(plain)
    assert outcomes(layered) == outcomes(plain)
    assert readings(base) == readings(
        Snapshot(catalog.base, location, permissions=permissions, codemode=provider)
    )  # the base is untouched


def test_unchanged_tools_share_the_base_snapshot_objects(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    base_state = ToolState()
    base_state.add(lambda e: [e.add(make(n, "L", False, None)) for n in "abc"], "loc")
    session = SessionState(base_state, Templates(), "s1")
    session.add(lambda e: e.add(make("d", "S", False, None)), "ses")
    base = Snapshot(base_state.current(), location)
    layered = LayeredSnapshot(session.current(), base, session_id="s1")
    shared = {d.name: d for d in base.definitions}
    for definition in layered.definitions:
        if definition.name != "d":
            assert definition is shared[definition.name]
    base_openai = dict(zip(base.names, base.definitions_for("openai"), strict=True))
    for name, rendered in zip(layered.names, layered.definitions_for("openai"), strict=True):
        if name != "d":
            assert rendered is base_openai[name]


def test_a_session_without_changes_serves_the_base_index_itself(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    base_state = ToolState()
    base_state.add(lambda e: e.add(make("a", "L", False, None)), "loc")
    base = Snapshot(base_state.current(), location)
    layered = LayeredSnapshot(
        SessionState(base_state, Templates(), "s").current(), base, session_id="s"
    )
    assert layered._records_by_name is base._records_by_name
    assert layered.definitions is base.definitions
    assert layered.definitions_for("openai") is base.definitions_for("openai")
    assert layered.names == ("a",) and layered.session_id == "s"


def test_an_unknown_tool_lists_what_the_session_offers(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    base_state = ToolState()
    base_state.add(lambda e: [e.add(make(n, "L", False, None)) for n in "ab"], "loc")
    session = SessionState(base_state, Templates(), "s")
    session.add(lambda e: [e.remove("a"), e.add(make("c", "S", False, None))], "ses")
    base = Snapshot(base_state.current(), location)
    layered = LayeredSnapshot(session.current(), base, session_id="s")
    with pytest.raises(ToolFailure, match=r"Tool 'a' is not available\. .*: b, c\."):
        layered.execute_sync(ToolCall("1", "a", "{}"))
    assert base.execute_sync(ToolCall("1", "a", "{}")).content[0].text == "a L in "
