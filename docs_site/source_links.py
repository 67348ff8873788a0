"""mkdocs hook: links from a page to the repository's own files become pages of the site.

The pages under ``docs/`` are read in the repository too, where ``[tox.ini](../tox.ini)``
opens the file. mkdocs knows only ``docs/``, so such a link would be broken on the site
(and ``--strict`` fails the build). This hook publishes every repository file or folder
a page links to as a page of its own under ``source/`` (the file's text in a code
block; a folder's files one after another) and points the link there. A link to a path
that does not exist fails the build, as a broken link inside ``docs/`` does.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

# [text](../path) or [text](../path#anchor): a link that leaves docs/ for the repository
OUTSIDE = re.compile(r"\]\((?P<target>\.\./[^)#\s]+)(?P<anchor>#[^)\s]*)?\)")
LANGUAGES = {".py": "python", ".toml": "toml", ".ini": "ini", ".md": "markdown"}
SKIPPED = re.compile(r"^(\.|__pycache__$|build$|dist$|.*\.egg-info$)")
PREFIX = "source"


def _repository(config: Any) -> Path:
    return Path(config["docs_dir"]).resolve().parent


def _targets(config: Any) -> dict[str, Path]:
    """Every repository path a page links to: its path from the repository root, and
    the file or folder."""
    docs = Path(config["docs_dir"]).resolve()
    root = _repository(config)
    found: dict[str, Path] = {}
    for page in sorted(docs.rglob("*.md")):
        for match in OUTSIDE.finditer(page.read_text(encoding="utf-8")):
            target = (page.parent / match["target"]).resolve()
            if not target.is_relative_to(root):
                raise PluginError(f"{page.name}: {match['target']} leaves the repository")
            if not target.exists():
                raise PluginError(f"{page.name}: {match['target']} does not exist")
            found[target.relative_to(root).as_posix()] = target
    return found


def _fence(text: str, language: str) -> str:
    """A fenced block longer than any run of backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"


def _files_of(folder: Path) -> list[Path]:
    """The files of ``folder`` a reader wants, in path order (no caches or builds)."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not any(SKIPPED.match(part) for part in path.relative_to(folder).parts)
    )


def _source_page(path: str, target: Path) -> str:
    if target.is_file():
        text = target.read_text(encoding="utf-8")
        return f"# `{path}`\n\n{_fence(text, LANGUAGES.get(target.suffix, 'text'))}"
    sections = [f"# `{path}/`\n"]
    for file in _files_of(target):
        text = file.read_text(encoding="utf-8")
        language = LANGUAGES.get(file.suffix, "text")
        sections.append(f"## `{file.relative_to(target).as_posix()}`\n\n{_fence(text, language)}")
    return "\n".join(sections)


def on_files(files: Files, config: Any) -> Files:
    for path, target in _targets(config).items():
        files.append(
            File.generated(config, f"{PREFIX}/{path}.md", content=_source_page(path, target))
        )
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    docs = Path(config["docs_dir"]).resolve()
    root = _repository(config)
    here = posixpath.dirname(page.file.src_uri)

    def published(match: re.Match[str]) -> str:
        target = (docs / here / match["target"]).resolve().relative_to(root).as_posix()
        link = posixpath.relpath(f"{PREFIX}/{target}.md", here or ".")
        return f"]({link}{match['anchor'] or ''})"

    return OUTSIDE.sub(published, markdown)
