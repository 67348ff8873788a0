"""The Host and Origin values a served replica accepts: its own address, then the names
``--allowed-host`` and ``[mcp.serve] allowed_hosts`` add (a load balancer's)."""

from __future__ import annotations

import pytest

from tooldeck.errors import ConfigError
from tooldeck.host.config.config_files import load_config
from tooldeck.mcp.serve.command import HttpAddress, _allowed


def test_loopback_accepts_its_address_and_localhost_then_the_added_names():
    allowed = _allowed(HttpAddress("127.0.0.1", 8001), ["127.0.0.1:8080", "mcp.example.com"])
    assert allowed["allowed_hosts"] == [
        "127.0.0.1:8001",
        "localhost:8001",
        "127.0.0.1:8080",
        "mcp.example.com",
    ]
    assert allowed["allowed_origins"] == [
        "http://127.0.0.1:8001",
        "http://localhost:8001",
        "http://127.0.0.1:8080",
        "https://127.0.0.1:8080",
        "http://mcp.example.com",
        "https://mcp.example.com",
    ]


def test_without_added_names_only_the_bound_address_is_accepted():
    allowed = _allowed(HttpAddress("10.0.0.5", 8001), ["10.0.0.5:8001"])
    assert allowed["allowed_hosts"] == ["10.0.0.5:8001"]


@pytest.mark.parametrize("bad", ["", "http://lb:8080", "lb/mcp", "a b", "a,b"])
def test_a_value_that_is_no_host_header_is_a_config_error_naming_the_key(tmp_path, bad):
    (tmp_path / "tooldeck.toml").write_text(f'[mcp.serve]\nallowed_hosts = ["{bad}"]\n')
    with pytest.raises(ConfigError, match="allowed_hosts"):
        load_config(tmp_path)


def test_the_flag_refuses_a_bad_value_before_anything_opens(tmp_path, capsys):
    from tooldeck.cli import main

    code = main(
        ["mcp", "serve", "--location", str(tmp_path), "--http", "1", "--allowed-host", "x/y"]
    )
    assert code == 2
    assert "--allowed-host: allowed host 'x/y': expected a Host header value" in (
        capsys.readouterr().err
    )
