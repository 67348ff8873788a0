"""``tool(fn)`` / ``@tool(...)``: build a ``Tool`` from a typed function.

The input model is derived from the signature (parameter descriptions come from the
docstring's ``Args:`` / ``:param x:`` sections), the description from the docstring's
summary, and the output from the return annotation. A parameter annotated
``ToolContext`` receives the call context instead of model input.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any, overload

from pydantic import BaseModel, Field, TypeAdapter, create_model

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
) -> Callable[[Callable[..., Any]], AnyTool]: ...


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
) -> AnyTool | Callable[[Callable[..., Any]], AnyTool]:
    """Build a ``Tool`` from a typed function (``tool(fn)`` or ``@tool(name=...)``)."""

    def build(func: Callable[..., Any]) -> AnyTool:
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
            execute=_executor(func, context_param, output is not None),
            namespace=namespace,
            codemode=codemode,
            permission=permission,
            pinned=pinned,
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
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=arg_docs.get(param.name)))
    model_name = "".join(part.capitalize() for part in func.__name__.split("_")) + "Input"
    return create_model(model_name, **fields)


def _output_source(annotation: Any) -> Any:
    if annotation in (inspect.Signature.empty, None, type(None), ToolResult):
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return TypeAdapter(annotation)


def _executor(
    func: Callable[..., Any], context_param: str | None, has_output: bool
) -> Callable[[Any, ToolContext], Any]:
    wrap = _wrap_output if has_output else _wrap_content

    if inspect.iscoroutinefunction(func):

        async def run_async(inp: Any, ctx: ToolContext) -> ToolResult:
            kwargs = dict(inp.__dict__)
            if context_param:
                kwargs[context_param] = ctx
            return wrap(await func(**kwargs))

        return run_async

    if context_param is None:

        def run(inp: Any, ctx: ToolContext) -> ToolResult:
            return wrap(func(**inp.__dict__))

        return run

    def run_with_context(inp: Any, ctx: ToolContext) -> ToolResult:
        return wrap(func(**inp.__dict__, **{context_param: ctx}))

    return run_with_context


_NO_METADATA = ToolResult().metadata


def _wrap_output(value: Any) -> ToolResult:
    if value.__class__ is ToolResult:
        return value
    if value.__class__ is str:
        return tuple_new(ToolResult, (value, _NO_METADATA, value))
    return tuple_new(ToolResult, (None, _NO_METADATA, value))


def _wrap_content(value: Any) -> ToolResult:
    if value.__class__ is ToolResult:
        return value
    if value is None:
        return ToolResult("")
    if isinstance(value, str):
        return ToolResult(value)
    from pydantic_core import to_json

    return ToolResult(to_json(value, indent=2).decode())
