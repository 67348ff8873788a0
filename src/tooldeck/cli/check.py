"""``tooldeck check [PATH | DIST]``: load one pack alone, replay it, report problems.

The pack loads with the built-ins (to find name collisions) and nothing else; config
selection and ``TOOLDECK_*_PLUGINS`` do not apply. One probe session is opened so that
``session_transform`` hooks run too. Problems: a plugin that fails to import or register
(including a hookimpl signature that does not match its spec), a hook that raises
(in the Location or in the session), every tool or namespace the editor refused, and
every tool that collides with a built-in. Exit 1 when there is any problem. Warnings (an
``update`` or ``remove`` whose target does not exist: a typo, or a tool of a pack not
loaded here) are printed but are not problems. Each finding is printed once: the
diagnostics the registry would also log to stderr are kept out of the log meanwhile.

A directory's ``.tooldeck/plugins/*.py`` are a project's plugins, which tooldeck imports
only from a trusted folder; ``check`` is no side door around that: it imports them when
the folder is trusted (``tooldeck trust DIR``, ``TOOLDECK_TRUST=1``) or with ``--trust``,
and otherwise says they were left out. The entry points a source tree's
``pyproject.toml`` declares are the pack being checked, and load as installing it would.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck.cli._common import location_dir
from tooldeck.cli._errors import CommandError

if TYPE_CHECKING:
    from tooldeck.host.handles import SessionScope
    from tooldeck.host.plugins.discovery import Candidate
    from tooldeck.host.plugins.host import Host
    from tooldeck.host.plugins.report import PluginInfo
    from tooldeck.host.registry.editor import Diagnostic


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "check",
        help="validate a tool pack",
        description="Load one pack alone (with the built-ins), replay it and report every "
        "invalid tool or schema, hookimpl problem and collision with a "
        "built-in. TARGET: a project directory (the tooldeck entry points of "
        "its pyproject.toml, or its .tooldeck/plugins), a .py file, or an "
        "installed distribution name.",
    )
    parser.add_argument("target", nargs="?", default=".", metavar="PATH | DIST")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="import the directory's .tooldeck/plugins even though the folder is not "
        "trusted (for this check only; tooldeck trust DIR trusts it for good)",
    )
    parser.add_argument(
        "--allow-override",
        action="append",
        default=[],
        metavar="TOOL",
        help="a built-in the pack overrides on purpose (repeatable; '*' for all): its "
        "collision is reported but is not a problem",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    candidates, root = pack_candidates(args.target, location_dir(args), trust=args.trust)
    with _quiet_registry_log():
        host = pack_host(root, candidates)
        pack = [info for info in host.plugins if info.name in {c.name for c in candidates}]
        session = host.session(PROBE_SESSION)  # runs every session_transform once
        effects = [_in_session(session, info) for info in pack]
    problems = 0
    for info, in_session in zip(pack, effects, strict=True):
        problems += _report(info, frozenset(args.allow_override), in_session)
    warnings = sum(
        len(info.warnings) + len(e.warnings) for info, e in zip(pack, effects, strict=True)
    )
    noted = f" ({warnings} warning{'s' if warnings != 1 else ''})" if warnings else ""
    print(
        f"{problems} problem{'s' if problems != 1 else ''} found{noted}"
        if problems
        else f"no problems found{noted}"
    )
    return 1 if problems else 0


@contextlib.contextmanager
def _quiet_registry_log() -> Iterator[None]:
    """Keep the registry's diagnostic log lines off stderr: the report prints them."""
    log = logging.getLogger("tooldeck")
    handler = logging.NullHandler()
    log.addHandler(handler)
    propagate, log.propagate = log.propagate, False
    try:
        yield
    finally:
        log.propagate = propagate
        log.removeHandler(handler)


def pack_candidates(target: str, cwd: Path, *, trust: bool = False) -> tuple[list[Candidate], Path]:
    """The pack's plugins and the Location root to check them in; a directory's local
    plugins only when it is trusted or ``trust`` says to import them anyway."""
    from tooldeck.host.plugins.discovery import local_candidate

    path = Path(target)
    if path.is_file():
        if path.suffix != ".py":
            raise CommandError(f"{target}: expected a .py file, a directory or a distribution")
        return [local_candidate(path)], cwd
    if path.is_dir():
        return _project_candidates(path, trust), path
    if os.sep in target or target.startswith("."):
        raise CommandError(f"{target}: no such file or directory")
    return _installed_candidates(target), cwd


def _project_candidates(folder: Path, trust: bool) -> list[Candidate]:
    from tooldeck.host.config.paths import local_plugin_files
    from tooldeck.host.plugins.discovery import entry_point_candidates, local_candidates

    declared = entry_point_candidates(_source_entry_points(folder))
    files = local_plugin_files(folder.resolve())
    if not files or trust or _trusted(folder):
        found = declared + local_candidates(folder)
    else:
        found = declared
        skipped = _untrusted(folder, len(files))
        if not found:
            raise CommandError(skipped)
        print(f"tooldeck: {skipped}", file=sys.stderr)
    if not found:
        raise CommandError(
            f"{folder}: no tool pack here: no [project.entry-points.tooldeck] "
            "in pyproject.toml and no .tooldeck/plugins/*.py"
        )
    return found


def _trusted(folder: Path) -> bool:
    """Whether ``Host.open(folder)`` would import the folder's local plugins."""
    from tooldeck.errors import ConfigError
    from tooldeck.host.trust.store import trust_status

    try:
        return trust_status(folder).trusted
    except ConfigError:  # an invalid project config: nothing of the folder is trusted
        return False


def _untrusted(folder: Path, count: int) -> str:
    import shlex

    shown = shlex.quote(str(folder))
    files = f"{count} plugin file{'s' if count != 1 else ''}"
    return (
        f"{folder}: its .tooldeck/plugins ({files}) were not imported: this folder is not "
        f"trusted. Review them, then run tooldeck check --trust {shown} (or trust the "
        f"folder: tooldeck trust {shown})"
    )


def _source_entry_points(folder: Path) -> list[Any]:
    """Entry points declared in a source tree's pyproject.toml; makes them importable."""
    from tooldeck.host.config.config_files import read_toml
    from tooldeck.host.plugins.discovery import EntryPointRecord, normalize_dist

    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file():
        return []
    project = read_toml(pyproject).get("project", {})
    declared = project.get("entry-points", {}).get("tooldeck", {})
    if not declared:
        return []
    source = folder / "src" if (folder / "src").is_dir() else folder
    sys.path.insert(0, str(source.resolve()))
    name = normalize_dist(str(project.get("name", folder.resolve().name)))
    return [
        EntryPointRecord(name, str(project.get("version", "")), ep, value, str(source))
        for ep, value in sorted(declared.items())
    ]


def _installed_candidates(dist: str) -> list[Candidate]:
    from tooldeck.host.plugins.discovery import (
        entry_point_candidates,
        normalize_dist,
        scan_entry_points,
    )

    wanted = normalize_dist(dist)
    records = [r for r in scan_entry_points() if r.distribution == wanted]
    if not records:
        raise CommandError(f"no installed distribution {dist!r} has tooldeck entry points")
    return entry_point_candidates(records)


def pack_host(root: Path, candidates: list[Candidate]) -> Host:
    """A host holding the built-ins and ``candidates``, all selected, loaded."""
    from tooldeck.host.location.location import Location
    from tooldeck.host.plugins.discovery import builtin_candidates
    from tooldeck.host.plugins.host import Host
    from tooldeck.host.plugins.selection import Selection
    from tooldeck.host.service import ToolService

    location = Location(root)
    host = Host(
        location,
        ToolService(location),
        Selection(),
        lambda: [*builtin_candidates(), *candidates],
        trace=os.environ.get("TOOLDECK_TRACE_PLUGINS") == "1",
    )
    host.refresh_plugins()
    return host


PROBE_SESSION = "tooldeck-check"
"""The id of the session ``check`` opens to run the packs' ``session_transform``."""


class _SessionEffects(NamedTuple):
    tools: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    warnings: tuple[Diagnostic, ...] = ()


_NOTHING_IN_SESSIONS = _SessionEffects((), ())


def _in_session(session: SessionScope, info: PluginInfo) -> _SessionEffects:
    """The tools ``info``'s plugin adds to a session, and what was refused there."""
    tools = sorted(
        name
        for name, entry in session.catalog.changes.items()
        if entry is not None and entry.source == info.name
    )
    mine = [d for d in session.diagnostics if d.source == info.name]
    return _SessionEffects(
        tuple(tools),
        tuple(d for d in mine if d.level == "error"),
        tuple(d for d in mine if d.level == "warning"),
    )


def _report(
    info: PluginInfo,
    allowed: frozenset[str] = frozenset(),
    session: _SessionEffects = _NOTHING_IN_SESSIONS,
) -> int:
    """Print one plugin's result; return how many problems it has."""
    collisions = [(t, p) for t, p in info.overrides if p.startswith("builtin:")]
    intended = [(t, p) for t, p in collisions if t in allowed or "*" in allowed]
    unintended = [c for c in collisions if c not in intended]
    if info.status != "active":
        print(f"{info.name}: {info.status}: {info.reason}")
        if info.traceback:
            print("    " + info.traceback.rstrip().replace("\n", "\n    "))
        return 1
    tools = ", ".join(info.provides) or "no tools"
    if session.tools:
        tools += f"; per session: {', '.join(session.tools)}"
    ok = not (info.diagnostics or unintended or session.diagnostics)
    print(f"{info.name}: {'ok' if ok else 'problems'} ({tools})")
    for diagnostic in info.diagnostics:
        print(f"    refused: {diagnostic}")
    for refused in session.diagnostics:
        if refused.traceback is None:
            print(f"    refused in a session: {refused}")
            continue
        print(f"    session_transform failed: {refused.reason}")
        print("    " + refused.traceback.rstrip().replace("\n", "\n    "))
    for warning in info.warnings:
        print(f"    warning: {warning}")
    for missed in session.warnings:
        print(f"    warning in a session: {missed}")
    for tool, plugin in unintended:
        print(
            f"    collision: tool {tool!r} replaces the built-in from {plugin} "
            f"(intended? pass --allow-override {tool})"
        )
    for tool, plugin in intended:
        print(f"    overrides: tool {tool!r} replaces the built-in from {plugin} (allowed)")
    return len(info.diagnostics) + len(unintended) + len(session.diagnostics)
