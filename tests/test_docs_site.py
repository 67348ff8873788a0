"""The docs site (``mkdocs.yml``): every page in the nav, and the two hooks it builds with.

* **The nav** lists every page of ``docs/`` once; a page left out would be built but
  unreachable (``mkdocs build --strict`` reports it too, in ``tox -e docs``).
* **``docs_site/reference.py``** writes one mkdocstrings directive per ``docs/api.md``
  entry: each names an object that imports, so the generated reference resolves.
* **``docs_site/source_links.py``** publishes the repository files a page links to
  (``../tox.ini``) as pages, and a link to a path that does not exist fails the build.
* The slow test builds the real site with ``--strict``, as ``tox -e docs`` does.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
import yaml
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"docs_site_{name}", ROOT / "docs_site" / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nav_pages(nav: list[object]) -> list[str]:
    found: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        found.extend(nav_pages(value) if isinstance(value, list) else [str(value)])
    return found


def site_config() -> dict[str, object]:
    # mkdocs.yml holds no custom YAML tags, so the plain loader reads it
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_the_nav_lists_every_page_once():
    pages = nav_pages(site_config()["nav"])
    assert sorted(pages) == sorted(path.name for path in DOCS.glob("*.md"))
    assert len(pages) == len(set(pages))


def test_the_site_is_built_strictly_with_its_hooks():
    config = site_config()
    assert config["strict"] is True
    assert config["hooks"] == [
        "docs_site/source_links.py",
        "docs_site/reference.py",
        "docs_site/cli_reference.py",
    ]
    assert set(config["validation"].values()) == {"warn"}  # and strict makes a warning fail


def test_the_reference_has_a_directive_for_every_api_entry_and_each_imports():
    reference = hook("reference.py")
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    names = [name for _, group in reference.groups(api) for name in group]
    entries = re.findall(r"^### `([\w.]+)`$", api, flags=re.M)
    assert len(names) == len(entries) == len(set(names))
    for name in names:
        module, _, attribute = name.rpartition(".")
        assert hasattr(importlib.import_module(module), attribute), name
    directives = reference.directives(api)
    assert directives.count("\n::: ") + directives.startswith("::: ") == len(names)
    assert "## Tools\n" in directives and "::: tooldeck.Tool\n" in directives


def test_the_reference_page_holds_the_marker_the_hook_replaces():
    reference = hook("reference.py")
    assert reference.MARKER in (DOCS / "reference.md").read_text(encoding="utf-8")


def fake_site(tmp_path: Path, page: str) -> SimpleNamespace:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(page)
    (tmp_path / "tox.ini").write_text("[tox]\nenv_list = py311\n")
    (tmp_path / "pack" / "src").mkdir(parents=True)
    (tmp_path / "pack" / "README.md").write_text("# pack\n\n```bash\nls\n```\n")
    (tmp_path / "pack" / "src" / "pack.py").write_text("X = 1\n")
    (tmp_path / "pack" / "__pycache__").mkdir()
    (tmp_path / "pack" / "__pycache__" / "pack.pyc").write_bytes(b"\0")
    return SimpleNamespace(config={"docs_dir": str(tmp_path / "docs")})


def test_repository_links_become_pages_of_their_files(tmp_path):
    links = hook("source_links.py")
    site = fake_site(tmp_path, "See [tox.ini](../tox.ini) and [the pack](../pack#top).\n")
    targets = links._targets(site.config)
    assert sorted(targets) == ["pack", "tox.ini"]
    assert links._source_page("tox.ini", targets["tox.ini"]) == (
        "# `tox.ini`\n\n```ini\n[tox]\nenv_list = py311\n```\n"
    )
    folder = links._source_page("pack", targets["pack"])
    assert "## `README.md`\n\n````markdown\n# pack" in folder  # a fence longer than ```
    assert "## `src/pack.py`\n\n```python\nX = 1\n```" in folder
    assert "__pycache__" not in folder
    page = SimpleNamespace(file=SimpleNamespace(src_uri="page.md"))
    markdown = links.on_page_markdown(
        (tmp_path / "docs" / "page.md").read_text(), page, site.config, None
    )
    assert markdown == "See [tox.ini](source/tox.ini.md) and [the pack](source/pack.md#top).\n"


def test_a_repository_link_to_nothing_fails_the_build(tmp_path):
    links = hook("source_links.py")
    site = fake_site(tmp_path, "See [the plan](../PLAN.md).\n")
    with pytest.raises(PluginError, match=r"page.md: \.\./PLAN.md does not exist"):
        links._targets(site.config)


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    """What ``tox -e docs`` runs; a broken link, anchor or reference fails it."""
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    reference = (site / "reference" / "index.html").read_text(encoding="utf-8")
    for anchor in ("tooldeck.Tool", "tooldeck.testing.TestHost", "tooldeck.paths.is_inside"):
        assert f'id="{anchor}"' in reference
    assert (site / "source" / "tox.ini" / "index.html").is_file()
    assert (site / "images" / "call-path.svg").is_file()


def test_the_command_line_page_is_every_commands_help():
    """One section per command and per subcommand, each exactly what ``--help`` prints:
    a command added to the CLI appears by itself."""
    from tooldeck.cli import COMMANDS

    cli = hook("cli_reference.py")
    assert cli.MARKER in (DOCS / "cli.md").read_text(encoding="utf-8")
    lines = [" ".join(argv) for argv in cli.command_lines()]
    assert set(COMMANDS) <= set(lines) and {"mcp serve", "mcp login"} <= set(lines)
    page = cli.sections()
    for line in lines:
        title = " ".join(["tooldeck", line]).strip()
        assert f"## `{title}`\n\n```text\nusage: {title}" in page, title
    assert "--json" in page.split("## `tooldeck call`")[1].split("## ")[0]
