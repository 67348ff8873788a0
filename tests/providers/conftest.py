"""A catalog whose tools answer with text, an image, a PDF, a failure and a decline, and
``accepted(type, value)``: does an SDK's own parameter type take ``value`` exactly?

The tests here import the provider SDKs inside the tests that use them: imported at a
module's top, they would load in every xdist worker as it collects, whichever tests it
then runs (anthropic's and google-genai's types, about 2 s of CPU per worker)."""

from __future__ import annotations

import collections.abc
import inspect
import io
import types
import typing

import pytest
from PIL import Image

from tooldeck import (
    FilePart,
    ImagePart,
    Location,
    PermissionDeclined,
    TextPart,
    Tool,
    ToolFailure,
    ToolResult,
    ToolService,
)

PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 2), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


PNG = png_bytes()

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "units": {"type": "string", "enum": ["C", "F"]}},
    "required": ["city"],
}


def weather(input, ctx):
    return ToolResult(
        f"{input['city']}: 21 {input.get('units', 'C')}",
        output={"city": input["city"], "celsius": 21},
    )


def photo(input, ctx):
    return ToolResult([TextPart("the photo:"), ImagePart(PNG, "image/png")])


def report(input, ctx):
    return ToolResult(
        [
            FilePart(PDF, "application/pdf", "report.pdf"),
            FilePart(b"a,b\n1,2\n", "text/csv", "data.csv"),
            FilePart(b"\x00\x01", "application/octet-stream", "blob.bin"),
        ]
    )


def broken(input, ctx):
    raise ToolFailure("The disk is full. Free some space and try again.")


def refused(input, ctx):
    raise PermissionDeclined("no")


TOOLS = [
    Tool(
        name="weather",
        description="The weather in a city.",
        input=CITY,
        execute=weather,
        output={
            "type": "object",
            "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
        },
        codemode=False,
    ),
    Tool(name="photo", description="Take a photo.", execute=photo, codemode=False),
    Tool(name="report", description="Write a report.", execute=report, codemode=False),
    Tool(name="broken", description="Always fails.", execute=broken, codemode=False),
    Tool(name="refused", description="Always declined.", execute=refused, codemode=False),
]


@pytest.fixture
def service(tmp_path):
    service = ToolService(Location(tmp_path / "project", data_dir=tmp_path / "data"))
    service.transform(lambda editor: [editor.add(t) for t in TOOLS], source="test")
    return service


@pytest.fixture
def snapshot(service):
    return service.snapshot()


def accepted(kind, value, where="value"):
    """Assert that the SDK parameter type ``kind`` (a TypedDict, union, literal, ...)
    takes ``value`` exactly: every required key present, no key it does not declare,
    every literal and scalar of the declared type. Returns ``value``."""
    problem = _mismatch(kind, value, where)
    assert problem is None, problem
    return value


def _mismatch(kind, value, where):
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Required, typing.NotRequired, typing.Annotated):
        return _mismatch(args[0], value, where)
    if kind is typing.Any or kind is object:
        return None
    if isinstance(kind, type) and hasattr(kind, "__required_keys__"):  # any TypedDict
        return _typeddict_mismatch(kind, value, where)
    if origin in (typing.Union, types.UnionType):
        problems = [_mismatch(arm, value, where) for arm in args]
        return None if None in problems else f"{where}: no arm of {kind} fits: {problems}"
    if origin is typing.Literal:
        return None if value in args else f"{where}: {value!r} is not one of {args}"
    if kind is type(None):
        return None if value is None else f"{where}: expected None, got {value!r}"
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence) or (
        getattr(kind, "__name__", "") == "SequenceNotStr"
    ):
        if not isinstance(value, list | tuple):
            return f"{where}: expected a list, got {type(value).__name__}"
        item = args[0] if args else typing.Any
        problems = (_mismatch(item, v, f"{where}[{i}]") for i, v in enumerate(value))
        return next((p for p in problems if p), None)
    if origin in (dict, collections.abc.Mapping):
        return None if isinstance(value, dict) else f"{where}: expected a dict, got {value!r}"
    if isinstance(kind, type):
        if kind is float and isinstance(value, int):
            return None
        if isinstance(value, kind):
            return None
        return f"{where}: expected {kind.__name__}, got {value!r}"
    return f"{where}: cannot check {kind!r}"


def _typeddict_mismatch(kind, value, where):
    if not isinstance(value, dict):
        return f"{where}: expected a {kind.__name__} dict, got {type(value).__name__}"
    hints = typing.get_type_hints(kind, include_extras=True)
    unknown = sorted(set(value) - set(hints))
    if unknown:
        return f"{where}: {kind.__name__} has no key {unknown}"
    # Required/NotRequired hide in string annotations: __required_keys__ misses them.
    marked = {key: typing.get_origin(hint) for key, hint in hints.items()}
    required = {k for k in kind.__required_keys__ if marked[k] is not typing.NotRequired}
    required |= {k for k, origin in marked.items() if origin is typing.Required}
    missing = sorted(required - set(value))
    if missing:
        return f"{where}: {kind.__name__} needs {missing}"
    return next(
        (p for key, item in value.items() if (p := _mismatch(hints[key], item, f"{where}.{key}"))),
        None,
    )


@pytest.fixture(name="accepted")
def accepted_fixture():
    """``accepted(type, value)`` (see the module docstring)."""
    return accepted


@pytest.fixture
def media():
    """The bytes the tools attach: ``media.png``, ``media.pdf``."""
    return type("Media", (), {"png": PNG, "pdf": PDF})


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Async tests here fail when their event loop stalls (``tooldeck_loop_guard``)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("tooldeck_loop_guard")
