"""The types ``results_for`` returns, per format: what each SDK takes back.

As for definitions, a type checker sees the SDKs' own parameter types for the OpenAI
and Anthropic formats (``Any`` without the SDK), so results append to a typed message
list without casts; at run time they are plain dicts and no SDK is imported. Gemini
contents and MCP results are tooldeck's own TypedDicts of the wire (camelCase) shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias, TypedDict


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
