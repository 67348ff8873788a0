"""The fenced blocks of a page under ``docs/`` (or ``README.md``), for the tests that run them.

A block is the text between a ```` ```LANG ```` line and the next ```` ``` ```` line; an
HTML comment on the line right before the fence is its marker (``<!-- file: PATH -->``,
``<!-- shell -->``, ``<!-- not run: why -->``), which each runner reads its own way.

Every page answers for every block: ``page(doc)`` is the one ``Page`` of a document, shared
by all its runners; each runner module takes the blocks its tests run
(``page("mcp.md").take("python", "StdioServerParameters")``, at import, so the takes are
known before any test runs), and ``tests/test_docs_meta.py`` imports the runner modules
(its ``RUNNERS``) and asserts ``page(doc).unclaimed() == []`` for every page. A block
nobody takes fails that test unless a ``<!-- not run: reason -->`` comment says why it
cannot run here, so a block added to a page later comes with its test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = "README.md"
FENCE = re.compile(
    r"(?:^<!--\s*(?P<marker>[^>]*?)\s*-->\n)?^```(?P<lang>[\w-]*)\n(?P<code>.*?)^```$",
    re.S | re.M,
)
NOT_RUN = "not run:"


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    code: str
    marker: str | None

    @property
    def file(self) -> str | None:
        """The path a ``<!-- file: PATH -->`` marker gives the block, else None."""
        if self.marker is None or not self.marker.startswith("file:"):
            return None
        return self.marker.removeprefix("file:").strip()

    @property
    def not_run(self) -> str | None:
        """The reason given by a ``<!-- not run: reason -->`` marker, else None."""
        if self.marker is None or not self.marker.startswith(NOT_RUN):
            return None
        return self.marker.removeprefix(NOT_RUN).strip()

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def source(doc: str) -> Path:
    """The file of a page: ``docs/<doc>``, or the README at the top."""
    return ROOT / README if doc == README else DOCS / doc


def pages() -> list[str]:
    """Every page whose blocks the tests answer for: ``docs/*.md`` and the README."""
    return [*sorted(path.name for path in DOCS.glob("*.md")), README]


def blocks(doc: str) -> list[Block]:
    """Every fenced block of a page, in order; ``line`` is the fence's (1-based)."""
    return fenced(source(doc).read_text(encoding="utf-8"), doc)


def fenced(text: str, doc: str) -> list[Block]:
    """Every fenced block of a markdown ``text``, which ``doc`` names in test ids."""
    return [
        Block(doc, text.count("\n", 0, m.start("code")), m["lang"], m["code"], m["marker"])
        for m in FENCE.finditer(text)
    ]


class Page:
    """The blocks of one page and which of them a runner has taken."""

    def __init__(self, doc: str, text: str | None = None) -> None:
        """The page ``doc`` (see ``source``), or ``text`` standing for it."""
        self.doc = doc
        self.text = source(doc).read_text(encoding="utf-8") if text is None else text
        self.blocks = fenced(self.text, doc)
        self._taken: set[int] = set()

    def take(self, lang: str, containing: str) -> Block:
        """The one ``lang`` block containing ``containing``, now counted as run."""
        found = [
            (i, b) for i, b in enumerate(self.blocks) if b.lang == lang and containing in b.code
        ]
        assert len(found) == 1, f"{self.doc}: {len(found)} {lang} blocks contain {containing!r}"
        return self.claim(found[0][1])

    def claim(self, block: Block) -> Block:
        """``block`` (one of ``self.blocks``, found by the runner's own rule), now counted
        as run."""
        index = self.blocks.index(block)
        assert block.not_run is None, f"{block} is marked not run, yet a test takes it"
        assert index not in self._taken, f"{block} is taken twice"
        self._taken.add(index)
        return block

    def unclaimed(self) -> list[str]:
        """Blocks neither taken nor marked ``not run`` with a reason (should be none)."""
        return [
            f"{block} ({block.lang or 'no language'}): {(block.code.splitlines() or [''])[0]!r}"
            for i, block in enumerate(self.blocks)
            if i not in self._taken and not block.not_run
        ]


@cache
def page(doc: str) -> Page:
    """The one ``Page`` of ``doc``, shared by every runner that takes its blocks."""
    return Page(doc)
