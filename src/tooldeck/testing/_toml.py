"""Just enough TOML writing for a test's ``tooldeck.toml`` (no third-party writer needed).

Every top-level key becomes one ``key = value`` line; nested tables and arrays of tables
are written inline, which TOML 1.0 allows at any depth and ``tomllib`` reads back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def dumps(data: Mapping[str, Any]) -> str:
    """``data`` as TOML text; a value TOML cannot hold raises ``TypeError`` naming its key."""
    return "".join(f"{_key(key)} = {_value(value, key)}\n" for key, value in data.items())


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"TOML keys are strings, not {key!r}")
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    # JSON's escapes are valid TOML basic-string escapes; TOML also forbids a raw DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # inf, -inf and nan are spelt the same in TOML
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        items = (f"{_key(k)} = {_value(v, f'{where}.{k}')}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v, f"{where}[{i}]") for i, v in enumerate(value)) + "]"
    raise TypeError(f"config key {where!r}: TOML cannot hold {type(value).__name__} {value!r}")
