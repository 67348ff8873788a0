"""tooldeck-hello: the smallest tool pack there is. Copy this folder to start your own.

A pack is a module with ``@hookimpl`` functions, published under the ``tooldeck``
entry-point group (see ``pyproject.toml``). This one adds a single tool, ``greet``.
"""

from __future__ import annotations

from tooldeck import ToolEditor, hookimpl, tool


# ``@tool`` turns a typed function into a ``tooldeck.Tool``:
#   * the name is the function's name (``greet``);
#   * the description is the docstring's summary;
#   * the input schema comes from the parameters and their types, each described by
#     its ``Args:`` line; defaults make a parameter optional;
#   * the return type (``str``) becomes the declared output, and the returned string
#     is also the text the model reads.
# Tools built this way are code-mode tools by default: when code mode is on, the model
# calls them from a short program through the native ``execute`` tool.
@tool
def greet(name: str, excited: bool = False) -> str:
    """Greet someone by name.

    Args:
        name: Who to greet.
        excited: End the greeting with "!" instead of ".".
    """
    return f"Hello, {name}{'!' if excited else '.'}"


# The hook tooldeck calls to build the catalog. It runs on every replay of the
# catalog, so it only registers what already exists: no I/O, no slow work here.
# (A hook may take any subset of the spec's arguments: ``editor`` and ``location``.)
@hookimpl
def tool_transform(editor: ToolEditor) -> None:
    """Add ``greet`` to the catalog."""
    editor.add(greet)
