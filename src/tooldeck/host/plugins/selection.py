"""Which plugins load and in what order, decided from names before anything is imported.

The user decides (``Host.open(plugins=..., disable=...)``, ``TOOLDECK_LOAD_PLUGINS``,
``TOOLDECK_DISABLE_PLUGINS``, the user config's ``[plugins]``); the project's
``[plugins]`` may only narrow that (DESIGN §7a): its ``disable`` adds to the user's, its
``only`` filters what the user selected, its ``order`` moves plugins after the user's
order. What it can never do is switch off, or reorder below another plugin, a plugin the
user installed or configured that provides a ``tool_call`` hook (a guard): such a plugin
loads anyway, and the tools it adds are hidden instead. Whether a plugin has a hook is
known only once it is imported, so ``Selection.unwanted`` names what the project would
leave out and the host decides after loading (``guarded.py``, and ``moved`` here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

from tooldeck.host.config.config import PluginsConfig
from tooldeck.host.plugins.discovery import LAYERS, Candidate, normalize_dist

SELECTED_BY_NAME = frozenset({"entrypoint", "local"})
"""Third-party layers that ``plugins=[...]``, ``TOOLDECK_LOAD_PLUGINS`` and
``plugins.only`` select from (plugin objects passed to ``Host.open`` always load)."""

PROJECT_DISABLE = "project config plugins.disable"
PROJECT_ONLY = "project config plugins.only"
NO_PLUGINS_CONFIG = PluginsConfig.model_construct()


def split_requested(
    plugins: Sequence[str | object] | None,
) -> tuple[list[str] | None, list[object]]:
    """``Host.open(plugins=...)`` → (names or None, plugin objects)."""
    if plugins is None:
        return None, []
    if isinstance(plugins, str):
        raise TypeError("plugins must be a list of names or plugin objects, not a str")
    names = [p for p in plugins if isinstance(p, str)]
    return names, [p for p in plugins if not isinstance(p, str)]


def canonical(name: str) -> str:
    """The form names are compared in: distribution parts PEP 503-normalized."""
    name = name.strip()
    prefix, sep, rest = name.partition(":")
    if sep and prefix in ("builtin", "local"):
        return name
    return normalize_dist(prefix) + (f":{rest.strip()}" if sep else "")


def matches(candidate: Candidate, names: Iterable[str]) -> bool:
    """Does any of ``names`` name ``candidate`` (exactly or after normalization)?"""
    return any(n in candidate.aliases or canonical(n) in candidate.aliases for n in names)


def disabled_by(candidate: Candidate, name: str) -> bool:
    """Does the disable entry ``name`` name ``candidate``: exactly, or as a glob pattern
    (``*``, ``?``, ``[...]``: ``builtin:*``, ``mcp:*``, ``acme-*``) of one of its names?"""
    if matches(candidate, [name]):
        return True
    if not any(char in name for char in "*?["):
        return False
    from fnmatch import fnmatchcase  # only for a pattern: most selections name plugins

    patterns = {name.strip(), canonical(name)}
    return any(fnmatchcase(alias, p) for alias in candidate.aliases for p in patterns)


class Selection(NamedTuple):
    """Which candidates load, decided before anything is imported.

    ``only``: the third-party plugins to load (``None`` = all of them), from the first
    that is set of: ``Host.open(plugins=[...])``, ``TOOLDECK_LOAD_PLUGINS``, the user
    config's ``plugins.only``. ``disabled``: the union of ``Host.open(disable=...)``,
    ``TOOLDECK_DISABLE_PLUGINS`` and the user config's ``plugins.disable``; it applies
    to every layer, built-ins included, and each entry is a name or a glob pattern
    (``builtin:*``). ``order``: the user config's ``plugins.order``. Plugin objects
    passed to ``Host.open`` are always selected. ``project``: the project's ``[plugins]``
    (see the module docstring; its ``only`` counts when no argument or variable chose).
    """

    only: tuple[str, ...] | None = None
    only_origin: str = ""
    disabled: tuple[tuple[str, str], ...] = ()
    order: tuple[str, ...] = ()
    project: PluginsConfig = NO_PLUGINS_CONFIG

    @classmethod
    def build(
        cls,
        *,
        plugins: Sequence[str] | None,
        disable: Iterable[str],
        config: PluginsConfig,
        environ: Mapping[str, str],
        project: PluginsConfig = NO_PLUGINS_CONFIG,
    ) -> Selection:
        """Combine the argument, environment and config sources (see the class doc)."""
        only, origin = _only(plugins, config, environ)
        disabled = [(n, "Host.open(disable=...)") for n in disable]
        disabled += [
            (n, "TOOLDECK_DISABLE_PLUGINS")
            for n in _split(environ.get("TOOLDECK_DISABLE_PLUGINS", ""))
        ]
        disabled += [(n, "config plugins.disable") for n in config.disable]
        return cls(only, origin, tuple(disabled), tuple(config.order), project)

    def excluded(self, candidate: Candidate) -> str | None:
        """Why the user's selection leaves ``candidate`` out, or ``None`` when it loads."""
        for name, origin in self.disabled:
            if disabled_by(candidate, name):
                return f"disabled by {origin}"
        if candidate.layer not in SELECTED_BY_NAME or self.only is None:
            return None
        if not matches(candidate, self.only):
            return f"not selected by {self.only_origin}"
        return None

    def unwanted(self, candidate: Candidate) -> str | None:
        """Why the project's ``[plugins]`` would leave ``candidate`` out, or ``None``.

        Final for the project's own plugins (``local:``); for a plugin of the user's,
        the host keeps it when it has a ``tool_call`` hook (``kept_for_hooks``).
        """
        for name in self.project.disable:
            if disabled_by(candidate, name):
                return f"disabled by {PROJECT_DISABLE}"
        only = self._project_only()
        if (
            only is not None
            and candidate.layer in SELECTED_BY_NAME
            and not matches(candidate, only)
        ):
            return f"not selected by {PROJECT_ONLY}"
        return None

    def _project_only(self) -> tuple[str, ...] | None:
        """The project's ``only``, unless an argument or a variable chose the plugins."""
        if self.only_origin in ("", "config plugins.only"):
            return self.project.only
        return None

    def disables(self) -> list[tuple[str, str]]:
        """Every ``disable`` entry with its origin, the user's then the project's."""
        return [*self.disabled, *((n, PROJECT_DISABLE) for n in self.project.disable)]

    def unmatched(self, candidates: Sequence[Candidate]) -> list[str]:
        """A warning per ``disable`` entry (the user's or the project's) that names none
        of ``candidates`` (a typo, a plugin not installed): it disables nothing, which its
        author should hear."""
        return [
            f"disable entry {name!r} (from {origin}) matches no plugin or MCP server here, "
            "so it disables nothing; names look like builtin:read, local:STEM, a "
            "distribution name or mcp:SERVER, and a pattern may use * ? [...]"
            for name, origin in self.disables()
            if not any(disabled_by(candidate, name) for candidate in candidates)
        ]

    def missing(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """Placeholders for selected names that match no plugin (a typo, not installed)."""
        wanted = [(n, self.only_origin) for n in self.only or ()]
        wanted += [(n, PROJECT_ONLY) for n in self._project_only() or ()]
        return [
            Candidate(
                name,
                _layer_of(name),
                (),
                frozenset({name}),
                ("missing", name),
                origin=f"requested by {origin}",
            )
            for name, origin in wanted
            if not any(matches(c, [name]) for c in candidates)
        ]


def _layer_of(name: str) -> str:
    prefix = name.partition(":")[0]
    return prefix if prefix in ("builtin", "local") else "entrypoint"


def _only(
    plugins: Sequence[str] | None, config: PluginsConfig, environ: Mapping[str, str]
) -> tuple[tuple[str, ...] | None, str]:
    if plugins is not None:
        return tuple(plugins), "Host.open(plugins=[...])"
    if "TOOLDECK_LOAD_PLUGINS" in environ:
        return tuple(_split(environ["TOOLDECK_LOAD_PLUGINS"])), "TOOLDECK_LOAD_PLUGINS"
    if config.only is not None:
        return tuple(config.only), "config plugins.only"
    return None, ""


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


# -- order -----------------------------------------------------------------------------------
def ordered(candidates: Iterable[Candidate], moves: Sequence[str] = ()) -> list[Candidate]:
    """Layer, then the in-layer key; then ``plugins.order`` moves named plugins last.

    Each name in ``moves`` takes the plugins it names out of their place and appends
    them after every other plugin, in the listed order, so the last listed has the
    highest precedence. A distribution name moves all its entry points (kept in their
    relative order). Names that match nothing are ignored.
    """
    base = sorted(candidates, key=lambda c: (LAYERS.index(c.layer), c.rank))
    moved: list[Candidate] = []
    for name in moves:
        moved += [c for c in base if matches(c, [name]) and c not in moved]
    return [c for c in base if c not in moved] + moved


T = TypeVar("T")


def moved(
    loaded: Sequence[T],
    moves: Sequence[str],
    candidate: Callable[[T], Candidate],
    guards: Callable[[T], bool],
) -> list[T]:
    """The project's ``plugins.order`` applied to ``loaded`` (already in the user's order).

    Like ``ordered``'s moves, except that a plugin never moves past a user's plugin that
    ``guards`` (has a ``tool_call`` hook): that would put a tool above the guard, or one
    guard above another, against the user's own order. Such a move is left out.
    """
    result = list(loaded)
    for name in moves:
        chosen = [item for item in result if matches(candidate(item), [name])]
        for item in chosen:
            after = result[result.index(item) + 1 :]
            if not any(guards(other) for other in after if other not in chosen):
                result.remove(item)
                result.append(item)
    return result
