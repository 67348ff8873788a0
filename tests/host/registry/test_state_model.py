"""Model-based test: random registration histories against a tiny reference model."""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import settings
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

from tooldeck import Location, Tool, ToolResult, ToolService

NAMES = ("a", "b", "c")
NAMESPACES = (None, "n")
DESCRIPTIONS = ("", "one", "two", "three")  # "" is invalid: the add/update is skipped


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
)
ops_strategy = st.lists(op, max_size=5)


def apply_op(editor, op):
    kind = op[0]
    if kind == "add":
        editor.add(Tool(name=op[1], namespace=op[2], description=op[3], execute=run))
    elif kind == "update":
        editor.update(effective(op[1], op[2]), lambda t: t.replace(description=op[3]))
    elif kind == "remove":
        editor.remove(effective(op[1], op[2]))
    else:
        editor.namespace(op[1], op[2])


def reference(transforms):
    """The semantics in a dozen lines: fold every op of every live transform in order."""
    tools, namespaces, missed = {}, {}, []
    for ops in transforms:
        for op in ops:
            kind = op[0]
            name = effective(op[1], op[2]) if kind != "namespace" else ""
            if kind in ("update", "remove") and name not in tools:
                missed.append(name)  # a warning diagnostic, and nothing else
            elif kind in ("add", "update") and op[3]:
                tools[name] = op[3]
            elif kind == "remove":
                tools.pop(name)
            elif kind == "namespace" and op[2]:
                namespaces[op[1]] = op[2]
    return tools, namespaces, missed


class Registrations(RuleBasedStateMachine):
    registrations = Bundle("registrations")

    def teardown(self):
        import shutil

        shutil.rmtree(self.root, ignore_errors=True)

    def __init__(self):
        super().__init__()
        import tempfile

        self.root = root = tempfile.mkdtemp()
        self.service = ToolService(Location(root, data_dir=root + "/data"))
        self.live = []  # [(registration, source_data list)] in registration order
        self.kept = []  # (snapshot, expected tools) pairs that must never change

    def expected(self):
        return reference([data[0] for _, data in self.live])

    @rule(target=registrations, ops=ops_strategy)
    def register(self, ops):
        data = [list(ops)]  # a mutable source: the transform reads its current ops
        registration = self.service.transform(
            lambda editor: [apply_op(editor, o) for o in data[0]], source=f"s{len(self.live)}"
        )
        self.live.append((registration, data))
        return registration

    @rule(registration=consumes(registrations))
    def dispose(self, registration):
        registration.dispose()
        registration.dispose()
        self.live = [(r, d) for r, d in self.live if r is not registration]

    @rule(index=st.integers(min_value=0), ops=ops_strategy)
    def change_source_and_reload(self, index, ops):
        if not self.live:
            return
        self.live[index % len(self.live)][1][0] = list(ops)
        self.service.reload()

    @rule(batch=st.lists(ops_strategy, max_size=3), drop_first=st.booleans())
    def batch(self, batch, drop_first):
        before = self.service.snapshot()
        with self.service.batch():
            for ops in batch:
                self.register(ops)
            if drop_first and self.live:
                registration = self.live[0][0]
                registration.dispose()
                self.live = self.live[1:]
            assert self.service.snapshot() is before

    @rule()
    def keep_snapshot(self):
        snapshot = self.service.snapshot()
        self.kept.append((snapshot, self.described(snapshot)))

    @staticmethod
    def described(snapshot):
        return {d.name: d.description for d in snapshot.definitions}

    @invariant()
    def snapshot_matches_the_reference(self):
        tools, namespaces, missed = self.expected()
        snapshot = self.service.snapshot()
        assert self.described(snapshot) == tools
        assert list(snapshot.names) == sorted(tools)
        catalog = self.service.catalog
        assert {k: v.description for k, v in catalog.namespaces.items()} == namespaces
        assert [d.tool for d in catalog.diagnostics if d.level == "warning"] == missed

    @invariant()
    def kept_snapshots_never_change(self):
        for snapshot, described in self.kept:
            assert self.described(snapshot) == described


Registrations.TestCase.settings = settings(max_examples=120, stateful_step_count=25, deadline=None)
TestRegistrations = pytest.mark.slow(Registrations.TestCase)
