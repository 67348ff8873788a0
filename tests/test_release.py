"""A release could be cut: one version, a changelog, a long description PyPI renders.

* **One version.** ``tooldeck.__version__`` (a literal in ``src/tooldeck/__init__.py``)
  is the only place the version is written; ``pyproject.toml`` declares it dynamic and
  setuptools reads that literal without importing the package. So ``tooldeck
  --version`` (which imports nothing heavy, ``tests/cli/test_main.py``) and the built
  wheel's metadata cannot disagree.
* **A changelog** whose newest section is this version or ``Unreleased``.
* **The long description** (``README.md``, ``text/markdown``) renders as PyPI renders
  it; the slow test builds the sdist and the wheel and runs ``twine check --strict``
  on them, as ``.ci/run`` does.
* **A testable sdist.** The sdist holds the whole source tree, the suite and everything
  it reads (the docs, the examples, the example packs, ``bench/``, ``.ci/run``), so a
  packager can run the tests from it.
* **Install lines.** Until a release exists, every ``pip install tooldeck`` /
  ``'tooldeck[EXTRA]'`` in the README and ``docs/`` says how to install from a checkout
  or a wheel, and the wheel file names they give carry this version.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.version import Version
from readme_renderer.markdown import render

import tooldeck

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "tooldeck"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
INSTALL = re.compile(r"pip install (?:tooldeck(?![-\w])|'tooldeck\[)")
WHEEL_NAME = re.compile(r"tooldeck-(\d[\w.]*)-py3-none-any\.whl")
TEXT_BLOCK = re.compile(r"^```text\n.*?^```$", re.S | re.M)


def version_assignments(path: Path) -> list[ast.Assign]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
    ]


def test_the_version_is_written_once_in_the_package():
    [assignment] = version_assignments(SRC / "__init__.py")
    assert isinstance(assignment.value, ast.Constant)
    assert assignment.value.value == tooldeck.__version__
    Version(tooldeck.__version__)  # a valid PEP 440 version
    others = [
        str(path.relative_to(ROOT))
        for path in sorted(SRC.rglob("*.py"))
        if path != SRC / "__init__.py" and version_assignments(path)
    ]
    assert others == []


def test_pyproject_reads_the_version_from_the_package():
    project = PYPROJECT["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "tooldeck.__version__"}


def test_the_changelog_opens_with_this_version_or_unreleased():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.findall(r"^## (.+)$", text, flags=re.M)[0]
    heading = newest.strip("[]").split("]")[0].split()[0]
    assert heading in ("Unreleased", tooldeck.__version__), newest
    assert "Keep a Changelog" in text


def test_the_long_description_renders_as_on_pypi():
    project = PYPROJECT["project"]
    assert project["readme"] == "README.md"  # setuptools declares it text/markdown
    # PyPI renders it with readme_renderer's GFM (comrak); twine check does not render
    # Markdown at all, so this is the check that it renders.
    html = render((ROOT / "README.md").read_text(encoding="utf-8"))
    assert html is not None
    assert re.search(r"<h1 [^>]*>tooldeck<", html), html[:300]
    assert "<h2 " in html and "<pre" in html


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", doc_pages(), ids=lambda p: p.name)
def test_every_install_line_says_how_to_install_before_a_release(doc):
    """A ``pip install tooldeck`` fails until a release exists, so each one has a
    checkout or a wheel within three lines. Program output (``text`` blocks) is left
    alone: it is printed when tooldeck is installed, and there ``pip install
    'tooldeck[EXTRA]'`` adds the extra."""
    lines = TEXT_BLOCK.sub("", doc.read_text(encoding="utf-8")).splitlines()
    for number, line in enumerate(lines):
        if INSTALL.search(line):
            near = " ".join(lines[max(0, number - 3) : number + 4])
            assert "checkout" in near or ".whl" in near, f"{doc.name}: {line!r}"


@pytest.mark.parametrize("doc", doc_pages(), ids=lambda p: p.name)
def test_wheel_names_in_the_docs_carry_this_version_or_a_later_one(doc):
    """This version's wheel, or a "next tooldeck" (``compat-matrix.md``)."""
    versions = map(Version, WHEEL_NAME.findall(doc.read_text(encoding="utf-8")))
    assert all(version >= Version(tooldeck.__version__) for version in versions), doc.name


@pytest.mark.slow
def test_the_built_sdist_and_wheel_pass_twine_check(tmp_path):
    """What ``.ci/run`` builds, built here without isolation (the test extra holds the
    build backend): both carry this version, and twine accepts them for PyPI."""
    tree = tmp_path / "tree"  # setuptools writes build/ and *.egg-info beside the sources
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "CHANGELOG.md"):
        shutil.copy(ROOT / name, tree / name)
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), "."]
    done = subprocess.run(build, cwd=tree, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    version = tooldeck.__version__
    wheel = tmp_path / f"tooldeck-{version}-py3-none-any.whl"
    sdist = tmp_path / f"tooldeck-{version}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in tmp_path.iterdir())
    with zipfile.ZipFile(wheel) as archive:
        metadata = Parser().parsestr(
            archive.read(f"tooldeck-{version}.dist-info/METADATA").decode()
        )
    assert metadata["Version"] == version
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata["License-Expression"] == "MIT"
    check = [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)]
    done = subprocess.run(check, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


SOURCE_TREE = (
    *(".ci", "bench", "docs", "docs_site", "example_plugins", "examples", "src", "tests"),
    *("tests_packs", ".gitignore", "CHANGELOG.md", "LICENSE", "MANIFEST.in", "README.md"),
    *("mkdocs.yml", "pyproject.toml", "tox.ini"),
)
"""What the suite and the build read: the checkout without its caches and builds."""

BUILT = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info", "build", "dist")


def test_the_sdist_holds_the_source_tree_the_suite_runs_from(tmp_path):
    tree, out = tmp_path / "tree", tmp_path / "dist"
    for name in SOURCE_TREE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name, ignore=BUILT)
        else:
            shutil.copy(ROOT / name, tree / name)
    build = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out)]
    done = subprocess.run([*build, "."], cwd=tree, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    top = f"tooldeck-{tooldeck.__version__}"
    with tarfile.open(out / f"{top}.tar.gz") as archive:
        shipped = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    wanted = {
        path.relative_to(tree).as_posix()
        for path in tree.rglob("*")
        if path.is_file() and "egg-info" not in path.as_posix()
    }
    assert sorted(wanted - shipped) == []
