"""``pack_from_toolset``: a pydantic-ai ``FunctionToolset`` as a tooldeck plugin object.

Each function tool becomes a tooldeck ``Tool`` with the JSON Schema pydantic-ai derived
for it, so it joins the catalog like any pack's tool: namespaced, overridden, asked
for, callable from code mode. tooldeck validates the arguments against that schema;
pydantic-ai's own validator then turns them into the function's arguments (models,
coercions) exactly as in an agent run. ``ModelRetry`` and ``ToolFailed`` from the
function become ``ToolFailure``, the failure the model reads.
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

    ``namespace`` and ``codemode`` apply to every tool. A tool whose function takes a
    ``RunContext`` is refused here: tooldeck calls tools outside any agent run, so it
    has no run context to pass.
    """
    if not isinstance(toolset, FunctionToolset):
        raise TypeError(
            f"pack_from_toolset({name!r}): expected a pydantic-ai FunctionToolset, "
            f"got {type(toolset).__name__}"
        )
    tools = []
    for tool_name, tool in toolset.tools.items():
        if tool.takes_ctx:
            raise ValueError(
                f"pack_from_toolset({name!r}): tool {tool_name!r} takes a RunContext; "
                "tooldeck calls tools outside an agent run and has none to give it"
            )
        tools.append(
            Tool(
                name=tool_name,
                description=tool.description or tool_name,
                input=dict(tool.function_schema.json_schema),
                execute=_executor(tool.function_schema, tool_name),
                namespace=namespace,
                codemode=codemode,
            )
        )
    return ToolsetPack(tuple(tools), name)


def _executor(schema: Any, tool_name: str) -> Any:
    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
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
