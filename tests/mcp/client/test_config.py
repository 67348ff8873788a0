"""``[mcp.servers.NAME]``: every mistake names the file and the key."""

from __future__ import annotations

import pytest

from tooldeck import Host
from tooldeck.errors import ConfigError
from tooldeck.mcp.client.specs import server_specs

from ..conftest import make_project


@pytest.mark.parametrize(
    ("table", "key", "message"),
    [
        (
            'command = ["a"]\nurl = "http://x"',
            "mcp.servers.calc",
            "expected exactly one of command (stdio) or url (streamable HTTP)",
        ),
        (
            "enabled = true",
            "mcp.servers.calc",
            "expected exactly one of command (stdio) or url (streamable HTTP)",
        ),
        ("command = []", "mcp.servers.calc", "command must start with the program to run, got []"),
        (
            'url = "ftp://x"',
            "mcp.servers.calc",
            "url must start with http:// or https://, got 'ftp://x'",
        ),
        (
            'url = "http://x"\nenv = {A = "1"}',
            "mcp.servers.calc",
            "env applies to a command, not to a url",
        ),
        (
            'url = "http://x"\ncwd = "sub"',
            "mcp.servers.calc",
            "cwd applies to a command, not to a url",
        ),
        (
            'command = ["a"]\nheaders = {A = "1"}',
            "mcp.servers.calc",
            "headers apply to a url, not to a command",
        ),
        (
            'command = ["a"]\ntimeout_s = 0',
            "mcp.servers.calc.timeout_s",
            "expected a number greater than 0.0, got 0",
        ),
        (
            'command = ["a"]\ntimeout_s = "5"',
            "mcp.servers.calc.timeout_s",
            "expected a number, got '5'",
        ),
        (
            'command = ["a"]\ncodemode = "yes"',
            "mcp.servers.calc.codemode",
            "expected a boolean, got 'yes'",
        ),
        (
            'command = ["a"]\nenabeld = false',
            "mcp.servers.calc.enabeld",
            "unknown key (did you mean 'enabled'?)",
        ),
        ('command = ["a"]\nauth = "oauth"', "mcp.servers.calc", 'auth = "oauth" applies to a url'),
        (
            'url = "http://x"\nauth = "basic"',
            "mcp.servers.calc.auth",
            "expected one of 'oauth', got 'basic'",
        ),
        ('url = "http://x"\nclient_id = "a"', "mcp.servers.calc", "client_id applies with auth"),
        (
            'url = "http://x"\nauth = "oauth"\nheaders = {Authorization = "Bearer t"}',
            "mcp.servers.calc",
            'auth = "oauth" sets the Authorization header; remove it from headers',
        ),
        (
            'url = "http://x"\nauth = "oauth"\ngrant = "client_credentials"',
            "mcp.servers.calc",
            'grant = "client_credentials" needs client_id (a pre-registered client)',
        ),
        (
            'url = "http://x"\nauth = "oauth"\ngrant = "client_credentials"\nclient_id = "m"',
            "mcp.servers.calc",
            'grant = "client_credentials" needs exactly one of client_secret_env',
        ),
        (
            'url = "http://x"\nauth = "oauth"\nprivate_key_file = "k.pem"',
            "mcp.servers.calc",
            'private_key_file applies with grant = "client_credentials"',
        ),
        (
            'url = "http://x"\nauth = "oauth"\nclient_secret_env = "S"',
            "mcp.servers.calc",
            "client_secret_env needs the client_id it is the secret of",
        ),
        (
            'url = "http://x"\nauth = "oauth"\nclient_metadata_url = "https://example.com/"',
            "mcp.servers.calc",
            "client_metadata_url must be an https URL with a path",
        ),
        (
            'url = "http://x"\nauth = "oauth"\nscopes = ["read write"]',
            "mcp.servers.calc",
            "scopes must be non-empty and without spaces",
        ),
        (
            'url = "http://x"\nauth = "oauth"\nissuer = "https://auth.example.com"',
            "mcp.servers.calc",
            'issuer applies with grant = "client_credentials"',
        ),
        (
            'url = "http://x"\nauth = "oauth"\ngrant = "client_credentials"\nclient_id = "m"\n'
            'client_secret_env = "S"\nissuer = "http://auth.example.com"',
            "mcp.servers.calc",
            "issuer must be the authorization server's issuer URL: https",
        ),
        (
            'url = "http://x"\nauth = "oauth"\ngrant = "client_credentials"\nclient_id = "m"\n'
            'client_secret_env = "S"\nissuer = "https://auth.example.com/?tenant=a"',
            "mcp.servers.calc",
            "issuer must be the authorization server's issuer URL",
        ),
        (
            'url = "http://x"\nissuer = "https://auth.example.com"',
            "mcp.servers.calc",
            'issuer applies with auth = "oauth"',
        ),
        (
            'url = "http://x"\nauth = "oauth"\ngrant = "client_credentials"\nclient_id = "m"\n'
            'private_key_file = "k.pem"\nsigning_algorithm = "HS256"',
            "mcp.servers.calc.signing_algorithm",
            "expected one of",
        ),
    ],
)
def test_a_bad_server_table_names_the_file_and_key(tooldeck_env, table, key, message):
    root = make_project(tooldeck_env / "p", f"[mcp.servers.calc]\n{table}\n")
    with pytest.raises(ConfigError) as raised:
        Host.open(root, plugins=[])
    assert raised.value.path.endswith("tooldeck.toml")
    assert raised.value.key == key
    assert raised.value.message.startswith(message)


def test_a_server_name_too_long_for_a_namespace_is_refused(tooldeck_env):
    root = make_project(tooldeck_env / "p", f'[mcp.servers.{"s" * 49}]\ncommand = ["a"]\n')
    with pytest.raises(ConfigError, match="must be 1-48 characters"):
        Host.open(root, plugins=[])


def test_specs_are_sorted_with_provider_safe_namespaces_and_resolved_cwd(tooldeck_env):
    root = make_project(
        tooldeck_env / "p",
        '[mcp.servers."web.search"]\nurl = "http://x/mcp"\n'
        '[mcp.servers.calc]\ncommand = ["calc", "--fast"]\ncwd = "tools"\n',
    )
    from tooldeck.host.config.config_files import load_config

    specs = server_specs(load_config(root).mcp.servers, root)
    assert [(s.name, s.namespace, s.plugin_name, s.origin) for s in specs] == [
        ("calc", "calc", "mcp:calc", "calc --fast"),
        ("web.search", "web_search", "mcp:web.search", "http://x/mcp"),
    ]
    assert specs[0].cwd == root / "tools"


def test_a_user_servers_paths_are_relative_to_the_user_config_folder(tooldeck_env):
    """A server only the user config names runs in its folder; one the project (trusted)
    names too, even a user's server it redefines, runs in the Location root."""
    folder = tooldeck_env / "xdg-config" / "tooldeck"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        '[mcp.servers.here]\ncommand = ["a"]\n'
        '[mcp.servers.tools]\ncommand = ["b"]\ncwd = "tools"\n'
        '[mcp.servers.mine]\ncommand = ["python", "-m", "mine"]\n'
        '[mcp.servers.web]\nurl = "https://x/mcp"\nauth = "oauth"\ngrant = "client_credentials"\n'
        'client_id = "me"\nprivate_key_file = "keys/web.pem"\n'
    )
    root = make_project(tooldeck_env / "p", '[mcp.servers.mine]\ncommand = ["python", "m.py"]\n')
    from tooldeck.host.config.config_files import config_sources
    from tooldeck.host.config.layers import layered_config

    config, layer = layered_config(*config_sources(root), trusted=True)
    specs = {s.name: s for s in server_specs(config.mcp.servers, root, layer.user_servers)}
    assert specs["here"].cwd == folder
    assert specs["tools"].cwd == folder / "tools"
    assert specs["web"].key_file == folder / "keys" / "web.pem"
    assert (specs["mine"].config.command, specs["mine"].cwd) == (("python", "m.py"), root)
    assert [name for name, spec in specs.items() if spec.from_user] == ["here", "tools", "web"]
