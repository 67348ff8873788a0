"""Completions for prompt arguments and template variables: values by prefix, or a
function's answer, capped at MCP's hundred."""

from __future__ import annotations

import asyncio

from tooldeck import Location, Prompt, PromptArgument, ResourceTemplate, ToolService
from tooldeck.host.features.completion import Completion, complete_prompt, complete_template


def service(tmp_path):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    cities = PromptArgument("city", complete=["Paris", "Park", "Rome"])
    numbered = PromptArgument("n", complete=lambda typed: [f"{typed}{i}" for i in range(150)])
    prompt = Prompt("trip", "Plan.", [cities, numbered, PromptArgument("plain")], render=str)
    template = ResourceTemplate(
        "notes://{name}", "note", read=lambda p, c: "", complete={"name": ["todo", "today"]}
    )
    service.transform(lambda e: (e.add_prompt(prompt), e.add_resource(template)), source="p")
    return service.snapshot()


def run(coroutine):
    return asyncio.run(coroutine)


def test_values_starting_with_what_was_typed(tmp_path):
    snapshot = service(tmp_path)
    assert run(complete_prompt(snapshot, "trip", "city", "pa")) == Completion(
        ("Paris", "Park"), 2, False
    )
    assert run(complete_template(snapshot, "notes://{name}", "name", "tod")).values == (
        "todo",
        "today",
    )


def test_a_function_answers_and_the_answer_is_capped(tmp_path):
    completion = run(complete_prompt(service(tmp_path), "trip", "n", "x"))
    assert len(completion.values) == 100 and completion.total == 150 and completion.has_more


def test_nothing_declared_or_unknown_offers_nothing(tmp_path):
    snapshot = service(tmp_path)
    assert run(complete_prompt(snapshot, "trip", "plain", "a")).values == ()
    assert run(complete_prompt(snapshot, "nope", "city", "a")).values == ()
    assert run(complete_template(snapshot, "notes://{other}", "name", "a")).values == ()
