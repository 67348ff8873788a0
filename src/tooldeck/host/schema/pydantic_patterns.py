"""Refusing pydantic models that would match a ``pattern`` with Python's backtracking ``re``.

pydantic matches a string ``pattern`` with its default engine (Rust's ``regex``, linear in
the text), unless the model sets ``regex_engine="python-re"`` or the pattern is given
compiled (``re.compile(...)``): then Python's ``re`` runs it, and a pattern such as
``^(a+)+$`` takes minutes on a 30-character value. Python's ``re`` holds the GIL for the
whole match, so neither a worker thread nor a timeout can bound it: the event loop and
every other call would freeze with it. A process could bound it, at a cost far above a
validation's. So such a tool is refused on its first call (``host/call/path.py``), before
any value is matched, naming the pattern and the two ways out: pydantic's default engine,
or a JSON Schema input (whose patterns tooldeck matches with RE2, or under a time bound
off the loop: ``patterns.py``).

The check walks the model's core schema (``__pydantic_core_schema__``, a
``TypeAdapter``'s ``core_schema``): a model, dataclass or typed dict carries its own
``config``, which decides the engine of the patterns below it; a ``str`` schema may name
its own ``regex_engine``.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from typing import Any, Final

_PYTHON_RE: Final = "python-re"
_UNKNOWN: Final = object()

_verdicts: weakref.WeakKeyDictionary[object, tuple[str, str] | None] = weakref.WeakKeyDictionary()
"""Per model class or ``TypeAdapter``: a model shared by many tools is walked once."""


def backtracking_pattern_problem(source: Any, *, role: str) -> str | None:
    """Why pydantic ``source`` (a model class or a ``TypeAdapter``) cannot serve as a
    tool's ``role`` schema: a pattern it matches with Python's ``re``; else ``None``."""
    try:
        known = source in _verdicts
    except TypeError:  # not weakly referenced: judged every time
        found = _found(source)
    else:
        found = _verdicts[source] if known else _verdicts.setdefault(source, _found(source))
    return None if found is None else _message(role, *found)


def _found(source: Any) -> tuple[str, str] | None:
    is_model = isinstance(source, type)
    try:
        core = source.__pydantic_core_schema__ if is_model else source.core_schema
    except Exception:  # not fully defined yet: pydantic refuses it on first use anyway
        return None
    return _python_re_pattern(core, _top_engine(source))


def _message(role: str, pattern: str, owner: str) -> str:
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    return (
        f"{role} model {owner} has the pattern {shown!r}, which pydantic matches with "
        'Python\'s backtracking re (regex_engine="python-re" or a compiled pattern): one '
        "short value can hold the event loop for minutes. Use pydantic's default engine "
        "(drop regex_engine, pass the pattern as a string: it runs in linear time), or, for "
        f"lookaround or backreferences, declare the {role} as a JSON Schema mapping, whose "
        "patterns tooldeck matches in bounded time"
    )


def _top_engine(source: Any) -> object:
    """The engine a ``TypeAdapter`` gives the patterns above any model of its own."""
    if isinstance(source, type):
        return None
    # A TypeAdapter keeps its ``config`` only here; were pydantic to move it, the engine
    # is unknown and counts as Python's (refused rather than risked).
    config = getattr(source, "_config", _UNKNOWN)
    if config is _UNKNOWN:
        return _PYTHON_RE
    return config.get("regex_engine") if isinstance(config, Mapping) else None


def _python_re_pattern(core: Any, top_engine: object) -> tuple[str, str] | None:
    """The first pattern under ``core`` that Python's ``re`` matches, with its owner."""
    pending: list[tuple[Any, object, str]] = [(core, top_engine, "(the TypeAdapter's type)")]
    seen: set[tuple[int, object]] = set()
    while pending:
        node, engine, owner = pending.pop()
        if isinstance(node, list | tuple):
            pending.extend((each, engine, owner) for each in node)
            continue
        if not isinstance(node, Mapping) or (id(node), engine) in seen:
            continue
        seen.add((id(node), engine))
        config = node.get("config")
        if isinstance(config, Mapping):
            engine = config.get("regex_engine")
            owner = str(config.get("title") or node.get("model_name") or owner)
        if node.get("type") == "str" and node.get("pattern") is not None:
            pattern = node["pattern"]
            if isinstance(pattern, re.Pattern):
                return pattern.pattern, owner
            if (node.get("regex_engine") or engine) == _PYTHON_RE:
                return str(pattern), owner
        pending.extend(
            (value, engine, owner)
            for key, value in node.items()
            if key not in ("metadata", "config", "cls") and isinstance(value, Mapping | list)
        )
    return None
