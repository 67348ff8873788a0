"""``tooldeck new-pack NAME``: the guide's pack, renamed, and green on its own tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import tooldeck
from tooldeck.cli import main, new_pack
from tooldeck.cli.new_pack import checkout_of, render

from ..full_disk import on_a_full_disk

ROOT = Path(__file__).resolve().parents[2]
_FENCE = re.compile(
    r"^<!--\s*file:\s*(?P<path>[^>]*?)\s*-->\n^```[\w-]*\n(?P<code>.*?)^```$", re.S | re.M
)


def guide_files() -> dict[str, str]:
    """The ``<!-- file: tooldeck-notes/... -->`` blocks of the two pages, by path."""
    files = {}
    for doc in ("pack-author-guide.md", "compat-matrix.md"):
        text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            files[match["path"].removeprefix("tooldeck-notes/")] = match["code"]
    return files


def subprocess_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
    env.update(XDG_CONFIG_HOME=str(home / "xdg-config"), XDG_DATA_HOME=str(home / "xdg-data"))
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", **extra}


def test_notes_renders_exactly_the_guides_pack():
    assert render("notes") == guide_files()


def test_it_writes_the_renamed_pack_and_says_what_to_run_next(tmp_path, capsys):
    assert main(["new-pack", "weather", "--parent", str(tmp_path)]) == 0
    folder = tmp_path / "tooldeck-weather"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "README.md",
        "matrix.sh",
        "pyproject.toml",
        "src/tooldeck_weather/__init__.py",
        "tests/test_neighbours.py",
        "tests/test_weather.py",
        "tox.ini",
    ]
    pyproject = (folder / "pyproject.toml").read_text()
    assert 'name = "tooldeck-weather"' in pyproject
    assert '[project.entry-points.tooldeck]\nweather = "tooldeck_weather"' in pyproject
    assert os.access(folder / "matrix.sh", os.X_OK)
    out = capsys.readouterr().out
    assert out.startswith(f"created {folder}\n") and ".venv/bin/tooldeck check ." in out


def a_checkout(root: Path) -> Path:
    """A folder laid out as a tooldeck checkout; its ``src/tooldeck`` package returned."""
    package = root / "src" / "tooldeck"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "tooldeck"\n')
    return package


def test_the_next_steps_install_this_checkout_and_run_the_matrix(tmp_path, capsys, monkeypatch):
    """Until a release, ``pip install tooldeck`` fails: the steps name the checkout this
    tooldeck runs from, and go on past ``tooldeck check`` to the matrix."""
    checkout = tmp_path / "tooldeck"
    package = a_checkout(checkout)
    monkeypatch.setattr(new_pack, "running_tooldeck", lambda: package)
    assert main(["new-pack", "memo", "--parent", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"this tooldeck: {package} (the checkout {checkout})"
    text = "\n".join(lines)
    assert f"    .venv/bin/pip install {checkout}   # tooldeck, from this checkout" in text
    for needed in ("PIP_FIND_LINKS", "../wheels", "tox p", "tox-uv", "--discover", "-m full"):
        assert needed in text
    assert f"    TOOLDECK_NEXT={checkout} bash matrix.sh" in lines
    assert f"    TOOLDECK_NEXT={checkout} bash matrix.sh -m full" in lines


def test_the_next_steps_from_an_installed_tooldeck_name_no_checkout(tmp_path, capsys, monkeypatch):
    """Run from a wheel (tox installs one), the steps say so and leave the checkout to
    the reader instead of naming site-packages as one."""
    package = tmp_path / "site-packages" / "tooldeck"
    package.mkdir(parents=True)
    monkeypatch.setattr(new_pack, "running_tooldeck", lambda: package)
    assert main(["new-pack", "memo", "--parent", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"this tooldeck: {package} (installed, not a checkout)"
    assert "    TOOLDECK_NEXT=/path/to/a/tooldeck/checkout bash matrix.sh" in lines
    assert "site-packages" not in "\n".join(lines[2:])


def test_installed_from_a_checkout_the_next_steps_name_that_checkout(tmp_path, capsys, monkeypatch):
    """The guide's step 1 is ``pip install ../tooldeck`` (not editable): a second pack
    started from that venv is told the checkout pip recorded, not an index that has no
    tooldeck yet."""
    checkout = tmp_path / "tooldeck"
    a_checkout(checkout)
    package = tmp_path / "site-packages" / "tooldeck"
    package.mkdir(parents=True)
    monkeypatch.setattr(new_pack, "running_tooldeck", lambda: package)
    monkeypatch.setattr(new_pack, "direct_url", lambda package: f'{{"url": "{checkout.as_uri()}"}}')
    assert main(["new-pack", "memo", "--parent", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"this tooldeck: {package} (installed from the checkout {checkout})"
    assert f"    .venv/bin/pip install {checkout}   # tooldeck, from that checkout" in "\n".join(
        lines
    )
    assert f"    TOOLDECK_NEXT={checkout} bash matrix.sh" in lines


@pytest.mark.parametrize(
    "recorded",
    [None, "", "not json", '{"url": "https://example.com/t.whl"}', '{"url": "file:///nowhere"}'],
)
def test_no_usable_origin_is_no_origin(recorded):
    assert new_pack.origin_checkout(recorded) is None


def test_a_wheel_or_another_project_is_no_checkout(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert new_pack.origin_checkout(f'{{"url": "{other.as_uri()}"}}') is None
    checkout = tmp_path / "tooldeck"
    a_checkout(checkout)
    assert new_pack.origin_checkout(f'{{"url": "{checkout.as_uri()}"}}') == checkout


def test_the_running_tooldeck_is_the_imported_package():
    assert new_pack.running_tooldeck() == Path(tooldeck.__file__).resolve().parent


def test_an_installed_tooldeck_is_named_and_no_checkout_is_guessed(tmp_path):
    site = tmp_path / "site-packages" / "tooldeck"
    site.mkdir(parents=True)
    assert checkout_of(site) is None
    fake = tmp_path / "other" / "src" / "tooldeck"
    fake.mkdir(parents=True)
    (tmp_path / "other" / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert checkout_of(fake) is None
    (tmp_path / "other" / "pyproject.toml").write_text('[project]\nname = "tooldeck"\n')
    assert checkout_of(fake) == tmp_path / "other"


@pytest.mark.parametrize(
    ("name", "dist", "module", "ns"),
    [
        ("memo", "tooldeck-memo", "tooldeck_memo", "memo"),
        ("tooldeck-memo", "tooldeck-memo", "tooldeck_memo", "memo"),
        ("tooldeck_memo", "tooldeck-memo", "tooldeck_memo", "memo"),
        ("tooldeck-weather-log", "tooldeck-weather-log", "tooldeck_weather_log", "weather_log"),
        ("weather-log", "tooldeck-weather-log", "tooldeck_weather_log", "weather_log"),
    ],
)
def test_a_distribution_style_name_is_the_same_pack(tmp_path, name, dist, module, ns):
    assert main(["new-pack", name, "--parent", str(tmp_path)]) == 0
    folder = tmp_path / dist
    assert (folder / "src" / module / "__init__.py").is_file()
    assert f'name = "{dist}"' in (folder / "pyproject.toml").read_text()
    assert f'{ns} = "{module}"' in (folder / "pyproject.toml").read_text()
    assert render(name) == render(ns)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["new-pack", "Weather"], "pack name 'Weather': use lowercase letters"),
        (["new-pack", "two__bars"], "pack name 'two__bars'"),
        (["new-pack", "tooldeck-"], "or the distribution name tooldeck-NAME"),
        (["new-pack", "tooldeck--memo"], "pack name 'tooldeck--memo'"),
        (["new-pack", "ok", "--parent", "no-such-dir"], "--parent no-such-dir: not a directory"),
    ],
)
def test_bad_names_and_parents_are_refused(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_an_existing_folder_is_left_alone(tmp_path, capsys):
    (tmp_path / "tooldeck-weather").mkdir()
    assert main(["new-pack", "weather", "--parent", str(tmp_path)]) == 2
    assert "tooldeck-weather already exists" in capsys.readouterr().err
    assert list((tmp_path / "tooldeck-weather").iterdir()) == []


_LIMITED = """
import sys
from tooldeck.cli import main
sys.exit(main(["new-pack", "weather", "--parent", sys.argv[1]]))
"""


def test_a_full_disk_leaves_no_half_pack_and_names_the_file(tmp_path):
    """A write failing part-way (a file-size limit, as a full disk) creates nothing, so
    the same command simply works once there is room."""
    done = on_a_full_disk(_LIMITED, str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert re.fullmatch(
        rf"tooldeck: error: cannot write {re.escape(str(tmp_path))}/tooldeck-weather/\S+: "
        r"File too large; nothing was created\n",
        done.stderr,
    )
    assert list(tmp_path.iterdir()) == []
    assert main(["new-pack", "weather", "--parent", str(tmp_path)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["tooldeck-weather"]


@pytest.mark.slow
def test_the_new_pack_passes_tooldeck_check_and_its_tests(tmp_path):
    assert main(["new-pack", "weather_log", "--parent", str(tmp_path)]) == 0
    folder = tmp_path / "tooldeck-weather-log"
    env = subprocess_env(tmp_path, PYTHONPATH=str(folder / "src"))
    check = subprocess.run(
        [sys.executable, "-m", "tooldeck", "check", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.stdout.splitlines() == [
        "tooldeck-weather-log: ok (weather_log_add, weather_log_search)",
        "no problems found",
    ], check.stdout + check.stderr
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_weather_log.py",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert re.search(r"^10 passed", done.stdout, flags=re.M), done.stdout + done.stderr


@pytest.mark.slow
def test_installed_in_a_venv_the_new_pack_passes_all_its_tests(tmp_path):
    """The guide's steps for the new pack: a venv that sees this tooldeck (and pytest,
    setuptools) through a ``.pth`` file, the pack installed editable, then every test of
    it, the neighbours test (which needs the installed entry point) included."""
    assert main(["new-pack", "weather", "--parent", str(tmp_path)]) == 0
    folder = tmp_path / "tooldeck-weather"
    env = subprocess_env(tmp_path)
    venv = folder / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300
    )
    [site_packages] = venv.glob("lib/python3*/site-packages")
    ours = sysconfig.get_paths()["purelib"]
    (site_packages / "_tooldeck_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    python = str(venv / "bin" / "python")
    steps = [
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", "."],
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
    ]
    for step in steps:
        done = subprocess.run(
            step, cwd=folder, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^11 passed", done.stdout, flags=re.M), done.stdout
