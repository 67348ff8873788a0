from __future__ import annotations

import pytest
from pydantic import BaseModel

from tooldeck import Location, Tool, ToolResult, ToolService


class PathInput(BaseModel):
    path: str


def run(inp, ctx):
    return ToolResult("ok")


def make(name="read", description="Read a file.", **options):
    return Tool(name=name, description=description, input=PathInput, execute=run, **options)


@pytest.fixture
def service(tmp_path):
    return ToolService(Location(tmp_path, data_dir=tmp_path / "data"))


def apply(service, fn, source="test"):
    service.transform(fn, source=source)
    return service.catalog


def test_add_then_get_and_list_sorted(service):
    b, a = make("b"), make("a")

    def transform(editor):
        editor.add(b)
        editor.add(a)
        assert editor.get("a") is a
        assert editor.get("missing") is None
        assert editor.list() == [a, b]

    catalog = apply(service, transform)
    assert list(sorted(catalog.tools)) == ["a", "b"]


def test_add_uses_the_effective_name(service):
    status = make("status", namespace="git")
    catalog = apply(service, lambda e: e.add(status))
    assert catalog.tools["git_status"].tool is status


def test_latest_valid_add_wins_without_renaming(service):
    first, second = make(description="First."), make(description="Second.")
    catalog = apply(service, lambda e: (e.add(first), e.add(second)))
    assert catalog.tools["read"].tool is second
    assert set(catalog.tools) == {"read"}
    assert catalog.lineage("read") == ("test", "test")


def test_update_receives_the_current_tool_and_forces_name_and_namespace(service):
    original = make("status", namespace="git")
    seen = []

    def transform(editor):
        editor.add(original)
        editor.update(
            "git_status",
            lambda t: (
                seen.append(t)
                or t.replace(name="renamed", namespace="other", description="Changed.")
            ),
        )

    catalog = apply(service, transform)
    assert seen == [original]
    updated = catalog.tools["git_status"].tool
    assert (updated.name, updated.namespace, updated.description) == ("status", "git", "Changed.")
    assert original.description == "Read a file."


def test_update_and_remove_of_missing_tools_are_no_ops(service):
    called = []
    catalog = apply(service, lambda e: (e.update("nope", called.append), e.remove("nope")))
    assert called == [] and dict(catalog.tools) == {}


def test_missing_update_and_remove_targets_are_warnings(service):
    catalog = apply(
        service, lambda e: (e.update("nope", lambda t: t), e.remove("gone")), source="pack"
    )
    assert [(d.source, d.tool, d.level, d.reason) for d in catalog.diagnostics] == [
        (
            "pack",
            "nope",
            "warning",
            "update('nope') did nothing: no tool has that effective name here",
        ),
        (
            "pack",
            "gone",
            "warning",
            "remove('gone') did nothing: no tool has that effective name here",
        ),
    ]


def test_a_remove_warning_follows_the_state_it_ran_against(service):
    remover = service.transform(lambda e: e.remove("read"), source="remover")
    assert [d.tool for d in service.catalog.diagnostics] == ["read"]
    provider = service.transform(lambda e: e.add(make()), source="provider")
    remover.dispose()
    service.transform(lambda e: e.remove("read"), source="remover")
    assert service.catalog.diagnostics == () and "read" not in service.catalog.tools
    provider.dispose()
    assert [d.tool for d in service.catalog.diagnostics] == ["read"]


def test_invalid_update_keeps_the_previous_definition(service):
    original = make()

    def transform(editor):
        editor.add(original)
        editor.update("read", lambda t: t.replace(description=""))
        editor.update("read", lambda t: "not a tool")

    catalog = apply(service, transform, source="pack")
    assert catalog.tools["read"].tool is original
    reasons = [d.reason for d in catalog.diagnostics]
    assert reasons == [
        "update skipped: description must be a non-empty string",
        "update must return a Tool, got str",
    ]


def test_only_add_creates(service):
    catalog = apply(service, lambda e: e.update("read", lambda t: make()))
    assert "read" not in catalog.tools


def test_remove_deletes(service):
    catalog = apply(service, lambda e: (e.add(make()), e.remove("read")))
    assert "read" not in catalog.tools
    assert catalog.removals == (("test", "read", "test"),)


@pytest.mark.parametrize(
    ("tool", "reason"),
    [
        (make(description=3), "description must be a string, got int"),
        (make(description="  "), "description must be a non-empty string"),
        (Tool(name="x", description="d", execute=None), "execute must be callable"),
        (
            Tool(name="x", description="d", execute=run, input={"type": "nope"}),
            "input schema is not a valid JSON Schema:",
        ),
        (
            Tool(name="x", description="d", execute=run, output=[1]),
            "output schema must be a pydantic model class",
        ),
        (make(name="x" * 70), "name must be 1-64 characters"),
        (make(name="execute", codemode=False), "reserved for the code-mode tool"),
        (make(permission=""), "permission must be a non-empty string"),
    ],
)
def test_invalid_add_is_skipped_with_a_diagnostic_and_the_rest_applies(service, tool, reason):
    good = make("good")
    catalog = apply(service, lambda e: (e.add(tool), e.add(good)), source="pack-a")
    assert set(catalog.tools) == {"good"}
    (diagnostic,) = catalog.diagnostics
    assert diagnostic.source == "pack-a"
    assert reason in diagnostic.reason
    assert diagnostic.tool == (tool.name if isinstance(tool.name, str) else repr(tool.name))
    assert str(diagnostic).startswith("source 'pack-a', tool ")


def test_diagnostic_names_the_namespace(service):
    bad = make(namespace="acme", description="")
    (diagnostic,) = apply(service, lambda e: e.add(bad)).diagnostics
    assert diagnostic.namespace == "acme"


def test_add_of_a_non_tool_is_refused(service):
    (diagnostic,) = apply(service, lambda e: e.add({"name": "x"})).diagnostics
    assert diagnostic.reason == "expected a Tool, got dict"


def test_namespaces_last_wins_and_invalid_ones_are_diagnosed(service):
    def transform(editor):
        editor.namespace("git", "Git tools.")
        editor.namespace("git", "Git, again.")
        editor.namespace("bad name", "x")
        editor.namespace("ok", "")

    catalog = apply(service, transform)
    assert catalog.namespaces["git"].description == "Git, again."
    assert [d.namespace for d in catalog.diagnostics] == ["bad name", "ok"]
