"""Config files: where they are, how they merge, and errors that name file and key."""

from __future__ import annotations

import pytest

from tooldeck.errors import ConfigError
from tooldeck.host.config.config import NOT_YET_AVAILABLE, Config, PluginsConfig
from tooldeck.host.config.config_files import describe, load_config, merge, user_config_path


@pytest.fixture
def project(clean_env, monkeypatch):
    """An empty project dir, also the working directory (so errors show short paths)."""
    root = clean_env / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def user_file(text):
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def error_of(root):
    with pytest.raises(ConfigError) as raised:
        load_config(root)
    return str(raised.value)


def test_no_files_means_defaults(project):
    assert load_config(project).plugins == PluginsConfig()


def test_tooldeck_toml(project):
    (project / "tooldeck.toml").write_text('[plugins]\ndisable = ["a"]\n')
    assert load_config(project).plugins.disable == ("a",)


def test_pyproject_tool_table(project):
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.tooldeck.plugins]\nonly = ["b"]\n'
    )
    assert load_config(project).plugins.only == ("b",)


def test_tooldeck_toml_wins_over_pyproject_entirely(project):
    (project / "tooldeck.toml").write_text('[plugins]\ndisable = ["a"]\n')
    (project / "pyproject.toml").write_text('[tool.tooldeck.plugins]\nonly = ["b"]\n')
    config = load_config(project)
    assert config.plugins.disable == ("a",)
    assert config.plugins.only is None


def test_project_over_user_deep_merged(project):
    user_file(
        '[plugins]\ndisable = ["u"]\norder = ["u"]\n[output]\nmax_lines = 10\n'
        '[[permission]]\naction = "bash"\neffect = "allow"\n'
    )
    (project / "tooldeck.toml").write_text(
        '[plugins]\ndisable = ["p"]\n[[permission]]\naction = "bash"\neffect = "deny"\n'
    )
    config = load_config(project)
    assert config.plugins.disable == ("p",)  # values are replaced...
    assert config.plugins.order == ("u",)  # ...tables merge key by key...
    assert config.output.max_lines == 10
    assert [r.effect for r in config.permission] == ["allow", "deny"]  # ...rules add up


def test_merge_rules():
    assert merge(
        {"a": {"x": 1, "y": [1]}, "r": [{"n": 1}]}, {"a": {"y": [2]}, "r": [{"n": 2}], "b": 3}
    ) == {"a": {"x": 1, "y": [2]}, "r": [{"n": 1}, {"n": 2}], "b": 3}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[plugins]\ndisable = "x"\n',
            "tooldeck.toml: plugins.disable: expected a list of strings, got 'x'",
        ),
        (
            "[plugins]\ndisable = [1]\n",
            "tooldeck.toml: plugins.disable[0]: expected a string, got 1",
        ),
        (
            "[plugins]\ndisabel = []\n",
            "tooldeck.toml: plugins.disabel: unknown key (did you mean 'disable'?); "
            "expected one of: disable, only, order",
        ),
        (
            "[output]\nmax_lines = 0\n",
            "tooldeck.toml: output.max_lines: expected an integer greater than 0, got 0",
        ),
        (
            '[output]\nmax_lines = "5"\n',
            "tooldeck.toml: output.max_lines: expected an integer, got '5'",
        ),
        (
            '[codemode]\nenabled = "yes"\n',
            "tooldeck.toml: codemode.enabled: expected a boolean, got 'yes'",
        ),
        (
            '[[permission]]\naction = "x"\neffect = "maybe"\n',
            "tooldeck.toml: permission[0].effect: expected one of 'allow', 'ask', 'deny', "
            "got 'maybe'",
        ),
        (
            '[[permission]]\naction = "x"\n',
            "tooldeck.toml: permission[0].effect: missing; expected one of 'allow', 'ask', 'deny'",
        ),
        ('plugins = "x"\n', "tooldeck.toml: plugins: expected a table, got 'x'"),
        (
            "[mcp.servers.a]\nenv = {A = 1}\n",
            "tooldeck.toml: mcp.servers.a.env.A: expected a string, got 1",
        ),
    ],
)
def test_errors_name_file_key_and_expectation(project, text, message):
    (project / "tooldeck.toml").write_text(text)
    assert error_of(project) == message


def test_errors_in_pyproject_use_the_full_key(project):
    (project / "pyproject.toml").write_text('[tool.tooldeck.plugins]\nonly = "b"\n')
    assert error_of(project) == (
        "pyproject.toml: tool.tooldeck.plugins.only: expected a list of strings, got 'b'"
    )


def test_errors_in_the_user_file_name_it(project):
    path = user_file("[nope]\n")
    assert error_of(project).startswith(f"{path}: nope: unknown key; expected one of: ")


def test_invalid_toml(project):
    (project / "tooldeck.toml").write_text("[plugins\n")
    assert error_of(project).startswith("tooldeck.toml: (toml): invalid TOML: ")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"[output]\nmax_lines = 5 # caf\xe9\n",
            "tooldeck.toml: (file): not UTF-8: byte 0xe9 on line 2",
        ),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "tooldeck.toml: (toml): nested too deeply"),
        (b"x = " + b"[" * 40 + b"]" * 40 + b"\n", "tooldeck.toml: (toml): nested deeper than 32"),
        (b"x" + b".k" * 40 + b" = 1\n", "tooldeck.toml: (toml): nested deeper than 32"),
    ],
    ids=["latin-1", "recursion", "deep-array", "deep-dotted"],
)
def test_unreadable_files_are_config_errors_naming_the_file(project, content, message):
    (project / "tooldeck.toml").write_bytes(content)
    assert error_of(project).startswith(message)


def test_host_open_on_an_unreadable_file_raises_config_error(project):
    from tooldeck import Host

    (project / "pyproject.toml").write_bytes(b"[tool.tooldeck]\nx = '\xff'\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: \(file\): not UTF-8"):
        Host.open(project)


def test_describe_types():
    assert describe(tuple[str, ...]) == "a list of strings"
    assert describe(dict[str, int]) == "a table of integers"
    assert describe(PluginsConfig) == "a table"


# -- keys whose feature this version does not have -------------------------------------------
NOT_AVAILABLE = "not available in this version of tooldeck"


@pytest.fixture
def unavailable_output(monkeypatch):
    """Pretend ``[output]`` configures a feature still to come (every feature has landed)."""
    from tooldeck.host.config import config

    monkeypatch.setitem(
        config.NOT_YET_AVAILABLE, "output", config.Unavailable("a feature still to come")
    )


def test_keys_of_features_not_in_this_version_are_rejected_by_name(project, unavailable_output):
    (project / "tooldeck.toml").write_text("[output]\nmax_lines = 5\n")
    assert error_of(project) == (
        f"tooldeck.toml: output.max_lines: {NOT_AVAILABLE} (a feature still to come); remove it"
    )


def test_codemode_settings_are_read(project):
    (project / "tooldeck.toml").write_text(
        "[codemode]\nenabled = false\nbudget_tokens = 500\ntype_check = false\n"
        "timeout_s = 5\nmemory_mb = 64\nmax_tool_calls = 10\n"
    )
    config = load_config(project).codemode
    assert (
        config.enabled,
        config.budget_tokens,
        config.type_check,
        config.timeout_s,
        config.memory_mb,
        config.max_tool_calls,
    ) == (False, 500, False, 5.0, 64, 10)


def test_an_unavailable_key_is_named_in_the_file_it_is_in(project, unavailable_output):
    (project / "pyproject.toml").write_text("[tool.tooldeck.output]\nmax_bytes = 9\n")
    assert error_of(project).startswith(
        f"pyproject.toml: tool.tooldeck.output.max_bytes: {NOT_AVAILABLE}"
    )


def test_a_wrong_type_is_reported_before_availability(project, unavailable_output):
    (project / "tooldeck.toml").write_text("[output]\nmax_lines = 0\n")
    assert error_of(project).startswith("tooldeck.toml: output.max_lines: expected an integer")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[codemode]\ntimeout_s = 0\n",
            "tooldeck.toml: codemode.timeout_s: expected a number greater than 0.0, got 0",
        ),
        (
            "[codemode]\nbudget_tokens = -1\n",
            "tooldeck.toml: codemode.budget_tokens: expected an integer at least 0, got -1",
        ),
        (
            "[codemode]\ntimeout_s = inf\n",
            "tooldeck.toml: codemode.timeout_s: expected a finite number, got inf",
        ),
        (
            "[codemode]\ntimeout_s = 1e300\n",
            "tooldeck.toml: codemode.timeout_s: expected a number at most 86400.0, got 1e+300",
        ),
        (
            "[codemode]\nmemory_mb = 100000000000\n",
            "tooldeck.toml: codemode.memory_mb: expected an integer at most 1048576, got "
            "100000000000",
        ),
        (
            "[output]\nmax_saved_mb = 0\n",
            "tooldeck.toml: output.max_saved_mb: expected an integer greater than 0, got 0",
        ),
        (
            '[mcp.servers.s]\ncommand = ["x"]\ntimeout_s = nan\n',
            "tooldeck.toml: mcp.servers.s.timeout_s: expected a finite number, got nan",
        ),
        (
            '[codemode]\ntype_check = "no"\n',
            "tooldeck.toml: codemode.type_check: expected a boolean, got 'no'",
        ),
    ],
)
def test_codemode_limits_are_checked(project, text, message):
    (project / "tooldeck.toml").write_text(text)
    assert error_of(project) == message


def test_every_unavailable_key_is_a_key_of_the_config():
    # A loop, not parameters: the list is empty whenever every feature has landed.
    for key in sorted(NOT_YET_AVAILABLE):
        model = Config
        for part in key.split("."):
            assert part in model.model_fields, f"NOT_YET_AVAILABLE names {key!r}, not in Config"
            model = model.model_fields[part].annotation
