"""The ``tools`` tree: sanitized names, nesting, collisions, tools that are also namespaces."""

from __future__ import annotations

import pytest

from tooldeck import Tool, ToolResult
from tooldeck.codemode.naming import build_tree, identifier
from tooldeck.host.registry.editor import CatalogEntry
from tooldeck.host.registry.names import effective_name


def entry(name, namespace=None):
    tool = Tool(
        name=name, namespace=namespace, description="x", execute=lambda i, c: ToolResult("x")
    )
    return CatalogEntry(effective_name(name, namespace), tool, "test")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("read", "read"),
        ("search-records", "search_records"),
        ("3d", "t_3d"),
        ("_private", "t_private"),
        ("-dash", "t_dash"),
        ("class", "class_"),
        ("match", "match_"),
        ("__call__", "t__call__"),
        ("tools", "tools_"),
    ],
)
def test_identifiers(name, expected):
    assert identifier(name) == expected


def test_dotted_namespaces_nest():
    tree = build_tree([entry("status", "acme.git"), entry("add")])
    assert tree.paths == {"acme_git_status": "tools.acme.git.status", "add": "tools.add"}
    assert list(tree.root.children) == ["acme"]
    assert tree.node(("acme", "git")).tools["status"].name == "acme_git_status"


def test_collisions_keep_unchanged_names_then_follow_effective_name_order():
    tree = build_tree(
        [entry("search_records"), entry("search-records"), entry("x", "my-ns"), entry("y", "my_ns")]
    )
    assert tree.paths == {
        "search_records": "tools.search_records",
        "search-records": "tools.search_records_2",
        "my-ns_x": "tools.my_ns_2.x",
        "my_ns_y": "tools.my_ns.y",
    }


def test_a_name_that_is_both_tool_and_namespace_is_callable_at_both_levels():
    tree = build_tree([entry("git", "acme"), entry("status", "acme.git")])
    git = tree.node(("acme", "git"))
    assert git.callable is not None and git.callable.name == "acme_git"
    assert tree.paths["acme_git"] == "tools.acme.git"
    assert tree.paths["acme_git_status"] == "tools.acme.git.status"
