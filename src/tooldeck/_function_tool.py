"""``tool(fn)`` / ``@tool(...)``: build a ``Tool`` from a typed function.

The input model is derived from the signature as pydantic's ``validate_call`` derives
it (a ``Field(...)`` default is the parameter's spec; descriptions a ``Field`` leaves out
come from the docstring's ``Args:`` / ``:param x:`` sections), the description from the
docstring's summary, and the output from the return annotation. A parameter annotated
``ToolContext`` receives the call context instead of model input.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, overload

from pydantic import BaseModel, ConfigDict, Field, create_model

from tooldeck._public import public
from tooldeck._tool import AnyTool, Tool, ToolContext, ToolResult, tuple_new

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns|Raises|Yields)\s*:?\s*$")
_GOOGLE_ARG = re.compile(r"^\s{0,8}(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_ARG = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


@overload
def tool(fn: Callable[..., Any], /) -> AnyTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    codemode: bool = True,
    permission: str | None = None,
    pinned: bool = False,
    defer_loading: bool = False,
) -> Callable[[Callable[..., Any]], AnyTool]: ...


@overload
def tool(
    fn: Callable[..., Any],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    codemode: bool = True,
    permission: str | None = None,
    pinned: bool = False,
    defer_loading: bool = False,
) -> AnyTool: ...


@public
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    codemode: bool = True,
    permission: str | None = None,
    pinned: bool = False,
    defer_loading: bool = False,
) -> AnyTool | Callable[[Callable[..., Any]], AnyTool]:
    """Build a ``Tool`` from a typed function (``tool(fn)`` or ``@tool(name=...)``)."""

    def build(func: Callable[..., Any]) -> AnyTool:
        if isinstance(func, Tool) or not callable(func):
            what = "a Tool already" if isinstance(func, Tool) else type(func).__name__
            raise TypeError(f"tool() takes a typed function, got {func!r} ({what})")
        summary, arg_docs = parse_docstring(inspect.getdoc(func) or "")
        hints = typing.get_type_hints(func, include_extras=True)
        signature = inspect.signature(func)
        context_param = _context_parameter(signature, hints)
        model = _input_model(func, signature, hints, arg_docs, context_param)
        output = _output_source(hints.get("return", inspect.Signature.empty))
        return Tool(
            name=name or func.__name__,
            description=description or summary,
            input=model,
            output=output,
            execute=FunctionExecutor(func, model, context_param, output is not None),
            namespace=namespace,
            codemode=codemode,
            permission=permission,
            pinned=pinned,
            defer_loading=defer_loading,
        )

    return build(fn) if fn is not None else build


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a docstring into its summary and per-argument descriptions."""
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in doc.splitlines():
        sphinx = _SPHINX_ARG.match(line)
        if sphinx:
            current, args[sphinx[1]] = sphinx[1], sphinx[2].strip()
            section = "sphinx"
            continue
        header = _SECTION.match(line)
        if header:
            section, current = header[1].lower(), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("args", "arguments", "parameters", "params"):
            current = _doc_arg_line(line, args, current)
        elif section == "sphinx" and current and line.strip() and not line.lstrip().startswith(":"):
            args[current] = f"{args[current]} {line.strip()}"
    return "\n".join(summary).strip(), args


def _doc_arg_line(line: str, args: dict[str, str], current: str | None) -> str | None:
    match = _GOOGLE_ARG.match(line)
    if (
        match
        and len(line) - len(line.lstrip()) <= 8
        and not (current and len(line) - len(line.lstrip()) > 4)
    ):
        key = match[1].lstrip("*")
        args[key] = match[2].strip()
        return key
    if current and line.strip():
        args[current] = f"{args[current]} {line.strip()}".strip()
    return current


def _context_parameter(signature: inspect.Signature, hints: dict[str, Any]) -> str | None:
    for param in signature.parameters.values():
        if hints.get(param.name) is ToolContext:
            return param.name
    return None


def _input_model(
    func: Callable[..., Any],
    signature: inspect.Signature,
    hints: dict[str, Any],
    arg_docs: dict[str, str],
    context_param: str | None,
) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.name == context_param:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool({func.__name__}): *args/**kwargs cannot become tool input")
        annotation = _described(hints.get(param.name, Any), arg_docs.get(param.name))
        fields[param.name] = (annotation, ... if param.default is param.empty else param.default)
    model_name = "".join(part.capitalize() for part in func.__name__.split("_")) + "Input"
    # Closed as its schema is: a misspelt argument is refused, not dropped.
    return create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)


def _described(annotation: Any, doc: str | None) -> Any:
    """``annotation`` with the docstring's description as its first, weakest ``Field``.

    The parameter's default becomes the field's default as a class attribute would, so a
    ``Field(...)`` default is the field's spec (default or factory, constraints, alias,
    description), merged with any ``Annotated[..., Field(...)]`` after this one: a
    description given in a ``Field`` wins over the docstring's.
    """
    if doc is None:
        return annotation
    if typing.get_origin(annotation) is Annotated:
        return Annotated[(annotation.__origin__, Field(description=doc), *annotation.__metadata__)]
    return Annotated[annotation, Field(description=doc)]


def _output_source(annotation: Any) -> Any:
    if annotation in (inspect.Signature.empty, None, type(None), ToolResult):
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    from pydantic import TypeAdapter  # deferred: the execution boundary imports this module

    return TypeAdapter(annotation)


class FunctionExecutor:
    """The ``execute`` of a ``tool(fn)`` tool: ``fn`` with the input's fields as arguments.

    ``tool.execute(input, ctx)`` calls ``function`` with the fields of ``input`` (an
    instance of ``model``) as keyword arguments, plus ``ctx`` as ``context_parameter``
    if the function takes one, and makes its return value a ``ToolResult`` (``wrap``).
    The execution boundary takes a shorter way for a tool whose input is still ``model``:
    ``arguments`` turns the call's JSON text into the keyword arguments at once.
    """

    __slots__ = ("arguments", "context_parameter", "function", "is_async", "model", "wrap")

    def __init__(
        self,
        function: Callable[..., Any],
        model: type[BaseModel],
        context_parameter: str | None,
        has_output: bool,
    ) -> None:
        self.function = function
        self.model = model
        self.context_parameter = context_parameter
        self.is_async = inspect.iscoroutinefunction(function)
        self.wrap: Callable[[Any], ToolResult] = wrap_output if has_output else _wrap_content
        # JSON text or a mapping -> the keyword arguments validating into ``model`` gives:
        # the execution boundary's fast path, built at the first call
        # (``host/call/arguments.py``).
        self.arguments: Callable[[Any], dict[str, Any]] | None = None

    def __call__(self, inp: Any, ctx: ToolContext) -> ToolResult | Awaitable[ToolResult]:
        if self.context_parameter is None:
            return self.call(inp.__dict__)
        return self.call({**inp.__dict__, self.context_parameter: ctx})

    def call(self, arguments: dict[str, Any]) -> ToolResult | Awaitable[ToolResult]:
        """``function(**arguments)`` as a ``ToolResult`` (awaitable for ``async def``)."""
        if self.is_async:
            return self._call_async(arguments)
        return self.wrap(self.function(**arguments))

    async def _call_async(self, arguments: dict[str, Any]) -> ToolResult:
        return self.wrap(await self.function(**arguments))

    def __repr__(self) -> str:
        return f"FunctionExecutor({self.function.__qualname__})"


NO_METADATA = ToolResult().metadata


def wrap_output(value: Any) -> ToolResult:
    """A tool with a declared output: the value is the output (and the content if a str)."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return tuple_new(ToolResult, (value, NO_METADATA, value))
    return tuple_new(ToolResult, (None, NO_METADATA, value))


def _wrap_content(value: Any) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult("")
    if isinstance(value, str):
        return ToolResult(value)
    from pydantic_core import to_json

    return ToolResult(to_json(value, indent=2).decode())
