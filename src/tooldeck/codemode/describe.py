"""The ``execute`` tool's description: a short guide to the sandbox, then the stubs."""

from __future__ import annotations

from collections.abc import Sequence

GUIDE = """\
Run a Python program that calls tools as async functions. Use it to chain tool calls, \
filter or combine their results, and return only what you need.

- The program runs in a sandbox: a Python subset without class inheritance. The only \
modules are asyncio, base64, collections, csv, dataclasses, datetime, decimal, functools, \
hashlib, itertools, json, math, random, re, time, typing. No files, network, environment \
variables or subprocesses: only the tools below.
- Call a tool with `await tools.<namespace>.<name>(arg=value)` (`await tools.<name>(...)` \
without a namespace). Arguments are keyword-only. Run independent calls in parallel with \
`import asyncio` and `await asyncio.gather(...)`.
- A tool with a declared result type returns that data; the others return their text (str).
- The value of the last expression is the program's result; `print()` adds notes.
- A failed call raises `RuntimeError`, which the program can catch (`except RuntimeError \
as e:`); `str(e)` says what went wrong. Uncaught, it ends the program with the traceback.
- Limits per program: {limits}."""


SEARCH_HINT = (
    'Not every tool is listed: `await search("words")` finds the others by words in '
    "their name, namespace, description or parameters, with their signatures, and they "
    "are called the same way."
)


def description(stubs: str, namespaces: Sequence[str], limits: str, *, complete: bool) -> str:
    """The guide, the namespaces (when not every tool is listed), the stubs in a fenced
    block, and how to find the tools left out. No count: a tool beyond the budget must
    not change the text."""
    parts = [GUIDE.format(limits=limits)]
    if namespaces:
        parts.append("Namespaces (each holds more tools than listed):\n" + "\n".join(namespaces))
    parts.append(f"```python\n{stubs}```")
    if not complete:
        parts.append(SEARCH_HINT)
    return "\n\n".join(parts)
