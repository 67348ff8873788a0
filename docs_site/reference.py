"""mkdocs hook: the docstring reference (``docs/reference.md``) lists what ``docs/api.md`` lists.

``docs/api.md`` is the curated index of the public surface: one ``### `name``` entry per
public name, grouped under ``## `` headings, kept complete by
``tests/test_public_surface.py``. The docs site adds each name's docstrings, rendered by
mkdocstrings. Rather than keep a second list of names, this hook writes one ``:::``
directive per api.md entry, under the same groups, where ``reference.md`` holds the
marker line, so a name added to the API (and so to api.md) appears here by itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = "<!-- the directives: one per docs/api.md entry, written by docs_site/reference.py -->"
HEADING = re.compile(r"^(?P<level>##|###) (?P<title>.+)$", re.M)
FENCE = re.compile(r"^```.*?^```$", re.S | re.M)


def qualified(key: str) -> str:
    """api.md's key as an import path: bare names are exported by ``tooldeck``."""
    return key if key.startswith("tooldeck.") else f"tooldeck.{key}"


def groups(api: str) -> list[tuple[str, list[str]]]:
    """(group title, qualified names) in api.md's order; code blocks are skipped, since
    a ``#`` comment in one is no heading."""
    found: list[tuple[str, list[str]]] = []
    for match in HEADING.finditer(FENCE.sub("", api)):
        if match["level"] == "##":
            found.append((match["title"], []))
        elif found:
            found[-1][1].append(qualified(match["title"].strip("`")))
    return [(title, names) for title, names in found if names]


def directives(api: str) -> str:
    sections = []
    for title, names in groups(api):
        sections.append(f"## {title}\n")
        sections.extend(f"::: {name}\n" for name in names)
    return "\n".join(sections)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != "reference.md":
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"reference.md: the marker line is missing ({MARKER})")
    api = (Path(config["docs_dir"]) / "api.md").read_text(encoding="utf-8")
    return markdown.replace(MARKER, directives(api))
