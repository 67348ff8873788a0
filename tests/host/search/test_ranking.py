"""``ToolIndex``: the one BM25 ranking behind every tool search."""

from __future__ import annotations

from typing import Any

from tooldeck import Tool, ToolResult
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.names import effective_name
from tooldeck.host.search.ranking import ToolIndex, words


def make(name: str, description: str = "A tool.", **options: Any) -> CatalogEntry:
    properties = options.pop("properties", {})
    tool = Tool(
        name=name,
        description=description,
        input={"type": "object", "properties": properties},
        execute=lambda i, c: ToolResult("ok"),
        **options,
    )
    return CatalogEntry(effective_name(name, tool.namespace), tool, "test")


def ranked(
    entries: list[CatalogEntry], query: str, spaces: dict[str, str] | None = None
) -> list[str]:
    described = {k: NamespaceEntry(v, "test") for k, v in (spaces or {}).items()}
    index = ToolIndex.of(entries, described)
    return [entries[i].name for i in index.search(query, 10)]


def test_words_split_names_fold_plurals_and_drop_stop_words():
    assert words("listPullRequests") == ["list", "pull", "request"]
    assert words("github_create_issue.v2") == ["github", "create", "issue", "v2"]
    assert words("Find the issues of my repositories") == ["find", "issue", "repository"]
    assert words("HTTPServer watches") == ["http", "server", "watch"]


def test_name_outranks_description_and_parameters():
    entries = [
        make("notes", "Keep notes.", properties={"weather": {"type": "string"}}),
        make("news", "Headlines and the weather."),
        make("weather", "Forecasts."),
    ]
    assert ranked(entries, "weather") == ["weather", "news", "notes"]


def test_namespace_and_its_description_match():
    entries = [make("status", namespace="vcs"), make("ping")]
    assert ranked(entries, "git repository", {"vcs": "Git repository commands."}) == ["vcs_status"]
    assert ranked(entries, "vcs") == ["vcs_status"]


def test_parameter_descriptions_match():
    entries = [
        make("a", properties={"when": {"type": "string", "description": "Deadline, ISO 8601."}}),
        make("b"),
    ]
    assert ranked(entries, "deadline") == ["a"]


def test_rare_terms_weigh_more_than_common_ones():
    entries = [make(f"list_{x}", f"List {x}.") for x in ("cats", "dogs", "birds")]
    entries.append(make("export_dogs", "Export dogs as CSV."))
    assert ranked(entries, "export list dogs")[0] == "export_dogs"


def test_ties_keep_the_given_order_and_nothing_unrelated_is_returned():
    entries = [make(n, "Same words.") for n in ("cc", "aa", "bb")]
    assert ranked(entries, "same words") == ["cc", "aa", "bb"]
    assert ranked(entries, "unrelated") == []


def test_a_query_without_terms_lists_in_order_up_to_the_limit():
    entries = [make(f"t{n}") for n in range(5)]
    index = ToolIndex.of(entries, {})
    assert index.search("", 3) == [0, 1, 2]
    assert index.search("the of", 10) == [0, 1, 2, 3, 4]
    assert index.search("x", 0) == []
    assert len(ToolIndex.of([], {})) == 0 and ToolIndex.of([], {}).search("x", 5) == []
