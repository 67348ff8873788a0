"""``pack_from_toolset``: a pydantic-ai ``FunctionToolset`` as a tooldeck plugin object.

Each function tool becomes a tooldeck ``Tool`` with the JSON Schema pydantic-ai derived
for it, so it joins the catalog like any pack's tool: namespaced, overridden, asked
for, callable from code mode. tooldeck validates the arguments against that schema;
pydantic-ai's own validator then turns them into the function's arguments (models,
coercions) exactly as in an agent run. ``ModelRetry`` and ``ToolFailed`` from the
function become ``ToolFailure``, the failure the model reads. A tool marked
``requires_approval`` asks tooldeck's permission (its effective name, resource ``*``)
before it runs, so tooldeck's rules and asker decide what pydantic-ai's approval would.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pydantic_core
from pydantic_ai import ModelRetry, ToolFailed, ToolReturn
from pydantic_ai.toolsets import FunctionToolset

from tooldeck import Tool, ToolContext, ToolFailure, ToolResult, hookimpl


class ToolsetPack:
    """A plugin object carrying a ``FunctionToolset``'s tools (``Host.open(plugins=[...])``).

    ``__name__`` is the plugin's name in the load report.
    """

    def __init__(self, tools: tuple[Tool[Any, Any], ...], name: str) -> None:
        self.__name__ = name
        self.tools = tools

    @hookimpl
    def tool_transform(self, editor: Any) -> None:
        for tool in self.tools:
            editor.add(tool)

    def __repr__(self) -> str:
        return f"<tooldeck pack {self.__name__!r} from a pydantic-ai FunctionToolset>"


def pack_from_toolset(
    toolset: FunctionToolset[Any],
    *,
    name: str,
    namespace: str | None = None,
    codemode: bool = True,
) -> ToolsetPack:
    """A tooldeck plugin object whose tools are ``toolset``'s function tools.

    ``namespace`` and ``codemode`` apply to every tool. A tool that needs a
    ``RunContext`` (its function takes one, or it has a ``prepare`` function or an
    ``args_validator``) is refused here: tooldeck calls tools outside any agent run, so
    it has no run context to pass.
    """
    if not isinstance(toolset, FunctionToolset):
        raise TypeError(
            f"pack_from_toolset({name!r}): expected a pydantic-ai FunctionToolset, "
            f"got {type(toolset).__name__}"
        )
    tools = []
    for tool_name, tool in toolset.tools.items():
        needs = _run_context_need(tool)
        if needs:
            raise ValueError(
                f"pack_from_toolset({name!r}): tool {tool_name!r} {needs}; tooldeck calls "
                "tools outside an agent run and has no RunContext to give it"
            )
        # The action asked for a ``requires_approval`` tool: its effective name, set
        # explicitly so that the catalog's action and the ask agree.
        action = f"{namespace.replace('.', '_')}_{tool_name}" if namespace else tool_name
        tools.append(
            Tool(
                name=tool_name,
                description=tool.description or tool_name,
                input=dict(tool.function_schema.json_schema),
                execute=_executor(tool.function_schema, tool_name, tool.requires_approval, action),
                namespace=namespace,
                codemode=codemode,
                permission=action,
            )
        )
    return ToolsetPack(tuple(tools), name)


def _run_context_need(tool: Any) -> str:
    """Why ``tool`` needs a ``RunContext`` ("" when it does not)."""
    if tool.takes_ctx:
        return "takes a RunContext"
    if tool.prepare is not None:
        return "has a prepare function (it takes a RunContext)"
    if tool.args_validator is not None:
        return "has an args_validator (it takes a RunContext)"
    return ""


def _executor(schema: Any, tool_name: str, ask: bool, action: str) -> Any:
    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if ask:
            await ctx.permission.assert_(action, ["*"])
        try:
            validated = schema.validator.validate_python(args)
            returned = await schema.call(validated, None)
        except pydantic.ValidationError as exc:
            raise ToolFailure(f"Invalid arguments for {tool_name!r}: {exc}", cause=exc) from exc
        except (ModelRetry, ToolFailed) as exc:
            raise ToolFailure(exc.message, cause=exc) from exc
        if isinstance(returned, ToolReturn):
            returned = returned.return_value
        if isinstance(returned, str):
            return ToolResult(content=returned)
        return ToolResult(content=pydantic_core.to_json(returned).decode())

    return execute
