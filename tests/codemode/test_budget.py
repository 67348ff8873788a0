"""The ``execute`` description when not every stub fits: namespaces, then a fair share."""

from __future__ import annotations

import re

from tooldeck import Tool

from .conftest import text_tool

SPACES = {f"ns{k}": f"Service number {k}. It does many things for you." for k in range(6)}


def catalog(per_namespace: int = 12, **options) -> list[Tool]:
    return [
        text_tool(f"op{n:02}", str, namespace=ns, description=f"Operation {n} of {ns}. " * 3)
        for ns in SPACES
        for n in range(per_namespace)
    ]


def listed(description: str) -> list[str]:
    return re.findall(r"async def (\w+)\(self", description)


def described(deck, tools, budget_tokens=400, **kw) -> str:
    return (
        deck.snapshot(*tools, namespaces=SPACES, budget_tokens=budget_tokens, **kw)
        .get("execute")
        .description
    )


def test_every_namespace_is_named_and_every_one_has_a_stub(deck):
    text = described(deck, catalog())
    for ns, about in SPACES.items():
        assert f"- tools.{ns}: {about}" in text
    classes = re.findall(r"class tools_(ns\d)\b", text)
    assert sorted(classes) == sorted(SPACES)
    assert 'await search("words")' in text and "Not every tool is listed" in text
    assert not re.search(r"\d+ more tool", text)


def test_pinned_tools_come_first_in_the_selection(deck):
    pinned = text_tool("zz_urgent", str, namespace="ns5", pinned=True, description="Urgent.")
    text = described(deck, [*catalog(), pinned], budget_tokens=200)
    assert "zz_urgent" in listed(text)


def test_a_tool_beyond_the_budget_changes_nothing(deck):
    tools = catalog()
    before = described(deck, tools)
    shown = set(listed(before))
    beyond = next(t for t in reversed(tools) if t.name not in shown)
    changed = [
        t if t is not beyond else beyond.replace(description="Now different.") for t in tools
    ]
    assert described(deck, changed) == before
    fewer = [t for t in tools if t is not beyond]
    assert described(deck, fewer) == before
    more = [*tools, text_tool("op99", str, namespace="ns5", description="A late addition.")]
    assert described(deck, more) == before


def test_adding_a_tool_does_not_reorder_the_others(deck):
    tools = catalog(per_namespace=3)
    before = listed(described(deck, tools, budget_tokens=5000))
    after = listed(described(deck, [*tools, text_tool("op01b", str, namespace="ns2")], 5000))
    assert [n for n in after if n != "op01b"] == before


def test_namespace_lines_shrink_to_fit_the_budget(deck):
    long = {ns: f"{about} " + "More detail. " * 40 for ns, about in SPACES.items()}
    text = deck.snapshot(*catalog(), namespaces=long, budget_tokens=300).get("execute").description
    for ns in SPACES:
        assert f"- tools.{ns}: Service number {ns[2:]}.\n" in text + "\n"
    tiny = deck.snapshot(*catalog(), namespaces=long, budget_tokens=20).get("execute").description
    assert all(f"- tools.{ns}\n" in tiny + "\n" for ns in SPACES)


def test_everything_fits_lists_everything_without_the_namespace_block(deck):
    text = described(deck, catalog(per_namespace=1), budget_tokens=5000)
    assert len(listed(text)) == len(SPACES)
    assert "Namespaces (" not in text and "Not every tool is listed" not in text
