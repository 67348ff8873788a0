"""The pack author's path, followed literally: from an empty folder to a green matrix.

Next to a copy of this checkout (``tooldeck/``, standing for the checkout the guide
installs from), an empty folder gets exactly what the docs say, in order:

1. the ``<!-- shell -->`` steps of ``docs/pack-author-guide.md`` (a fresh venv, tooldeck
   from the checkout, the pack installed with its test extra, ``pytest``, ``tooldeck
   check .``), with the guide's files and the compatibility page's ``tox.ini`` and
   neighbours test written where their ``<!-- file: ... -->`` markers say;
2. the ``<!-- shell -->`` step of ``docs/compat-matrix.md`` exactly as written: the
   page's ``matrix.sh`` builds the wheels that are on no index yet (tooldeck's and the
   neighbour packs') and runs tox's default cells in parallel (one per Python, and the
   neighbours), then, with ``-m full``, every tooldeck version on every Python too.

Like a user in one shell, the first step runs in the empty folder and ``cd``s into the
pack; every later step starts in the pack's folder. Slow (a venv and eleven tox
environments): marked ``slow``, and run by ``tox -e packs``, which CI runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

_FENCE = re.compile(
    r"^<!--\s*(?P<marker>[^>]*?)\s*-->\n^```(?P<lang>[\w-]*)\n(?P<code>.*?)^```$", re.S | re.M
)
_COPY_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", ".tox", ".hypothesis", "*_cache", "__pycache__", "build", "dist", "*.egg-info"
)


def marked(doc: str) -> list[tuple[str, str]]:
    """(marker, code) of every block of ``doc`` with a marker comment, in order."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    return [(m["marker"], m["code"]) for m in _FENCE.finditer(text)]


def shell_steps(doc: str) -> list[str]:
    return [code for marker, code in marked(doc) if marker == "shell"]


def write_files(doc: str, where: Path) -> list[str]:
    written = []
    for marker, code in marked(doc):
        if marker.startswith("file:"):
            path = where / marker.removeprefix("file:").strip()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(code, encoding="utf-8")
            written.append(str(path.relative_to(where)))
    return written


def run(script: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=2400,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"this step of the docs failed:\n{script}\n{output[-8000:]}"
    return output


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder with a copy of this checkout next to it."""
    where = tmp_path_factory.mktemp("pack-author")
    shutil.copytree(ROOT, where / "tooldeck", ignore=_COPY_IGNORED)
    return where


@pytest.fixture(scope="module")
def env(folder: Path) -> dict[str, str]:
    """The user's shell: nothing of this tox env, no tooldeck settings, own XDG dirs."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TOOLDECK_", "TOX_", "PACKS_"))
        and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env.update(
        XDG_CONFIG_HOME=str(folder / "xdg-config"),
        XDG_DATA_HOME=str(folder / "xdg-data"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def test_the_guide_from_an_empty_folder(folder: Path, env: dict[str, str]) -> None:
    first, second = shell_steps("pack-author-guide.md")
    run(first, folder, env)
    files = write_files("pack-author-guide.md", folder) + write_files("compat-matrix.md", folder)
    assert "tooldeck-notes/tox.ini" in files and "tooldeck-notes/tests/test_neighbours.py" in files
    output = run(second, folder / "tooldeck-notes", env)
    assert re.search(r"\b11 passed in ", output), output[-3000:]
    assert "tooldeck-notes: ok (notes_add, notes_search)\nno problems found" in output


def test_the_compat_matrix_goes_green(folder: Path, env: dict[str, str]) -> None:
    if not (folder / "tooldeck-notes" / ".venv").is_dir():
        pytest.fail("test_the_guide_from_an_empty_folder must run first (same module)")
    [step] = shell_steps("compat-matrix.md")
    output = run(step, folder / "tooldeck-notes", env)
    default, full = output.split("congratulations :)")[:2]
    cells = re.findall(r"^  (py3\d+(?:-\w+)?): OK", default, flags=re.M)
    assert sorted(cells) == ["py311", "py312", "py312-neighbours", "py313"], output[-4000:]
    cells = re.findall(r"^  (py3\d+-\w+): OK", full, flags=re.M)
    assert sorted(cells) == sorted(
        [
            *(f"py{v}-tooldeck{t}" for v in (311, 312, 313) for t in ("01", "latest")),
            "py312-tooldecknext",
            "py312-neighbours",
        ]
    ), output[-4000:]
    assert output.count("congratulations :)") == 2
