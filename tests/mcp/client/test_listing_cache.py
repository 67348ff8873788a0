"""Kept tool listings: a cached open mounts a server's tools without starting it.

Each server here is ``counted_server.py``, which appends its pid to a file as it starts,
so "not started" is a fact read from that file, not a guess from timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Host, ToolCall, run_tool_call
from tooldeck.cli import main
from tooldeck.mcp.client import layer
from tooldeck.mcp.client.cache import FOLDER, ListingCache

from ...warm import warm
from ..conftest import SERVERS, make_project, toml_list, wait_for

ALLOW = '[[permission]]\naction = "*_*"\neffect = "allow"\n'


def counted(name: str, starts: Path, *args: str, script: Path | None = None) -> str:
    argv = warm([sys.executable, str(script or SERVERS / "counted_server.py"), str(starts), *args])
    return f"[mcp.servers.{name}]\ncommand = {toml_list(argv)}\n"


def starts(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def call(host: Host, name: str, arguments: dict[str, object]):
    return asyncio.run(run_tool_call(host.snapshot(), ToolCall("c", name, arguments)))


def names(host: Host) -> set[str]:
    tools = host.snapshot().catalog.tools  # native and code-mode tools alike
    return {name for name in tools if name.startswith(("a_", "b_", "s_"))}


def cache_file(host: Host, server: str) -> Path:
    return host.location.data_dir / FOLDER / f"{server}.json"


@pytest.fixture
def no_revalidation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hosts here stay open for less than a background revalidation would wait for."""
    monkeypatch.setattr(layer, "REVALIDATE_AFTER_S", 3600.0)


def test_a_cached_open_answers_without_starting_and_a_call_starts_only_its_server(
    module_env, tmp_path, no_revalidation
):
    a, b = tmp_path / "a.starts", tmp_path / "b.starts"
    root = make_project(tmp_path / "p", counted("a", a) + counted("b", b) + ALLOW)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:  # nothing kept yet
        assert names(host) == {"a_echo", "b_echo"}
    assert (starts(a), starts(b)) == (1, 1)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"a_echo", "b_echo"}
        assert (starts(a), starts(b)) == (1, 1)
        assert host.mcp_failures == {}
        result = call(host, "a_echo", {"text": "hi"})
        assert result.status == "completed", result.error
        assert "echo:hi" in str(result.output)
        assert (starts(a), starts(b)) == (2, 1)
    with Host.open(root, plugins=[]) as host:  # fresh, the default: every server starts
        assert names(host) == {"a_echo", "b_echo"}
    assert (starts(a), starts(b)) == (3, 2)


def test_a_user_servers_listing_is_kept_once_for_every_folder(
    tmp_path, no_revalidation, monkeypatch
):
    """A server only the user config names runs the same in every folder (in the user
    config's folder), so a folder opened for the first time mounts it from the listing
    another folder kept; a project's server of the same name keeps its own."""
    config, data = tmp_path / "config", tmp_path / "data"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("TOOLDECK_TRUST", "1")
    (config / "tooldeck").mkdir(parents=True)
    mine, theirs = tmp_path / "mine.starts", tmp_path / "theirs.starts"
    (config / "tooldeck" / "config.toml").write_text(counted("s", mine) + ALLOW)
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with Host.open(first, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
    assert starts(mine) == 1
    assert (data / "tooldeck" / FOLDER / "s.json").is_file()
    with Host.open(second, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
        assert starts(mine) == 1  # listed in the first folder: not started in the second
    project = make_project(tmp_path / "project", counted("s", theirs))
    with Host.open(project, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
        assert cache_file(host, "s").is_file()  # the project's own server, kept apart
    assert (starts(mine), starts(theirs)) == (1, 1)


def test_a_changed_config_or_program_is_listed_afresh(module_env, tmp_path, no_revalidation):
    script = tmp_path / "server.py"
    shutil.copy(SERVERS / "counted_server.py", script)
    log = tmp_path / "s.starts"
    root = make_project(tmp_path / "p", counted("s", log, script=script) + ALLOW)
    for _ in range(2):
        with Host.open(root, plugins=[], mcp_listings="cached") as host:
            assert names(host) == {"s_echo"}
    assert starts(log) == 1
    (root / "tooldeck.toml").write_text(counted("s", log, "--tools", "one", script=script))
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_one"}
    assert starts(log) == 2
    script.write_text(script.read_text() + "\n# a new version\n")
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_one"}
    assert starts(log) == 3


def test_a_corrupt_entry_is_ignored_with_a_note_and_replaced(module_env, tmp_path, no_revalidation):
    log = tmp_path / "s.starts"
    root = make_project(tmp_path / "p", counted("s", log) + ALLOW)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        path = cache_file(host, "s")
    path.write_text('{"format": 1, "key": "torn')
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
        row = next(p for p in host.plugins if p.name == "mcp:s")
        assert row.status == "active"
        assert any(str(path) in note and "ignored" in note for note in row.diagnostics)
    assert starts(log) == 2
    assert json.loads(path.read_text())["tools"][0]["name"] == "echo"  # kept again


@pytest.mark.parametrize(
    ("garbage", "why"),
    [
        ("{not json", "is not a listing entry"),
        ("[]", "expected a JSON object"),
        ('{"format": 1, "key": 5}', "'tools'"),
        (
            '{"format": 1, "key": "k", "tools": 3, "notes": [], "ttl_ms": null, "listed_at": 1}',
            "'tools' is not a list of objects",
        ),
        (
            '{"format": 1, "key": "k", "tools": [], "notes": [], "ttl_ms": -1, "listed_at": 1}',
            "'ttl_ms' is not a non-negative integer",
        ),
    ],
)
def test_a_file_that_is_not_an_entry_is_a_diagnostic(tmp_path, garbage, why):
    spec = spec_of(tmp_path, counted("s", tmp_path / "starts"))
    cache = ListingCache(tmp_path / "data")
    cache.store(spec, [{"name": "echo", "inputSchema": {"type": "object"}}], [], None)
    assert cache.load(spec)[0] is not None
    cache.path(spec).write_text(garbage)
    entry, problem = cache.load(spec)
    assert entry is None
    assert problem is not None and why in problem and str(cache.path(spec)) in problem


def test_another_format_or_server_is_a_plain_miss(tmp_path):
    spec = spec_of(tmp_path, counted("s", tmp_path / "starts"))
    other = spec_of(tmp_path, counted("s", tmp_path / "starts", "--tools", "x"))
    cache = ListingCache(tmp_path / "data")
    cache.store(spec, [], [], None)
    assert cache.load(other) == (None, None)  # same file name, another config
    cache.path(spec).write_text('{"format": 99}')
    assert cache.load(spec) == (None, None)


def spec_of(tmp_path: Path, table: str):
    """The ``ServerSpec`` of one ``[mcp.servers.NAME]`` table, as a Location reads it."""
    import tomllib

    from tooldeck.host.config.config import McpServerConfig
    from tooldeck.mcp.client.specs import server_specs

    servers = tomllib.loads(table)["mcp"]["servers"]
    configs = {name: McpServerConfig(**values) for name, values in servers.items()}
    return server_specs(configs, tmp_path)[0]


def test_a_declared_time_to_live_is_honoured(module_env, tmp_path, no_revalidation):
    short, long = tmp_path / "short.starts", tmp_path / "long.starts"
    config = counted("a", short, "--ttl-ms", "1") + counted("b", long, "--ttl-ms", "3600000")
    root = make_project(tmp_path / "p", config + ALLOW)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        kept = json.loads(cache_file(host, "b").read_text())
        assert kept["ttl_ms"] == 3600000
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"a_echo", "b_echo"}
    assert (starts(short), starts(long)) == (2, 1)  # 1 ms is long gone: listed again


def test_a_host_that_stays_open_revalidates_in_the_background(module_env, tmp_path, monkeypatch):
    listed = tmp_path / "tools.txt"
    listed.write_text("echo")
    log = tmp_path / "s.starts"
    root = make_project(tmp_path / "p", counted("s", log, "--tools", f"@{listed}") + ALLOW)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
    listed.write_text("echo,more")  # the server changes what it lists, its config does not
    monkeypatch.setattr(layer, "REVALIDATE_AFTER_S", 0.0)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        wait_for(lambda: names(host) == {"s_echo", "s_more"})
        assert starts(log) == 2
        kept = json.loads(cache_file(host, "s").read_text())
        assert [tool["name"] for tool in kept["tools"]] == ["echo", "more"]


def test_a_bad_listings_choice_is_refused(tmp_path):
    with pytest.raises(ValueError, match="mcp_listings must be 'cached' or 'fresh', got 'x'"):
        Host.open(tmp_path, mcp_listings="x")  # type: ignore[arg-type]


def test_an_unwritable_cache_never_fails_the_listing(module_env, tmp_path, no_revalidation):
    log = tmp_path / "s.starts"
    root = make_project(tmp_path / "p", counted("s", log) + ALLOW)
    data = tmp_path / "data"
    data.mkdir()
    (data / FOLDER).write_text("a file where the folder would be")
    with Host.open(root, plugins=[], data_dir=data, mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
        entry, problem = ListingCache(data).load(next(iter(_specs(host))))
        assert entry is None and "cannot be read" in (problem or "")


_LIMITED = """
import logging, resource, signal, sys
from tests.mcp.client.test_listing_cache import spec_of, counted
from pathlib import Path
from tooldeck.mcp.client.cache import ListingCache
logging.basicConfig(format="%(message)s")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
tmp = Path(sys.argv[1])
spec = spec_of(tmp, counted("s", tmp / "starts"))
resource.setrlimit(resource.RLIMIT_FSIZE, (5000, 5000))
ListingCache(tmp / "data").store(spec, [{"name": "x" * 6000}], [], None)
"""


def test_a_full_disk_keeps_the_old_entry_and_the_warning_names_the_file(tmp_path):
    spec = spec_of(tmp_path, counted("s", tmp_path / "starts"))
    cache = ListingCache(tmp_path / "data")
    cache.store(spec, [{"name": "echo"}], [], None)
    before = cache.path(spec).read_text()
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[3],
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"cannot keep the tool listing of MCP server 's' in {cache.path(spec)}: File too "
        "large (the old entry, if any, is unchanged)\n"
    )
    assert cache.path(spec).read_text() == before
    assert [p.name for p in cache.folder.iterdir()] == ["s.json"]


def _specs(host: Host):
    from tooldeck.mcp.client.specs import server_specs

    return server_specs(host.location.config.mcp.servers, host.location.root)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_commands_without_a_catalog_start_no_server_and_tools_answers_from_the_cache(
    module_env, tmp_path, no_revalidation
):
    a, b = tmp_path / "a.starts", tmp_path / "b.starts"
    root = make_project(tmp_path / "p", counted("a", a) + counted("b", b) + ALLOW)
    commands = (["--version"], ["--help"], ["trust", "--list"], ["trust", str(root), "--yes"])
    for argv in (*commands, ["tools", "--help"]):
        with contextlib.suppress(SystemExit):
            run_cli("--location", str(root), *argv)
    assert (starts(a), starts(b)) == (0, 0)
    for _ in range(2):
        code, out, _err = run_cli("--location", str(root), "tools")
        assert code == 0 and "a_echo" in out and "b_echo" in out
    assert (starts(a), starts(b)) == (1, 1)
    code, out, err = run_cli("--location", str(root), "call", "b_echo", '{"text": "x"}')
    assert code == 0, err
    assert "echo:x" in out
    assert (starts(a), starts(b)) == (1, 2)


def test_tools_names_the_server_that_failed_and_why(module_env, tmp_path, no_revalidation):
    log = tmp_path / "s.starts"
    broken = '[mcp.servers.broken]\ncommand = ["no-such-program-tooldeck"]\n'
    root = make_project(tmp_path / "p", counted("s", log) + broken + ALLOW)
    code, out, err = run_cli("--location", str(root), "tools")
    assert code == 0 and "s_echo" in out
    assert "tooldeck: MCP server mcp:broken failed: command 'no-such-program-tooldeck'" in err


NO_SDK_IMPORT = """
import json, sys
from tooldeck import Host
with Host.open(sys.argv[1], plugins=[], mcp_listings="cached") as host:
    names = sorted(host.snapshot().catalog.tools)
print(json.dumps({"names": names, "sdk": "mcp" in sys.modules}))
"""


def test_a_command_answered_from_kept_listings_does_not_import_the_sdk(module_env, tmp_path):
    log = tmp_path / "s.starts"
    root = make_project(tmp_path / "p", counted("s", log) + ALLOW)
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", NO_SDK_IMPORT, str(root)],
                capture_output=True,
                text=True,
                check=True,
                timeout=120,
            ).stdout
        )
        for _ in range(2)
    ]
    assert [run["sdk"] for run in runs] == [True, False]  # listed, then kept
    assert all("s_echo" in run["names"] for run in runs)
    assert starts(log) == 1


def test_a_kept_tool_without_a_tool_shape_is_ignored_with_a_note(
    module_env, tmp_path, no_revalidation
):
    log = tmp_path / "s.starts"
    root = make_project(tmp_path / "p", counted("s", log) + ALLOW)
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        path = cache_file(host, "s")
    entry = json.loads(path.read_text())
    entry["tools"][0]["inputSchema"] = 3  # the key still matches: only the tool is wrong
    path.write_text(json.dumps(entry))
    with Host.open(root, plugins=[], mcp_listings="cached") as host:
        assert names(host) == {"s_echo"}
        row = next(p for p in host.plugins if p.name == "mcp:s")
        assert any("holds a tool that is not a tool" in note for note in row.diagnostics)
    assert starts(log) == 2
