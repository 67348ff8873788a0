"""Model-based test: Location and session registrations, interleaved, against a reference
that replays everything from scratch.

The reference is the semantics in a few lines: a session's catalog is the fold of every
live Location transform, then every live session template (bound to the session's id),
then the session's own transforms; a transform that raises contributes nothing. The
real service replays a session from the Location's final catalog, reuses recorded
steps and shares the Location's snapshot; none of that may ever show.
"""

from __future__ import annotations

import tempfile

import hypothesis.strategies as st
import pytest
from hypothesis import settings
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

from tooldeck import Location, Snapshot, Tool, ToolResult, ToolService

NAMES = ("a", "b", "c")
NAMESPACES = (None, "n")
DESCRIPTIONS = ("", "one", "two")  # "" is invalid: the add/update is skipped
SESSIONS = ("s0", "s1", "s2")


def run(inp, ctx):
    return ToolResult("ok")


def effective(name, namespace):
    return f"{namespace}_{name}" if namespace else name


op = st.one_of(
    st.tuples(
        st.just("add"),
        st.sampled_from(NAMES),
        st.sampled_from(NAMESPACES),
        st.sampled_from(DESCRIPTIONS),
    ),
    st.tuples(
        st.just("update"),
        st.sampled_from(NAMES),
        st.sampled_from(NAMESPACES),
        st.sampled_from(DESCRIPTIONS),
    ),
    st.tuples(st.just("remove"), st.sampled_from(NAMES), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("namespace"), st.sampled_from(("n", "m")), st.sampled_from(DESCRIPTIONS)),
    st.tuples(st.just("mine")),  # adds a tool named after the session (templates only)
    st.tuples(st.just("raise")),
)
ops_strategy = st.lists(op, max_size=4)


def apply_op(editor, op, session_id):
    kind = op[0]
    if kind == "add":
        editor.add(Tool(name=op[1], namespace=op[2], description=op[3], execute=run))
    elif kind == "update":
        editor.update(effective(op[1], op[2]), lambda t: t.replace(description=op[3]))
    elif kind == "remove":
        editor.remove(effective(op[1], op[2]))
    elif kind == "namespace":
        editor.namespace(op[1], op[2])
    elif kind == "mine" and session_id is not None:
        editor.add(Tool(name=f"t_{session_id}", description="mine", execute=run))
    elif kind == "raise":
        raise RuntimeError("this transform fails")


def reference(transforms):
    """Fold ``(ops, session_id)`` pairs in order; a raising transform adds nothing."""
    tools, namespaces = {}, {}
    for ops, session_id in transforms:
        if any(o[0] == "raise" for o in ops):
            continue
        for o in ops:
            kind = o[0]
            if kind in ("add", "update") and o[3]:
                name = effective(o[1], o[2])
                if kind == "add" or name in tools:
                    tools[name] = o[3]
            elif kind == "remove":
                tools.pop(effective(o[1], o[2]), None)
            elif kind == "namespace" and o[2]:
                namespaces[o[1]] = o[2]
            elif kind == "mine" and session_id is not None:
                tools[f"t_{session_id}"] = "mine"
    return tools, namespaces


def described(snapshot):
    return {d.name: d.description for d in snapshot.definitions}


class Sessions(RuleBasedStateMachine):
    location_regs = Bundle("location_regs")
    templates = Bundle("templates")
    session_regs = Bundle("session_regs")

    def teardown(self):
        import shutil

        shutil.rmtree(self.root, ignore_errors=True)

    def __init__(self):
        super().__init__()
        self.root = root = tempfile.mkdtemp()
        self.service = ToolService(Location(root, data_dir=root + "/data"))
        self.location = []  # [(registration, data)], registration order
        self.templates_live = []
        self.sessions = {}  # id -> [(registration, data)] of the open sessions
        self.kept = []  # (snapshot, described) pairs that must never change
        self.count = 0

    # -- the reference ---------------------------------------------------------------------
    def expected(self, session_id=None):
        chain = [(data[0], None) for _, data in self.location]
        if session_id in self.sessions:
            chain += [(data[0], session_id) for _, data in self.templates_live]
            chain += [(data[0], None) for _, data in self.sessions[session_id]]
        return reference(chain)

    def transform(self, data, bound=False):
        if bound:
            return lambda editor, session_id, state: [
                apply_op(editor, o, session_id) for o in data[0]
            ]
        return lambda editor: [apply_op(editor, o, None) for o in data[0]]

    def source(self):
        self.count += 1
        return f"src{self.count}"

    # -- Location --------------------------------------------------------------------------
    @rule(target=location_regs, ops=ops_strategy)
    def register_location(self, ops):
        data = [list(ops)]
        registration = self.service.transform(self.transform(data), source=self.source())
        self.location.append((registration, data))
        return registration

    @rule(registration=consumes(location_regs))
    def dispose_location(self, registration):
        registration.dispose()
        self.location = [(r, d) for r, d in self.location if r is not registration]

    # -- session templates -----------------------------------------------------------------
    @rule(target=templates, ops=ops_strategy)
    def register_template(self, ops):
        data = [list(ops)]
        registration = self.service.session_transform(
            self.transform(data, bound=True), source=self.source()
        )
        self.templates_live.append((registration, data))
        return registration

    @rule(registration=consumes(templates))
    def dispose_template(self, registration):
        registration.dispose()
        registration.dispose()
        self.templates_live = [(r, d) for r, d in self.templates_live if r is not registration]

    # -- sessions --------------------------------------------------------------------------
    @rule(session_id=st.sampled_from(SESSIONS))
    def open_session(self, session_id):
        scope = self.service.session(session_id)
        assert self.service.session(session_id) is scope
        self.sessions.setdefault(session_id, [])

    @rule(session_id=st.sampled_from(SESSIONS))
    def close_session(self, session_id):
        scope = self.service.session(session_id)
        scope.close()
        scope.close()
        self.sessions.pop(session_id, None)
        for registration, _ in self.sessions.get(session_id, ()):
            assert not registration.active

    @rule(target=session_regs, session_id=st.sampled_from(SESSIONS), ops=ops_strategy)
    def register_session(self, session_id, ops):
        self.open_session(session_id)
        data = [list(ops)]
        scope = self.service.session(session_id)
        registration = scope.transform(self.transform(data), source=self.source())
        self.sessions[session_id].append((registration, data))
        return registration

    @rule(registration=consumes(session_regs))
    def dispose_session_registration(self, registration):
        registration.dispose()
        registration.dispose()
        for session_id, live in self.sessions.items():
            self.sessions[session_id] = [(r, d) for r, d in live if r is not registration]

    @rule(session_id=st.sampled_from(SESSIONS), batch=st.lists(ops_strategy, max_size=3))
    def batch_in_session(self, session_id, batch):
        self.open_session(session_id)
        scope = self.service.session(session_id)
        before = self.service.snapshot(session=session_id)
        with scope.batch():
            for ops in batch:
                self.register_session(session_id, ops)
            assert self.service.snapshot(session=session_id) is before

    # -- sources change --------------------------------------------------------------------
    @rule(index=st.integers(min_value=0), ops=ops_strategy)
    def change_any_source_and_reload(self, index, ops):
        sources = [d for _, d in self.location] + [d for _, d in self.templates_live]
        sources += [d for live in self.sessions.values() for _, d in live]
        if not sources:
            return
        sources[index % len(sources)][0] = list(ops)
        self.service.reload()

    # -- reading ---------------------------------------------------------------------------
    @rule(session_id=st.sampled_from((None, *SESSIONS)))
    def keep_snapshot(self, session_id):
        snapshot = self.service.snapshot(session=session_id)
        self.kept.append((snapshot, described(snapshot)))

    @invariant()
    def location_matches_the_reference(self):
        tools, namespaces = self.expected()
        snapshot = self.service.snapshot()
        assert described(snapshot) == tools
        assert {k: v.description for k, v in self.service.catalog.namespaces.items()} == (
            namespaces
        )

    @invariant()
    def every_session_matches_the_reference(self):
        for session_id in SESSIONS:
            tools, namespaces = self.expected(session_id)
            snapshot = self.service.snapshot(session=session_id)
            assert snapshot.session_id == session_id
            assert described(snapshot) == tools, session_id
            assert list(snapshot.names) == sorted(tools)
            assert {k: v.description for k, v in snapshot.catalog.namespaces.items()} == (
                namespaces
            )
            plain = Snapshot(snapshot.catalog, snapshot.location)  # the plain path agrees
            assert described(plain) == tools
            assert self.service.snapshot(session=session_id) is snapshot or (
                session_id not in self.sessions
            )

    @invariant()
    def kept_snapshots_never_change(self):
        for snapshot, before in self.kept:
            assert described(snapshot) == before

    @invariant()
    def open_sessions_are_the_ones_opened(self):
        assert sorted(self.service.sessions) == sorted(self.sessions)


Sessions.TestCase.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
TestSessions = pytest.mark.slow(Sessions.TestCase)
