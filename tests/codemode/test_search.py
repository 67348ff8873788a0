"""``search(query, limit)``: every code-mode tool, ranked by where the words appear."""

from __future__ import annotations

from tooldeck.codemode.naming import build_tree
from tooldeck.codemode.search import search
from tooldeck.codemode.stubs import StubFile
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.names import effective_name

from .conftest import text_tool


def stubs_of(*tools, namespaces=None):
    entries = [CatalogEntry(effective_name(t.name, t.namespace), t, "test") for t in tools]
    spaces = {k: NamespaceEntry(v, "test") for k, v in (namespaces or {}).items()}
    return StubFile(build_tree(entries), spaces)


def test_name_matches_rank_above_descriptions():
    stubs = stubs_of(
        text_tool("weather", str, description="Forecasts."),
        text_tool("news", str, description="Headlines and the weather."),
    )
    found = search(stubs, "weather")
    assert [f["name"] for f in found] == ["weather", "news"]
    assert found[0] == {
        "name": "weather",
        "namespace": None,
        "call": "tools.weather",
        "signature": "tools.weather(*, text: str) -> str",
        "description": "Forecasts.",
    }


def test_namespace_descriptions_match_their_tools():
    stubs = stubs_of(
        text_tool("status", str, namespace="vcs"),
        text_tool("ping", str),
        namespaces={"vcs": "Git repository commands."},
    )
    assert [f["call"] for f in search(stubs, "git")] == ["tools.vcs.status"]


def test_limit_and_empty_query():
    stubs = stubs_of(*(text_tool(f"t{n}", str) for n in range(5)))
    assert [f["name"] for f in search(stubs, "", limit=2)] == ["t0", "t1"]
    assert search(stubs, "nothing matches this") == []


def test_bad_arguments_are_type_errors():
    stubs = stubs_of(text_tool("t", str))
    for args in ((1,), ("q", -1), ("q", True)):
        try:
            search(stubs, *args)
        except TypeError as exc:
            assert "search()" in str(exc)
        else:
            raise AssertionError(f"search{args} did not raise")
