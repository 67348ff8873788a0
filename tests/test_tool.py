from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path

import pytest

import tooldeck
from tooldeck import FrozenToolError, Tool, ToolFailure, ToolResult


def run(inp, ctx):
    return ToolResult("ok")


def test_tool_is_frozen_and_replace_copies():
    original = Tool(name="read", description="Read.", execute=run)
    with pytest.raises(FrozenToolError, match=r"use tool\.replace\(name=\.\.\.\)"):
        original.name = "x"  # type: ignore[misc]
    with pytest.raises(FrozenToolError):
        del original.name  # type: ignore[misc]
    changed = original.replace(description="Changed.", codemode=False)
    assert (changed.name, changed.description, changed.codemode) == ("read", "Changed.", False)
    assert original.description == "Read." and original.codemode is True


def test_tool_never_validates_when_constructed():
    broken = Tool(name="", description=None, execute=None, input=42)  # type: ignore[arg-type]
    assert broken.input == 42


def test_tool_defaults_match_the_contract():
    t = Tool(name="x", description="d", execute=run)
    assert (t.input, t.output, t.namespace, t.codemode, t.permission, t.pinned) == (
        None,
        None,
        None,
        True,
        None,
        False,
    )


def test_tool_equality_is_identity():
    a = Tool(name="x", description="d", execute=run)
    assert a == a and a != a.replace()


def test_tool_result_defaults():
    result = ToolResult("text")
    assert (result.content, dict(result.metadata), result.output) == ("text", {}, None)


def test_tool_failure_keeps_message_cause_and_metadata():
    cause = OSError("disk")
    failure = ToolFailure("could not read", cause=cause, metadata={"path": "a"})
    assert str(failure) == "could not read"
    assert failure.cause is cause and failure.__cause__ is cause
    assert failure.metadata == {"path": "a"}
    assert isinstance(failure, Exception)


def test_replace_rejects_unknown_fields_and_repr_shows_fields():
    original = Tool(name="read", description="Read.", execute=run)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nme'"):
        original.replace(nme="x")
    assert repr(original).startswith("Tool(name='read', description='Read.'")


def test_the_registry_cache_slot_is_no_field_of_the_tool():
    original = Tool(name="read", description="Read.", execute=run)
    object.__setattr__(original, "_record", "cached")
    assert "_record" not in repr(original) and "cached" not in repr(original)
    assert original.replace(description="Other.")._record is None
    with pytest.raises(TypeError, match="_record"):
        Tool(name="read", description="Read.", execute=run, _record="x")  # type: ignore[call-arg]
    with pytest.raises((ValueError, TypeError), match="_record"):  # TypeError on 3.13+
        original.replace(_record="x")


@pytest.mark.slow
def test_tool_generics_infer_from_input_and_output_under_mypy(tmp_path):
    """``tests/typing/tool_generics.py``: no annotations needed, the executor still checked."""
    snippet = Path(__file__).parent / "typing" / "tool_generics.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--warn-unused-ignores",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(snippet),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# -- the context's conversation: log, elicit, sample ---------------------------------------


class RecordingPeer:
    """A host's own peer: what a tool logs, asks and samples reaches it."""

    def __init__(self):
        self.logs = []

    def log(self, level, message):
        self.logs.append((level, message))

    async def elicit(self, message, schema):
        return tooldeck.Elicited("accept", {"name": f"answer to {message}"})

    async def sample(self, messages, max_tokens, options):
        return tooldeck.TextPart(f"{len(messages)} messages, {max_tokens} tokens, {options}")


def conversing(input, ctx):
    async def run():
        ctx.log("info", "started")
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {}})
        sampled = await ctx.sample([{"role": "user", "content": "hi"}], max_tokens=5, temperature=0)
        return tooldeck.ToolResult(f"{answer.content['name']}; {sampled.text}")

    return run()


def test_a_peer_given_to_the_scope_hears_logs_questions_and_samples(tmp_path):
    service = tooldeck.ToolService(tooldeck.Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(
        lambda e: e.add(tooldeck.Tool(name="talk", description="Talk.", execute=conversing)),
        source="t",
    )
    snapshot, peer = service.snapshot(), RecordingPeer()
    outcome = asyncio.run(
        tooldeck.run_tool_call(
            snapshot, tooldeck.ToolCall("c1", "talk"), scope=snapshot.scope(peer=peer)
        )
    )
    assert outcome.content[0].text == "answer to Name?; 1 messages, 5 tokens, {'temperature': 0}"
    assert peer.logs == [("info", "started")]


def test_without_a_peer_logs_go_to_python_logging_and_asking_fails_clearly(tmp_path, caplog):
    service = tooldeck.ToolService(tooldeck.Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(
        lambda e: e.add(tooldeck.Tool(name="talk", description="Talk.", execute=conversing)),
        source="t",
    )
    with caplog.at_level(logging.INFO, logger="tooldeck.tool"):
        outcome = asyncio.run(
            tooldeck.run_tool_call(service.snapshot(), tooldeck.ToolCall("c1", "talk"))
        )
    assert [r.getMessage() for r in caplog.records if r.name == "tooldeck.tool"] == ["started"]
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert "ask the user (ctx.elicit)" in outcome.content[0].text
    assert "served over MCP" in outcome.content[0].text


def test_log_refuses_a_level_mcp_does_not_name(tmp_path):
    ctx = tooldeck.ToolContext(tooldeck.Location(tmp_path, data_dir=tmp_path / "data"))
    with pytest.raises(ValueError, match="debug, info, notice"):
        ctx.log("verbose", "x")


def test_a_url_question_needs_a_peer_that_offers_urls(tmp_path):
    location = tooldeck.Location(tmp_path, data_dir=tmp_path / "data")

    async def ask(ctx):
        return await ctx.elicit_url("Sign in", "https://example.com/in", elicitation_id="e1")

    with pytest.raises(tooldeck.ToolFailure, match=r"send the user to a URL \(ctx.elicit_url\)"):
        asyncio.run(ask(tooldeck.ToolContext(location)))
    forms_only = tooldeck.ToolContext(location, peer=RecordingPeer())
    with pytest.raises(tooldeck.ToolFailure, match=r"ctx\.elicit_url"):
        asyncio.run(ask(forms_only))
    forms_only.elicitation_complete("e1")  # no one to tell: nothing happens

    class UrlPeer(RecordingPeer):
        async def elicit_url(self, message, url, elicitation_id):
            self.logs.append(("url", f"{message} {url} {elicitation_id}"))
            return tooldeck.Elicited("accept")

        def elicitation_complete(self, elicitation_id):
            self.logs.append(("complete", elicitation_id))

    peer = UrlPeer()
    ctx = tooldeck.ToolContext(location, peer=peer)
    assert asyncio.run(ask(ctx)) == tooldeck.Elicited("accept", None)
    ctx.elicitation_complete("e1")
    assert peer.logs == [("url", "Sign in https://example.com/in e1"), ("complete", "e1")]
