"""What plugins exist, as ``Candidate`` values, and how each one is imported later.

Discovery reads metadata and file names only; it never imports a plugin (a candidate's
``load`` does, once selection has said yes). ``scan_entry_points`` returns plain records
sorted by (normalized distribution name, entry-point name), so the order is the same on
every machine with the same installed set, whatever the filesystem's listing order.

No scan cache: with 50 plugins installed the scan is a small part of startup (W4's
``importlib.metadata scan`` rows), and ``importlib.metadata`` is imported by pydantic
anyway; a cache keyed on mtimes would save little at the risk of hiding an install.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck.errors import PluginError
from tooldeck.host.config.paths import local_plugin_files

if TYPE_CHECKING:
    from importlib.metadata import Distribution

GROUP = "tooldeck"
"""The entry-point group tool packs publish under."""


LAYERS = ("builtin", "mcp", "entrypoint", "object", "local")
"""Lowest precedence first. ``mcp`` is one position: the layer mounting MCP servers."""


def normalize_dist(name: str) -> str:
    """PEP 503: lowercase, runs of ``-``, ``_`` and ``.`` become one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


class EntryPointRecord(NamedTuple):
    """One installed entry point of group ``tooldeck``, as plain data (JSON-able)."""

    distribution: str
    """Normalized distribution name."""
    version: str
    name: str
    value: str
    """``module`` or ``module:attr``."""
    location: str
    """The sys.path entry the distribution's metadata was found in."""

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    @property
    def spec(self) -> str:
        """``name = value``, as written in ``entry_points.txt``."""
        return f"{self.name} = {self.value}"


def scan_entry_points(group: str = GROUP) -> tuple[EntryPointRecord, ...]:
    """Every installed entry point of ``group``, sorted by (distribution, name).

    A distribution installed twice on ``sys.path`` counts once: the first one wins, as
    for imports (``importlib.metadata.entry_points`` deduplicates the same way).
    """
    from importlib.metadata import entry_points

    records = []
    for ep in entry_points(group=group):
        name, version = _name_version(ep.dist)
        records.append(
            EntryPointRecord(
                distribution=normalize_dist(name or ep.module),
                version=version,
                name=ep.name,
                value=ep.value,
                location=str(ep.dist.locate_file("")) if ep.dist is not None else "",
            )
        )
    return tuple(sorted(records, key=lambda r: (r.distribution, r.name)))


def _name_version(dist: Distribution | None) -> tuple[str, str]:
    """The distribution's name and version, read from the cheapest place that has them.

    An installed wheel's metadata directory is named ``{name}-{version}.dist-info``
    (both escaped, so neither holds a ``-``; a version starts with a digit): the name
    and version cost no file read.
    Anything else (an ``.egg-info``, a custom ``Distribution``) has its ``METADATA``
    header block read; never ``dist.metadata``, which runs the email parser over the
    whole file and was most of the scan's cost with 50 plugins installed.
    """
    if dist is None:
        return "", ""
    folder = getattr(dist, "_path", None)  # a PathDistribution's directory
    stem, _, suffix = getattr(folder, "name", "").rpartition(".")
    name, _, version = stem.partition("-")
    if suffix == "dist-info" and name and version[:1].isdigit() and "-" not in version:
        return name, version
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line:
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version") and key not in found:
            found[key] = value.strip()
    return found.get("Name", ""), found.get("Version", "")


# -- candidates ------------------------------------------------------------------------------
Loader = Callable[[], object]


@dataclass(frozen=True, slots=True, eq=False)
class Candidate:
    """A plugin that exists, described without importing it."""

    name: str
    layer: str
    rank: tuple[Any, ...]
    """Sort key inside the layer."""
    aliases: frozenset[str]
    """Every name that selects it (``dist`` and ``dist:ep`` for an entry point)."""
    identity: tuple[Any, ...]
    """Equal identities mean "unchanged": the loaded object can be kept."""
    load: Loader | None = field(default=None, repr=False)
    distribution: str | None = None
    version: str | None = None
    origin: str | None = None
    """Where it comes from: ``name = module:attr``, a module or a file path."""
    digest: str | None = None
    """A Location plugin file's sha256: its loader runs exactly these bytes."""


def discover(
    root: Path, objects: Sequence[object] = (), mcp: Loader | None = None
) -> list[Candidate]:
    """Every plugin of every layer for a Location at ``root`` (unordered, unimported).

    ``mcp``: the loader of the MCP layer when servers are configured.
    """
    return [
        *builtin_candidates(),
        mcp_candidate(mcp),
        *entry_point_candidates(scan_entry_points()),
        *object_candidates(objects),
        *local_candidates(root),
    ]


def builtin_candidates(modules: Sequence[str] | None = None) -> list[Candidate]:
    """``tooldeck.builtin_plugins.<module>`` for each of ``BUILTIN_PLUGINS``, in order."""
    from tooldeck import __version__
    from tooldeck.builtin_plugins import BUILTIN_PLUGINS

    return [
        _builtin(index, module, __version__)
        for index, module in enumerate(BUILTIN_PLUGINS if modules is None else modules)
    ]


def _builtin(index: int, module: str, version: str) -> Candidate:
    name, path = f"builtin:{module}", f"tooldeck.builtin_plugins.{module}"
    return Candidate(
        name,
        "builtin",
        (index,),
        frozenset({name}),
        ("builtin", path),
        partial(_import, name, path),
        "tooldeck",
        version,
        path,
    )


MCP_SLOT = Candidate("mcp", "mcp", (), frozenset({"mcp"}), ("mcp",))
"""The MCP position without servers: no loader, so it is neither loaded nor reported."""


def member_candidate(name: str, layer: str) -> Candidate:
    """A member of a plugin group (an MCP server ``mcp:NAME``), for selection only."""
    return Candidate(name, layer, (name,), frozenset({name}), (layer, name))


def mcp_candidate(load: Loader | None) -> Candidate:
    """The MCP layer's position; with a loader it loads like a plugin (``tooldeck.mcp``).

    Its identity never changes, so ``refresh_plugins`` keeps its registration in place.
    """
    if load is None:
        return MCP_SLOT
    return Candidate(
        "mcp",
        "mcp",
        (),
        frozenset({"mcp"}),
        ("mcp",),
        load,
        origin="[mcp.servers] of the Location's config",
    )


def entry_point_candidates(records: Iterable[EntryPointRecord]) -> list[Candidate]:
    """One candidate per entry point, named ``dist`` when it is the dist's only one."""
    records = list(records)
    counts = Counter(r.distribution for r in records)
    return [_entry_point(r, counts[r.distribution] > 1) for r in records]


def _entry_point(record: EntryPointRecord, several: bool) -> Candidate:
    full = f"{record.distribution}:{record.name}"
    name = full if several else record.distribution
    return Candidate(
        name,
        "entrypoint",
        (record.distribution, record.name),
        frozenset({record.distribution, full}),
        ("entrypoint", record),
        partial(load_entry_point, name, record),
        record.distribution,
        record.version,
        record.spec,
    )


def object_candidates(objects: Sequence[object]) -> list[Candidate]:
    """Plugin objects handed to ``Host.open(plugins=[...])``, in the given order."""
    taken: Counter[str] = Counter()
    candidates = []
    for index, plugin in enumerate(objects):
        base = getattr(plugin, "__name__", None) or type(plugin).__name__
        taken[base] += 1
        name = base if taken[base] == 1 else f"{base}#{taken[base]}"
        candidates.append(
            Candidate(
                name,
                "object",
                (index,),
                frozenset({name}),
                ("object", id(plugin)),
                partial(_same, plugin),
                origin=repr(plugin),
            )
        )
    return candidates


def local_candidates(root: Path) -> list[Candidate]:
    """``.tooldeck/plugins/*.py`` of the Location, by file name, named ``local:<stem>``."""
    return [local_candidate(path) for path in local_plugin_files(root)]


def local_candidate(path: Path) -> Candidate:
    """One Python file as a plugin (also what ``tooldeck check FILE`` loads).

    The file is read once, here: its digest is what trust is checked against, and its
    loader executes exactly the bytes that were digested, so a file swapped between
    the check and the import never runs. Named and ranked by the listed file name (a
    link ``x.py`` is ``local:x`` wherever it leads), as the trust store names it.
    """
    listed, path = path, path.resolve()
    name = f"local:{listed.stem}"
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    module = f"_tooldeck_local_{digest}_{path.stem.replace('.', '_')}"
    try:
        data = path.read_bytes()
    except OSError as exc:
        load: Loader = partial(_unreadable, name, path, exc)
        sha = ""
    else:
        from tooldeck.host.trust.items import digest as content_digest  # with a plugin file

        load, sha = partial(_exec_file, name, module, path, data), content_digest(data)
    return Candidate(
        name,
        "local",
        (listed.name,),
        frozenset({name}),
        ("local", str(path), sha),
        load,
        origin=str(path),
        digest=sha,
    )


# -- loading ---------------------------------------------------------------------------------
def _same(plugin: object) -> object:
    return plugin


def _import(plugin: str, module: str) -> object:
    try:
        return importlib.import_module(module)
    except (Exception, SystemExit) as exc:
        if isinstance(exc, ModuleNotFoundError) and _names_module(exc.name, module):
            raise PluginError(plugin, f"module {module!r} not found") from exc
        raise PluginError(plugin, f"importing {module!r} raised {brief(exc)}") from exc


def _names_module(missing: str | None, module: str) -> bool:
    """Is ``missing`` (from ModuleNotFoundError) ``module`` itself or one of its parents?"""
    return bool(missing) and (module == missing or module.startswith(f"{missing}."))


def load_entry_point(plugin: str, record: EntryPointRecord) -> object:
    """Import an entry point's module and resolve its ``:attr`` path."""
    module, _, attrs = record.value.partition(":")
    try:
        target = _import(plugin, module.strip())
    except PluginError as exc:
        message = f"entry point {record.spec!r}: {exc.message}"
        raise PluginError(plugin, message) from exc.__cause__
    for attr in filter(None, attrs.strip().split(".")):
        try:
            target = getattr(target, attr)
        except AttributeError as exc:
            message = f"entry point {record.spec!r} does not resolve: {exc}"
            raise PluginError(plugin, message) from exc
    return target


def _unreadable(plugin: str, path: Path, exc: OSError) -> object:
    raise PluginError(plugin, f"cannot read {path}: {exc.strerror or exc}")


def _exec_file(plugin: str, module_name: str, path: Path, data: bytes) -> object:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None:
        raise PluginError(plugin, f"{path} is not an importable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pydantic look their module up here
    try:
        exec(compile(data, str(path), "exec"), module.__dict__)  # the bytes that were digested
    except (Exception, SystemExit) as exc:
        sys.modules.pop(module_name, None)
        raise PluginError(plugin, f"executing {path.name} raised {brief(exc)}") from exc
    return module


def forget_modules(candidate: Candidate) -> None:
    """Drop an upgraded entry point's package from ``sys.modules`` so it re-imports.

    Only modules whose files live under the old distribution's sys.path entry go: a
    shared package such as ``tooldeck`` itself is never touched.
    """
    record = candidate.identity[-1]
    if not isinstance(record, EntryPointRecord) or not record.location:
        return
    top = record.module.split(".")[0]
    for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        file = getattr(sys.modules[name], "__file__", None)
        if file and Path(file).is_relative_to(record.location):
            del sys.modules[name]


def brief(exc: BaseException) -> str:
    """``Type: message`` (or just ``Type``) for reasons shown on one line."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def failure_details(exc: PluginError) -> tuple[str, str]:
    """(reason, traceback) of a load failure; the traceback is the original cause's."""
    import traceback  # on failure only

    cause = exc.__cause__ or exc
    text = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
    return exc.message, text
