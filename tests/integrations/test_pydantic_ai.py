"""``TooldeckToolset`` in real pydantic-ai agent runs, driven by ``FunctionModel``."""

from __future__ import annotations

import json

import pytest
from pydantic_ai import Agent, BinaryContent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tooldeck import Reject, Tool, ToolResult
from tooldeck.integrations.pydantic_ai import METADATA_KEY, TooldeckToolset, answer

from .conftest import LAUNCHED

DECLINED = "The user declined this tool call. Do not retry it; ask the user how to proceed."


class Script:
    """A ``FunctionModel`` that answers with the next scripted response and records the
    tool names it was offered and the tool returns it read (``retries``: those asking the
    model to call again, pydantic-ai's retry prompts)."""

    def __init__(self, *responses):
        self.responses = list(responses)
        self.offered: list[list[str]] = []
        self.returns: list[ToolReturnPart] = []
        self.retries: list[ToolReturnPart] = []

    def __call__(self, messages, info: AgentInfo):
        self.offered.append([tool.name for tool in info.function_tools])
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart):
                (self.retries if part.outcome == "retried" else self.returns).append(part)
        return self.responses.pop(0)

    def agent(self, toolset, **options):
        return Agent(
            FunctionModel(self),
            toolsets=[toolset],
            output_type=[str, DeferredToolRequests],
            **options,
        )


def calls(*parts):
    return ModelResponse(
        parts=[ToolCallPart(name, args, tool_call_id=i) for i, name, args in parts]
    )


DONE = ModelResponse(parts=[TextPart("done")])


async def test_a_two_turn_run_calls_a_pack_tool_and_reads_its_result(host):
    script = Script(calls(("c1", "add", {"a": 2, "b": 3})), DONE)
    result = await script.agent(TooldeckToolset(host)).run("add 2 and 3")
    assert result.output == "done"
    assert script.offered[0] == ["add", "broken", "launch", "photo", "execute"]
    assert [(r.tool_call_id, r.content) for r in script.returns] == [("c1", "5")]


async def test_a_code_mode_program_runs_through_execute(host):
    code = "await tools.mul(a=6, b=7)"
    script = Script(calls(("c1", "execute", {"code": code})), DONE)
    await script.agent(TooldeckToolset(host)).run("multiply")
    assert script.returns[0].content == "42"


async def test_a_failing_tool_gives_the_model_tooldecks_failure_text(host):
    script = Script(calls(("c1", "broken", {})), DONE)
    await script.agent(TooldeckToolset(host)).run("break")
    [failed] = script.returns
    assert (failed.content, failed.outcome) == ("the disk is full", "failed")
    assert script.retries == []  # a failure is not retried


async def test_invalid_arguments_get_pydantic_ais_retry_prompt_with_tooldecks_text(host):
    script = Script(
        calls(("c1", "add", {"a": "x", "b": 1})), calls(("c2", "add", {"a": 1, "b": 1})), DONE
    )
    result = await script.agent(TooldeckToolset(host)).run("add")
    assert result.output == "done"
    [retry] = script.retries
    assert (retry.tool_name, retry.tool_call_id) == ("add", "c1")
    assert retry.content.startswith("Invalid input for tool 'add':")
    assert "- a: 'x' is not of type 'integer'" in retry.content
    assert (retry.retry.cause, retry.retry.attempt, retry.retry.max_retries) == (
        "model_retry",
        1,
        1,  # the agent's default
    )
    assert [(r.tool_call_id, r.content) for r in script.returns] == [("c2", "2")]


async def test_the_agents_retries_limit_applies_to_invalid_arguments(host):
    wrong = [calls((f"c{n}", "add", {"a": "x", "b": 1})) for n in range(4)]
    script = Script(*wrong, DONE)
    with pytest.raises(UnexpectedModelBehavior, match="'add' exceeded max retries count of 2"):
        await script.agent(TooldeckToolset(host), retries=2).run("add")
    assert len(script.retries) == 2  # two retry prompts, then the third refusal ends the run


async def test_invalid_code_mode_arguments_are_retried_too(host):
    script = Script(calls(("c1", "execute", {"program": "1"})), DONE)
    await script.agent(TooldeckToolset(host)).run("run")
    [retry] = script.retries
    assert retry.content.startswith("Invalid input for tool 'execute':")


def test_the_retry_marker_is_how_tooldeck_words_refused_arguments():
    from tooldeck.host.call.path import invalid_input_message
    from tooldeck.integrations.pydantic_ai import _INVALID_INPUT

    text = invalid_input_message("add", {"a": "x"}, [("a", "not an integer")])
    assert text.startswith(_INVALID_INPUT.format(name="add"))


async def test_images_reach_the_model_as_binary_content(host):
    script = Script(calls(("c1", "photo", {})), DONE)
    await script.agent(TooldeckToolset(host)).run("photo")
    text, image = script.returns[0].content
    assert text == "a red pixel"
    assert isinstance(image, BinaryContent) and image.media_type == "image/png"
    assert image.data.startswith(b"\x89PNG")


async def paused(host, script, toolset=None):
    """Run until the ask defers the call; returns the toolset, agent and result."""
    toolset = toolset or TooldeckToolset(host)
    agent = script.agent(toolset)
    result = await agent.run("launch")
    assert isinstance(result.output, DeferredToolRequests)
    return agent, result


async def test_an_ask_defers_the_call_and_approving_runs_it_through_tooldeck(host):
    script = Script(calls(("c1", "launch", {"target": "moon"})), DONE)
    agent, result = await paused(host, script)
    asked = result.output.metadata["c1"][METADATA_KEY]
    assert (asked["action"], asked["resources"]) == ("launch", ["moon"])
    assert LAUNCHED == []
    resumed = await agent.run(
        message_history=result.all_messages(),
        deferred_tool_results=answer(result.output, {"c1": "once"}),
    )
    assert resumed.output == "done"
    assert LAUNCHED == ["moon"]
    assert script.returns[-1].content == "launched moon"


async def test_a_plain_approval_answers_the_ask_once(host):
    script = Script(calls(("c1", "launch", {"target": "moon"})), DONE)
    agent, result = await paused(host, script)
    results = DeferredToolResults(approvals={"c1": True})
    await agent.run(message_history=result.all_messages(), deferred_tool_results=results)
    assert (LAUNCHED, host.pending()) == (["moon"], [])


async def test_always_saves_the_rule_so_the_next_call_does_not_ask(host):
    script = Script(
        calls(("c1", "launch", {"target": "moon"})),
        calls(("c2", "launch", {"target": "moon"})),
        DONE,
    )
    agent, result = await paused(host, script)
    resumed = await agent.run(
        message_history=result.all_messages(),
        deferred_tool_results=answer(result.output, {"c1": "always"}),
    )
    assert resumed.output == "done"
    assert LAUNCHED == ["moon", "moon"]


async def test_rejecting_gives_the_model_tooldecks_decline_text(host):
    script = Script(calls(("c1", "launch", {"target": "moon"})), DONE)
    agent, result = await paused(host, script)
    await agent.run(
        message_history=result.all_messages(),
        deferred_tool_results=answer(result.output, {"c1": "reject"}),
    )
    assert LAUNCHED == []
    assert script.returns[-1].content == DECLINED


async def test_rejecting_with_feedback_passes_the_feedback_on(host):
    script = Script(calls(("c1", "launch", {"target": "moon"})), DONE)
    agent, result = await paused(host, script)
    await agent.run(
        message_history=result.all_messages(),
        deferred_tool_results=answer(result.output, {"c1": Reject("try mars")}),
    )
    assert LAUNCHED == []
    assert "said: try mars" in script.returns[-1].content
    assert script.returns[-1].outcome == "failed"
    assert host.pending() == []


async def test_an_approved_call_resumes_its_pending_call_and_runs_exactly_once(host):
    script = Script(calls(("c1", "launch", {"target": "moon"})), DONE, DONE)
    agent, result = await paused(host, script)
    [waiting] = host.pending()
    asked = result.output.metadata["c1"][METADATA_KEY]
    assert asked["pending_id"] == waiting.id
    assert asked["message"] == "Allow 'launch' on moon?"
    attached = {"stages": 2, "note": "one way to moon", "crew": {"pilots": 1}}
    assert asked["attached"] == attached  # what the user sees before answering
    json.dumps(asked)  # the framework keeps it as JSON
    results = answer(result.output, {"c1": "once"})
    await agent.run(message_history=result.all_messages(), deferred_tool_results=results)
    assert (LAUNCHED, host.pending()) == (["moon"], [])
    # The same approval delivered again (a retried request): the recorded outcome.
    await agent.run(message_history=result.all_messages(), deferred_tool_results=results)
    assert LAUNCHED == ["moon"]
    assert script.returns[-1].content == "launched moon"


async def test_an_ask_inside_a_program_defers_the_execute_call(host):
    code = 'await tools.land(target="mars")'
    script = Script(calls(("c1", "execute", {"code": code})), DONE)
    agent, result = await paused(host, script)
    assert result.output.metadata["c1"][METADATA_KEY]["resources"] == ["mars"]
    await agent.run(
        message_history=result.all_messages(),
        deferred_tool_results=answer(result.output, {"c1": "once"}),
    )
    assert LAUNCHED == ["mars"]
    assert script.returns[-1].content == "launched mars"


async def test_a_second_ask_after_an_approval_defers_again_and_keeps_the_first_answer(host):
    code = 'await tools.land(target="mars")\nawait tools.land(target="venus")'
    script = Script(calls(("c1", "execute", {"code": code})), DONE)
    agent, first = await paused(host, script)
    second = await agent.run(
        message_history=first.all_messages(),
        deferred_tool_results=answer(first.output, {"c1": "once"}),
    )
    assert second.output.metadata["c1"][METADATA_KEY]["resources"] == ["venus"]
    await agent.run(
        message_history=second.all_messages(),
        deferred_tool_results=answer(second.output, {"c1": "once"}),
    )
    assert LAUNCHED == ["mars", "mars", "venus"]  # the program ran again from the start


async def test_a_reply_that_is_not_tooldecks_is_refused_naming_the_call(host):
    script = Script(calls(("c1", "launch", {"target": "moon"})), DONE)
    agent, result = await paused(host, script)
    pending_id = result.output.metadata["c1"][METADATA_KEY]["pending_id"]
    bad = DeferredToolResults(
        approvals={"c1": True},
        metadata={"c1": {METADATA_KEY: {"pending_id": pending_id, "reply": "maybe"}}},
    )
    with pytest.raises(ValueError, match=r"tool call c1 metadata: 'maybe' is not a"):
        await agent.run(message_history=result.all_messages(), deferred_tool_results=bad)
    assert LAUNCHED == []


def test_answer_refuses_a_call_that_is_not_awaiting_approval():
    with pytest.raises(KeyError, match="'c9' is not a call awaiting approval"):
        answer(DeferredToolRequests(), {"c9": "once"})


async def test_a_catalog_change_reaches_the_next_run(host):
    toolset = TooldeckToolset(host)
    script = Script(DONE, calls(("c1", "sub", {"a": 5, "b": 2})), DONE)
    await script.agent(toolset).run("first")
    host.service.transform(
        lambda editor: editor.add(
            Tool(
                name="sub",
                description="Subtract.",
                input={"type": "object", "properties": {"a": {}, "b": {}}},
                execute=lambda args, ctx: ToolResult(str(args["a"] - args["b"])),
                codemode=False,
            )
        ),
        source="later",
    )
    await script.agent(toolset).run("second")
    assert "sub" not in script.offered[0] and "sub" in script.offered[1]
    assert script.returns[-1].content == "3"


async def test_tools_are_taken_afresh_at_every_step_of_a_run(host):
    script = Script(calls(("c1", "add", {"a": 1, "b": 1})), DONE)
    toolset = TooldeckToolset(host)

    def model(messages, info):
        if len(messages) == 1:  # between the two steps, a pack's tool goes away
            host.service.transform(lambda editor: editor.remove("broken"), source="later")
        return script(messages, info)

    await Agent(FunctionModel(model), toolsets=[toolset]).run("add")
    assert "broken" in script.offered[0] and "broken" not in script.offered[1]


async def test_a_session_per_run_is_open_during_the_run_only(host):
    seen = []

    def model(messages, info):
        seen.append(host.service.sessions)
        return DONE

    agent = Agent(FunctionModel(model), toolsets=[TooldeckToolset(host, session=True)])
    result = await agent.run("hi")
    assert seen == [(f"pydantic-ai-{result.run_id}",)]
    assert host.service.sessions == ()


async def test_a_named_session_sees_its_own_tools(host):
    host.session("s1").transform(
        lambda editor: editor.remove("add"),
        source="session",
    )
    script = Script(DONE, DONE)
    await script.agent(TooldeckToolset(host, session="s1")).run("hi")
    await script.agent(TooldeckToolset(host)).run("hi")
    assert "add" not in script.offered[0] and "add" in script.offered[1]


def test_a_session_of_the_wrong_type_is_refused(host):
    with pytest.raises(TypeError, match="expected None, True or a session id, got 3"):
        TooldeckToolset(host, session=3)
