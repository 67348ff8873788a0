from __future__ import annotations

import pytest

from tooldeck import Location, Registration, Tool, ToolResult, ToolService


def run(inp, ctx):
    return ToolResult("ok")


def make(name, description="A tool.", **options):
    return Tool(name=name, description=description, execute=run, **options)


@pytest.fixture
def service(tmp_path):
    return ToolService(Location(tmp_path, data_dir=tmp_path / "data"))


def adder(*tools):
    return lambda editor: [editor.add(t) for t in tools]


def names(service):
    return {n: e.tool.description for n, e in service.catalog.tools.items()}


def test_later_registration_overrides_and_dispose_reveals(service):
    base = service.transform(adder(make("read", "Base.")), source="base")
    over = service.transform(adder(make("read", "Override.")), source="override")
    assert names(service) == {"read": "Override."}
    over.dispose()
    assert names(service) == {"read": "Base."}
    base.dispose()
    assert names(service) == {}


def test_dispose_reveals_what_a_remove_hid(service):
    service.transform(adder(make("shell")), source="builtin")
    remover = service.transform(lambda e: e.remove("shell"), source="lockdown")
    assert "shell" not in names(service)
    remover.dispose()
    assert "shell" in names(service)


def test_dispose_is_idempotent_and_a_context_manager(service):
    with service.transform(adder(make("a")), source="s") as registration:
        assert isinstance(registration, Registration) and registration.active
        assert "a" in names(service)
    assert not registration.active
    registration.dispose()
    assert names(service) == {}
    assert "disposed" in repr(registration)


def test_disposing_a_middle_registration_keeps_the_rest_in_order(service):
    regs = [
        service.transform(adder(make("t", f"#{i}"), make(f"only{i}")), source=f"p{i}")
        for i in range(40)
    ]
    service.snapshot()
    regs[20].dispose()
    assert names(service)["t"] == "#39"
    assert "only20" not in names(service)
    regs[39].dispose()
    assert names(service)["t"] == "#38"
    regs[0].dispose()
    assert set(names(service)) == {"t"} | {f"only{i}" for i in range(1, 39) if i != 20}


def test_rebuilds_are_lazy(service):
    calls = []

    def counting(i):
        return lambda editor: calls.append(i)

    for i in range(10):
        service.transform(counting(i), source=f"s{i}")
    assert calls == []
    service.snapshot()
    assert calls == list(range(10))
    service.snapshot()
    assert calls == list(range(10))


def test_reload_replays_current_source_data_without_changing_precedence(service):
    source = {"description": "v1"}
    service.transform(lambda e: e.add(make("mcp_tool", source["description"])), source="mcp")
    service.transform(adder(make("mcp_tool", "Override.")), source="later")
    service.transform(adder(make("fresh", "Fresh.")), source="later2")
    assert names(service)["mcp_tool"] == "Override."
    source["description"] = "v2"
    service.reload()
    assert names(service)["mcp_tool"] == "Override."
    service.transform(lambda e: e.remove("mcp_tool"), source="remover").dispose()
    assert [r for r in service.registrations] == ["mcp", "later", "later2"]


def test_stable_transform_keeps_its_slot_across_reloads(service):
    discovered = []

    def mcp(editor):
        for tool in discovered:
            editor.add(tool)

    service.transform(mcp, source="mcp")
    override = service.transform(adder(make("srv_x", "Plugin override.")), source="plugin")
    discovered[:] = [make("srv_x", "From server."), make("srv_y", "From server.")]
    service.reload()
    assert names(service) == {"srv_x": "Plugin override.", "srv_y": "From server."}
    override.dispose()
    assert names(service) == {"srv_x": "From server.", "srv_y": "From server."}


def test_a_raising_transform_disables_its_whole_source(service):
    service.transform(adder(make("keep")), source="good")
    service.transform(adder(make("part_one")), source="broken")

    def explode(editor):
        editor.add(make("part_two"))
        raise RuntimeError("boom")

    service.transform(explode, source="broken")
    service.transform(adder(make("after")), source="good2")
    assert set(names(service)) == {"keep", "after"}
    (diagnostic,) = service.diagnostics
    assert diagnostic.source == "broken"
    assert "RuntimeError: boom" in diagnostic.reason
    assert "Traceback" in diagnostic.traceback and "explode" in diagnostic.traceback


def test_failed_source_recovers_on_reload_when_its_data_is_fixed(service):
    state = {"fail": True}

    def flaky(editor):
        if state["fail"]:
            raise ValueError("not yet")
        editor.add(make("flaky"))

    service.transform(flaky, source="flaky")
    assert "flaky" not in names(service)
    state["fail"] = False
    service.reload()
    assert "flaky" in names(service) and service.diagnostics == ()


def test_disposing_a_failed_source_clears_its_diagnostic(service):
    registration = service.transform(lambda e: 1 / 0, source="bad")
    assert len(service.diagnostics) == 1
    registration.dispose()
    assert service.diagnostics == ()


def test_batch_coalesces_and_readers_see_old_or_new(service):
    calls = []
    service.transform(lambda e: (calls.append("a"), e.add(make("a"))), source="a")
    before = service.snapshot()
    with service.batch():
        service.transform(lambda e: (calls.append("b"), e.add(make("b"))), source="b")
        assert service.snapshot() is before
        service.transform(lambda e: (calls.append("c"), e.add(make("c"))), source="c")
    after = service.snapshot()
    assert after.names == ("a", "b", "c")
    assert calls == ["a", "b", "c"]  # resumed after "a": its step was not replayed


def test_a_transform_reading_its_own_service_is_a_clear_failure(service):
    service.transform(lambda e: service.snapshot(), source="reentrant")
    (diagnostic,) = service.diagnostics
    assert "must not read the tool service" in diagnostic.reason


def test_transform_must_be_callable(service):
    with pytest.raises(TypeError, match="transform must be callable"):
        service.transform("nope")


def test_list_is_sorted_and_unfiltered(service):
    service.transform(adder(make("b"), make("a", codemode=False)), source="s")
    assert [t.name for t in service.list()] == ["a", "b"]


def test_effects_report_what_each_source_did(service):
    service.transform(adder(make("read"), make("grep")), source="builtin")
    service.transform(adder(make("read", "Safer.")), source="safe-read")
    service.transform(lambda e: e.remove("grep"), source="lockdown")
    catalog = service.catalog
    builtin = catalog.effects("builtin")
    assert builtin.provides == () and builtin.overridden_by == (("read", "safe-read"),)
    safe = catalog.effects("safe-read")
    assert safe.provides == ("read",) and safe.overrides == (("read", "builtin"),)
    assert catalog.effects("lockdown").removed == (("grep", "builtin"),)


def test_default_location_is_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ToolService().location.root == tmp_path.resolve()


def test_disposal_reapplies_pure_transforms_and_calls_readers_again(service):
    calls = []

    def pure(i):
        return lambda e: (calls.append(i), e.add(make("t", f"#{i}")))

    def reader(e):
        calls.append("reader")
        if e.get("t") is not None:
            e.add(make("seen_t"))

    first = service.transform(pure(0), source="p0")
    service.transform(pure(1), source="p1")
    service.transform(reader, source="reader")
    service.transform(pure(2), source="p2")
    service.snapshot()
    assert calls == [0, 1, "reader", 2]
    calls.clear()
    first.dispose()
    assert names(service) == {"t": "#2", "seen_t": "A tool."}
    assert calls == ["reader"]  # pure steps re-applied from their logged edits
    calls.clear()
    service.reload()
    service.snapshot()
    assert calls == [1, "reader", 2]  # reload calls every transform again
