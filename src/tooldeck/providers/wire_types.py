"""The typed shapes of each wire format: tool definitions out, tool results back.

For a type checker the OpenAI and Anthropic formats *are* the SDKs' own parameter
TypedDicts, so ``client.chat.completions.create(tools=snapshot.definitions_for("openai"))``
type-checks against whichever SDK version is installed (without the SDK they are
``Any``), and results append to a typed message list without casts. At run time no SDK
is imported: the same names are TypedDicts of the keys tooldeck fills, or plain dicts.
Gemini's function declarations and contents and MCP's tools and results are tooldeck's
own TypedDicts of the wire (camelCase) shape (the Gemini SDK validates dicts at run time;
MCP has no client-side ``tools=``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias, TypedDict


# -- definitions (``Snapshot.definitions_for``) ------------------------------------------------
class GeminiFunctionDeclaration(TypedDict):
    """One Gemini function declaration (``types.Tool(function_declarations=[...])``)."""

    name: str
    description: str
    parameters: dict[str, Any]


class MCPTool(TypedDict):
    """One tool of an MCP ``tools/list`` result."""

    name: str
    description: str
    inputSchema: dict[str, Any]
    outputSchema: NotRequired[dict[str, Any]]


if TYPE_CHECKING:
    from anthropic.types import ToolParam as AnthropicTool
    from openai.types.chat import ChatCompletionFunctionToolParam as OpenAITool
    from openai.types.responses import FunctionToolParam as OpenAIResponsesTool
else:

    class OpenAIFunction(TypedDict):
        name: str
        description: str
        parameters: dict[str, Any]
        strict: NotRequired[bool]

    class OpenAITool(TypedDict):
        """One Chat Completions tool: ``{"type": "function", "function": {...}}``."""

        type: Literal["function"]
        function: OpenAIFunction

    class OpenAIResponsesTool(TypedDict):
        """One Responses API function tool (the function's fields are flat)."""

        type: Literal["function"]
        name: str
        description: str
        parameters: dict[str, Any]
        strict: bool

    class AnthropicTool(TypedDict):
        """One Anthropic Messages API tool."""

        name: str
        description: str
        input_schema: dict[str, Any]


# -- results (``results_for``) -----------------------------------------------------------------
class GeminiContent(TypedDict):
    """A Gemini ``Content`` of ``functionResponse`` parts (REST spelling)."""

    role: Literal["user"]
    parts: list[dict[str, Any]]


class MCPCallToolResult(TypedDict):
    """An MCP ``CallToolResult``."""

    content: list[dict[str, Any]]
    isError: bool
    structuredContent: NotRequired[dict[str, Any]]


if TYPE_CHECKING:
    from anthropic.types import MessageParam
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses import ResponseInputItemParam

    OpenAIMessage: TypeAlias = ChatCompletionMessageParam
    OpenAIResponsesItem: TypeAlias = ResponseInputItemParam
    AnthropicMessage: TypeAlias = MessageParam
else:
    OpenAIMessage: TypeAlias = dict[str, Any]
    OpenAIResponsesItem: TypeAlias = dict[str, Any]
    AnthropicMessage: TypeAlias = dict[str, Any]


__all__ = [
    "AnthropicMessage",
    "AnthropicTool",
    "GeminiContent",
    "GeminiFunctionDeclaration",
    "MCPCallToolResult",
    "MCPTool",
    "OpenAIMessage",
    "OpenAIResponsesItem",
    "OpenAIResponsesTool",
    "OpenAITool",
]
