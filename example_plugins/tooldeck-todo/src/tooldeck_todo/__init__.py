"""tooldeck-todo: a todo list that belongs to one conversation.

The model plans multi-step work with ``todo_write`` and checks it with ``todo_read``.
Each session (``host.session(id)``: one conversation) has its own list. The tools come
from the ``session_transform`` hook, so they exist only in that session's snapshots,
and each session's tools hold that session's list: closing the session drops them, and
the list with them.
"""

from __future__ import annotations

import weakref
from typing import Literal

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
    """One session's todos: held only by that session's two tools."""

    __slots__ = ("__weakref__", "items")

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
            name="todo_write", description=WRITE, input=TodoWriteInput, execute=self.write,
            codemode=False)
        read: Tool[object, None] = Tool(
            name="todo_read", description=READ, execute=self.read, codemode=False)
        return write, read


WRITE = (
    "Write the todo list of this conversation: plan multi-step work as steps, then mark "
    "each step in_progress and completed as you go. Send the whole list every time."
)
READ = "Read the todo list of this conversation."

# Per-session state, keyed by session id so that a replay (the hook may run again)
# finds the same list. Weak: the session's tools are what keep a list alive.
_lists: weakref.WeakValueDictionary[str, TodoList] = weakref.WeakValueDictionary()


def todo_list(session_id: str) -> TodoList | None:
    """The list of ``session_id`` while that session's tools exist (for hosts and tests)."""
    return _lists.get(session_id)


@hookimpl
def session_transform(editor: ToolEditor, session_id: str) -> None:
    """Add ``todo_write`` and ``todo_read`` bound to this session's list."""
    todos = _lists.get(session_id)
    if todos is None:
        todos = _lists[session_id] = TodoList()
    for tool in todos.tools():
        editor.add(tool)
