"""tooldeck-todo: a todo list that belongs to one conversation.

The model plans multi-step work with ``todo_write`` and checks it with ``todo_read``.
Each session (``host.session(id)``: one conversation) has its own list. The tools come
from the ``session_transform`` hook, so they exist only in that session's snapshots.
The list lives in the hook's ``state``, the pack's own dict in that session: the same
list on every replay, a separate one in every session and every Host, and gone when the
session closes, so an id opened again starts with an empty list.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from tooldeck import Tool, ToolContext, ToolEditor, ToolResult, hookimpl

Status = Literal["pending", "in_progress", "completed"]
MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


class TodoItem(BaseModel):
    """One step of the plan."""

    content: str = Field(min_length=1, description="What to do, in a few words.")
    status: Status = Field(default="pending", description="Where the step stands.")


class TodoWriteInput(BaseModel):
    todos: list[TodoItem] = Field(
        description="The whole list, in order. It replaces the previous list."
    )


class TodoList:
    """One session's todos: kept in the session's state, bound into its two tools."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: tuple[TodoItem, ...] = ()

    def write(self, input: TodoWriteInput, ctx: ToolContext) -> ToolResult:
        self.items = tuple(input.todos)
        return self.read(None, ctx)

    def read(self, input: object, ctx: ToolContext) -> ToolResult:
        metadata = {"todos": [item.model_dump() for item in self.items]}
        return ToolResult(content=self.render(), metadata=metadata)

    def render(self) -> str:
        if not self.items:
            return "The todo list is empty."
        return "\n".join(
            f"{n}. {MARKS[item.status]} {item.content}" for n, item in enumerate(self.items, 1)
        )

    def tools(self) -> tuple[Tool[TodoWriteInput, None], Tool[object, None]]:
        """This list's two tools. Both are native (``codemode=False``): models are
        trained to keep a todo list by calling such tools directly."""
        write: Tool[TodoWriteInput, None] = Tool(
            name="todo_write",
            description=WRITE,
            input=TodoWriteInput,
            execute=self.write,
            codemode=False,
        )
        read: Tool[object, None] = Tool(
            name="todo_read", description=READ, execute=self.read, codemode=False
        )
        return write, read


WRITE = (
    "Write the todo list of this conversation: plan multi-step work as steps, then mark "
    "each step in_progress and completed as you go. Send the whole list every time."
)
READ = "Read the todo list of this conversation."


@hookimpl
def session_transform(editor: ToolEditor, state: dict[str, Any]) -> None:
    """Add ``todo_write`` and ``todo_read`` bound to this session's list.

    The hook may run again for the same session (a reload, say): the list is created
    on the first run and found in ``state`` on the next ones.
    """
    todos = state.get("todos")
    if todos is None:
        todos = state["todos"] = TodoList()
    for tool in todos.tools():
        editor.add(tool)
