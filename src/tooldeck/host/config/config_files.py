"""Find, read, merge and validate the config files of a Location (DESIGN §11).

Two layers, project over user:

* the user file ``$XDG_CONFIG_HOME/tooldeck/config.toml`` (``~/.config`` by default);
* the project file at the Location root: ``tooldeck.toml``, or else the
  ``[tool.tooldeck]`` table of ``pyproject.toml``. When both exist ``tooldeck.toml``
  wins and the pyproject table is ignored (not merged), like ruff's ``ruff.toml``: one
  project file is the whole truth, so nobody has to diff two files to know the config.

Merging: tables merge key by key (recursively); arrays of tables concatenate, user's
first; every other value is replaced by the project's. What a Location applies keeps
the project's permission rules and ``[plugins]`` out of this merge: they combine with
the user's by laws of their own (``layers.py``), and an untrusted project is narrowed
first (``host/trust/narrowing.py``). Each file is validated on its own first, so an
error names the file it is in: ``ConfigError(path, dotted.key, "expected ..., got ...")``.
Validation is strict (TOML has real types: ``"5"`` is not an integer). A valid key whose
feature this version does not have (``config.NOT_YET_AVAILABLE``) is an error too, rather
than a setting that silently does nothing.
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ValidationError

from tooldeck._public import public
from tooldeck.errors import ConfigError
from tooldeck.host.config.config import NOT_YET_AVAILABLE, Config, default_config

PROJECT_FILE = "tooldeck.toml"
PYPROJECT_FILE = "pyproject.toml"


class ConfigSource(NamedTuple):
    """One config layer: how errors name it, the key prefix it lives under, its data."""

    label: str
    prefix: str
    data: Mapping[str, Any]


@public
def load_config(root: str | os.PathLike[str]) -> Config:
    """The validated config files of the Location at ``root``, merged as written (user
    file under project file, rules concatenated): what the files say, trusted or not.

    Not what a Location applies: ``Host.open`` narrows an untrusted project and keeps
    the project's rules and plugin selection in a layer of their own
    (``layers.layered_config``).
    """
    return merged_config(*config_sources(Path(root)))


def config_sources(root: Path) -> tuple[ConfigSource | None, ConfigSource | None]:
    """(user layer, project layer), each validated on its own (errors name its file)."""
    user, project = user_source(), project_source(root)
    for source in (user, project):
        if source is not None:
            validate(source)
    return user, project


def merged_config(user: ConfigSource | None, project: ConfigSource | None) -> Config:
    """The project layer merged over the user layer and validated as a whole."""
    if user is None or project is None:
        only = user or project
        return validate(only) if only is not None else default_config()
    label = f"{project.label} over {user.label}"
    return validate(ConfigSource(label, "", merge(user.data, project.data)))


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/tooldeck/config.toml`` (``~/.config/...`` when unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "tooldeck" / "config.toml"


def user_data_dir() -> Path:
    """``$XDG_DATA_HOME/tooldeck`` (``~/.local/share/tooldeck`` when unset): what tooldeck
    keeps for the user (trust, sign-ins, each Location's data, shared listings), never
    inside a project."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "tooldeck"


def default_data_dir(root: Path) -> Path:
    """``$XDG_DATA_HOME/tooldeck/locations/<dirname>-<hash>``: per-root, outside the tree."""
    import hashlib

    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return user_data_dir() / "locations" / f"{root.name or 'root'}-{digest}"


def user_source() -> ConfigSource | None:
    """The user layer, or ``None`` when the file does not exist."""
    path = user_config_path()
    return ConfigSource(_shown(path), "", read_toml(path)) if path.is_file() else None


def project_source(root: Path) -> ConfigSource | None:
    """``tooldeck.toml``, else ``[tool.tooldeck]`` of ``pyproject.toml``, else ``None``."""
    path = root / PROJECT_FILE
    if path.is_file():
        return ConfigSource(_shown(path), "", read_toml(path))
    pyproject = root / PYPROJECT_FILE
    if not pyproject.is_file():
        return None
    table = read_toml(pyproject).get("tool", {}).get("tooldeck")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(_shown(pyproject), "tool.tooldeck", f"expected a table, got {table!r}")
    return ConfigSource(_shown(pyproject), "tool.tooldeck", table)


MAX_DEPTH = 32
"""Tables and arrays nested deeper than this are refused: no real config needs it, and
the parser and the merge recurse once per level."""


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one TOML file; any unreadable content becomes a ``ConfigError`` naming the file.

    Bad UTF-8, bad syntax and nesting past ``MAX_DEPTH`` are all the file's fault, so none
    of them may escape as a ``UnicodeDecodeError`` or ``RecursionError`` (a served Location
    keeps its last good config only when a broken file fails as ``ConfigError``).
    """
    import tomllib  # here, not at the top: most Locations have no config file to parse

    shown = _shown(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(shown, "(file)", f"cannot read: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            shown, "(file)", f"not UTF-8: byte 0x{raw[exc.start]:02x} on line {line}"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(shown, "(toml)", f"invalid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(shown, "(toml)", "nested too deeply to parse") from None
    if _depth(data) > MAX_DEPTH:
        raise ConfigError(shown, "(toml)", f"nested deeper than {MAX_DEPTH} levels")
    return data


def _depth(value: object, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge ``over`` onto ``base`` (see the module docstring for the rules)."""
    merged = dict(base)
    for key, value in over.items():
        merged[key] = _merged(merged[key], value) if key in merged else value
    return merged


def _merged(old: Any, new: Any) -> Any:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        return merge(old, new)
    if _is_table_array(old) and _is_table_array(new):
        return [*old, *new]
    return new


def _is_table_array(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def validate(source: ConfigSource) -> Config:
    """``Config`` from one source, or the first problem as a ``ConfigError``."""
    try:
        config = Config.model_validate(_tuples(source.data), strict=True)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        key = ".".join(p for p in (source.prefix, _dotted(loc)) if p)
        raise ConfigError(source.label, key, _message(error, loc)) from None
    reject_unavailable(source)
    return config


def reject_unavailable(source: ConfigSource) -> None:
    """A ``ConfigError`` for the first key of ``NOT_YET_AVAILABLE`` that ``source`` sets."""
    for key, unavailable in NOT_YET_AVAILABLE.items():
        value = _lookup(source.data, key)
        if value is _ABSENT or any(value is accepted for accepted in unavailable.accepted):
            continue
        if isinstance(value, Mapping) and value:
            key = f"{key}.{next(iter(value))}"  # name the table the user wrote
        alternative = "".join(f" or set it to {str(a).lower()}" for a in unavailable.accepted)
        raise ConfigError(
            source.label,
            ".".join(p for p in (source.prefix, key) if p),
            f"not available in this version of tooldeck ({unavailable.feature}); "
            f"remove it{alternative}",
        )


_ABSENT = object()


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    value: Any = data
    for part in dotted.split("."):
        value = value.get(part, _ABSENT) if isinstance(value, Mapping) else _ABSENT
    return value


def _tuples(value: Any) -> Any:
    """TOML arrays are lists; the model's sequences are tuples (strict mode wants those)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


# -- messages --------------------------------------------------------------------------------
def _message(error: Any, loc: tuple[Any, ...]) -> str:
    kind, got = error["type"], _repr(error.get("input"))
    if kind == "extra_forbidden":
        return _unknown_key(loc)
    if kind == "value_error":  # a model's own check (e.g. [mcp.servers.NAME]) says it all
        return str(error["ctx"]["error"])
    expected = describe(_annotation_at(loc))
    if kind == "missing":
        return f"missing; expected {expected}"
    if kind == "finite_number":  # inf or nan: a limit must be a real number
        return f"expected a finite number, got {got}"
    ctx = error.get("ctx") or {}
    for bound, words in (
        ("gt", "greater than"),
        ("ge", "at least"),
        ("lt", "less than"),
        ("le", "at most"),
    ):
        if bound in ctx:
            return f"expected {expected} {words} {ctx[bound]}, got {got}"
    return f"expected {expected}, got {got}"


def _unknown_key(loc: tuple[Any, ...]) -> str:
    owner = _annotation_at(loc[:-1])
    if not (isinstance(owner, type) and issubclass(owner, BaseModel)):
        return "unknown key"
    import difflib

    known = sorted(owner.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key{hint}; expected one of: {', '.join(known)}"


def _annotation_at(loc: tuple[Any, ...]) -> Any:
    """The declared type at ``loc`` inside ``Config`` (walks models, tuples and dicts)."""
    annotation: Any = Config
    for part in loc:
        annotation = _strip_optional(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(str(part))
            annotation = field.annotation if field is not None else None
        else:
            args = typing.get_args(annotation)
            is_tuple = typing.get_origin(annotation) is tuple
            annotation = (args[0] if is_tuple else args[-1]) if args else None
    return _strip_optional(annotation)


def _strip_optional(annotation: Any) -> Any:
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


_SCALARS = {
    str: ("a string", "strings"),
    int: ("an integer", "integers"),
    bool: ("a boolean", "booleans"),
    float: ("a number", "numbers"),
}


def describe(annotation: Any, *, plural: bool = False) -> str:
    """Human words for a declared type: ``tuple[str, ...]`` → ``a list of strings``."""
    annotation = _strip_optional(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in _SCALARS:
        return _SCALARS[annotation][plural]
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is tuple:
        return ("lists of " if plural else "a list of ") + describe(args[0], plural=True)
    if origin is dict:
        return ("tables of " if plural else "a table of ") + describe(args[-1], plural=True)
    return "tables" if plural else "a table"


def _dotted(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _repr(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when inside it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
