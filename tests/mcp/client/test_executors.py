"""Servers that run code themselves mount their tools natively unless the config says."""

from __future__ import annotations

import shutil
import sys

import pytest

from tooldeck import Host
from tooldeck.host.config.config import McpServerConfig
from tooldeck.mcp.client.executors import (
    CODE_EXECUTOR_HOSTS,
    CODE_EXECUTORS,
    default_codemode,
    runs_code,
)

from ..conftest import SERVERS, make_project, toml_list


@pytest.mark.parametrize(
    "command",
    [
        ["deno", "run", "-N", "jsr:@pydantic/mcp-run-python", "stdio"],
        ["uvx", "mcp-run-python@0.3", "stdio"],
        ["python", "-m", "mcp_run_python"],
        ["npx", "-y", "@riza-io/riza-mcp"],
        ["npx", "-y", "@e2b/mcp-server@1.2"],
        ["uvx", "jupyter-mcp-server==0.5"],
        ["npx", "-y", "mcp-server-code-runner@latest"],
        ["/opt/tools/bin/mcp-python-interpreter"],
        ["uvx", "--from", "e2b-mcp-server[all]", "e2b-mcp-server"],
        ["executor", "mcp"],
        ["/usr/local/bin/executor", "mcp"],
        ["uvx", "blender-mcp"],
        ["uvx", "blender_mcp@1.1"],
    ],
)
def test_a_code_executor_is_recognised_by_its_package_or_program(command):
    assert runs_code(McpServerConfig(command=tuple(command)))
    assert default_codemode(McpServerConfig(command=tuple(command))) is False


@pytest.mark.parametrize(
    "command",
    [
        ["python", "server.py"],
        ["python3", "-c", "print('mcp-run-python')"],
        ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."],
        ["uvx", "mcp-server-git"],
        ["npx", "-y", "mcp-server"],
    ],
)
def test_other_servers_keep_the_usual_default(command):
    assert not runs_code(McpServerConfig(command=tuple(command)))
    assert default_codemode(McpServerConfig(command=tuple(command))) is True


def test_a_url_is_recognised_by_a_path_segment_or_host_label():
    assert runs_code(McpServerConfig(url="https://tools.example/mcp-run-python/mcp"))
    assert runs_code(McpServerConfig(url="https://jupyter-mcp-server.example/mcp"))
    assert not runs_code(McpServerConfig(url="https://python.example/mcp"))


@pytest.mark.parametrize(
    "url",
    [
        "https://executor.sh/acme/mcp",
        "https://EXECUTOR.SH/team-x/mcp",
        "https://eu.executor.sh/acme/mcp",
        "https://mcp.cloudflare.com/mcp/",
        "https://mcp.cloudflare.com/sse",
    ],
)
def test_a_hosted_code_executor_is_recognised_by_its_host(url):
    assert runs_code(McpServerConfig(url=url))
    assert default_codemode(McpServerConfig(url=url)) is False


@pytest.mark.parametrize(
    "url",
    [
        "https://notexecutor.sh/acme/mcp",
        "https://docs.mcp.cloudflare.com.evil.example/mcp",
        "https://cloudflare.com/mcp",
    ],
)
def test_a_host_matches_whole_labels_only(url):
    assert not runs_code(McpServerConfig(url=url))


def test_the_config_overrides_the_list_both_ways():
    executor = ("uvx", "mcp-run-python")
    assert default_codemode(McpServerConfig(command=executor, codemode=True)) is True
    assert default_codemode(McpServerConfig(command=("uvx", "x"), codemode=False)) is False


def test_every_listed_name_is_in_the_docs():
    from pathlib import Path

    docs = (Path(__file__).parents[3] / "docs" / "mcp.md").read_text()
    names = sorted(CODE_EXECUTORS | CODE_EXECUTOR_HOSTS)
    assert [name for name in names if f"`{name}`" not in docs] == []


def mounted_codemode(tmp_path, extra: str, program: str = "mcp_run_python.py") -> bool:
    tmp_path.mkdir()
    script = tmp_path / program  # a real server whose program names an executor
    shutil.copy(SERVERS / "counted_server.py", script)
    argv = [sys.executable, str(script), str(tmp_path / "starts")]
    config = f"[mcp.servers.run]\ncommand = {toml_list(argv)}\n{extra}"
    with Host.open(make_project(tmp_path / "p", config), plugins=[]) as host:
        return host.snapshot().catalog.tools["run_echo"].tool.codemode


def test_a_mounted_code_executor_is_native_unless_the_config_says(module_env, tmp_path):
    assert mounted_codemode(tmp_path / "unset", "") is False
    assert mounted_codemode(tmp_path / "set", "codemode = true\n") is True


def test_a_server_run_as_executor_mounts_natively(module_env, tmp_path):
    assert mounted_codemode(tmp_path / "executor", "", program="executor") is False
