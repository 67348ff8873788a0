"""``ToolIndex``: the one ranking behind every tool search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Tool, ToolResult
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.names import effective_name
from tooldeck.host.search.ranking import ToolIndex

VERBS = ("list", "get", "create", "update", "delete", "archive")
SERVICES = {
    "pagerduty": (
        "PagerDuty: incidents, services and on-call shifts.",
        ["oncall_shift", "incident"],
    ),
    "stripe": ("Stripe payments: customers, charges and refunds.", ["refund", "charge"]),
    "github": ("GitHub repositories, issues and pull requests.", ["issue", "pull_request"]),
    "gmail": ("Gmail mailboxes: messages, threads and drafts.", ["message", "draft"]),
    "drive": ("Google Drive files and folders.", ["file", "folder"]),
    "weather": ("Forecasts and alerts of a weather service.", ["forecast", "alert"]),
}


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
    entries: list[CatalogEntry],
    query: str,
    spaces: dict[str, str] | None = None,
    semantic: bool = False,
) -> list[str]:
    """The word ranking's names for ``query`` (with meaning too when ``semantic``: the
    fusion's own tests are in test_semantic.py)."""
    described = {k: NamespaceEntry(v, "test") for k, v in (spaces or {}).items()}
    index = ToolIndex.of(entries, described, semantic=semantic)
    return [entries[i].name for i in index.search(query, 10)]


def services() -> tuple[list[CatalogEntry], dict[str, str]]:
    """A small catalog shaped like real ones: verb_object tools in described namespaces."""
    entries = []
    for space, (_, things) in SERVICES.items():
        for thing in things:
            for verb in VERBS:
                text = f"{verb.capitalize()} {thing.replace('_', ' ')}s in {space}."
                entries.append(make(f"{verb}_{thing}", text, namespace=space))
    entries.sort(key=lambda e: e.name)
    return entries, {k: v[0] for k, v in SERVICES.items()}


# -- what the index reads ---------------------------------------------------------------------
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


def test_stems_meet_whatever_the_inflection():
    entries = [make("refund_charge", "Refund a charge."), make("list_users", "List users.")]
    assert ranked(entries, "refunded charges")[0] == "refund_charge"
    assert ranked(entries, "listing the user")[0] == "list_users"


def test_identifiers_and_compounds_are_split():
    entries = [
        make("webfetch", "Fetch a web page."),
        make("getOnCallShift", "Who is on call."),
        make("todo_read", "Read the todo list."),
    ]
    assert ranked(entries, "fetch the web")[0] == "webfetch"
    assert ranked(entries, "get on call shift")[0] == "getOnCallShift"
    assert ranked(entries, "oncall")[0] == "getOnCallShift"
    assert ranked(entries, "to-do list")[0] == "todo_read"


def test_synonyms_find_what_the_tools_call_by_another_name():
    entries = [make("delete_file", "Delete a file."), make("list_file", "List files.")]
    assert ranked(entries, "remove a document")[0] == "delete_file"
    assert ranked(entries, "get rid of a doc")[0] == "delete_file"


def test_the_literal_word_beats_its_synonym():
    entries = [make("remove_item", "Remove an item."), make("delete_item", "Delete an item.")]
    assert ranked(entries, "delete the item")[0] == "delete_item"
    assert ranked(entries, "remove the item")[0] == "remove_item"


def test_rare_terms_weigh_more_than_common_ones():
    entries = [make(f"list_{x}", f"List {x}.") for x in ("cats", "dogs", "birds")]
    entries.append(make("export_dogs", "Export dogs as CSV."))
    assert ranked(entries, "export list dogs")[0] == "export_dogs"


# -- people's words on a catalog shaped like real ones -----------------------------------------
@pytest.mark.parametrize(
    "query, wanted",
    [
        ("who is on call this week", {"pagerduty_list_oncall_shift", "pagerduty_get_oncall_shift"}),
        ("undo a payment", {"stripe_create_refund"}),
        ("open a bug report", {"github_create_issue"}),
        ("send an email to someone", {"gmail_create_message"}),
    ],
)
def test_the_requests_of_issue_38_find_their_tools(query, wanted):
    entries, spaces = services()
    assert set(ranked(entries, query, spaces)[:3]) & wanted


def test_the_action_asked_for_picks_among_the_tools_of_one_thing():
    entries, spaces = services()
    assert ranked(entries, "make a refund", spaces)[0] == "stripe_create_refund"
    assert ranked(entries, "throw away a refund", spaces)[0] == "stripe_delete_refund"
    assert ranked(entries, "change the forecast", spaces)[0] == "weather_update_forecast"


def test_a_request_without_an_action_asks_to_see():
    entries, spaces = services()
    top = ranked(entries, "weather alerts", spaces)[:2]
    assert set(top) == {"weather_get_alert", "weather_list_alert"}


def test_a_thing_named_as_the_verb_asks_to_make_it():
    entries, spaces = services()
    assert ranked(entries, "charge a customer", spaces)[0] == "stripe_create_charge"
    assert ranked(entries, "charges", spaces)[0] != "stripe_create_charge"


def test_namespace_descriptions_point_at_their_tools():
    entries, spaces = services()
    assert ranked(entries, "payments", spaces)[0].startswith("stripe_")
    assert ranked(entries, "mailbox drafts", spaces)[0].startswith("gmail_")


# -- order -------------------------------------------------------------------------------------
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


RANK_IN_A_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_ranking import ranked, services
entries, spaces = services()
queries = ["send an email", "weather alerts", "undo a payment", "list", "issues"]
print(json.dumps([ranked(entries, q, spaces) for q in queries]))
"""


def test_results_are_the_same_in_every_process_whatever_the_hash_seed():
    here = str(Path(__file__).parent)
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", RANK_IN_A_CHILD, here],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert all(json.loads(outputs.pop()))


def test_only_the_first_action_word_picks_the_tools_action():
    entries = [
        make("list_playlist", "List playlists."),
        make("get_playlist", "Get a playlist."),
        make("create_playlist", "Create a playlist."),
    ]
    # "reading" and "list" say which playlist, not what to do with it.
    assert ranked(entries, "make a playlist for my reading list")[0] == "create_playlist"
