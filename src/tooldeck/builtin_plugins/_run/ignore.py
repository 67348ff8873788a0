"""Which files a search sees: a gitignore-aware walk and glob patterns (``glob``, ``grep``).

``glob`` and both ``grep`` engines take their files from ``walk_files`` alone, so they
always agree on what exists and what is ignored. The rules, chosen to match what ``git``
itself would show:

* ``.git`` (a directory, or the file of a worktree/submodule) is never listed or entered.
* ``.gitignore`` files apply from the top of the enclosing git repository down to each
  file; deeper files take precedence, and within a file the last matching line wins
  (``!`` re-includes). Outside any repository they apply from the Location root down
  (or from the searched directory itself when it lies outside the Location). A nested
  repository starts afresh: the outer rules stop at its root, as they do for git.
* An ignored directory is pruned: nothing inside it can be re-included (git's rule).
* Hidden files are listed. Directory symlinks are not followed (no cycles, no escaping
  the tree); symlinks to files are listed and flagged, so a reader can decide.
* ``.git/info/exclude`` and the global excludes file are not read: the result depends
  on the tree alone.

Order is a depth-first walk with each directory's entries sorted by name (code point
order), so ``a/b.txt`` precedes ``a.txt``: stable from call to call, unlike mtimes.

Glob patterns (the ``glob`` pattern, ``grep``'s ``include``) use gitignore syntax too: a
pattern without ``/`` matches a file name at any depth (``*.py``); one with ``/`` is
anchored at the searched directory (``src/*.py``); ``**`` spans directories; ``*`` and
``?`` stay inside one name; ``[abc]``/``[!abc]`` classes; ``{a,b}`` alternatives.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

GITIGNORE = ".gitignore"
GIT = ".git"


@dataclass(frozen=True, slots=True)
class _Rules:
    """One directory's ``.gitignore``, and how a walk-relative path maps into it.

    A path relative to the walk top becomes relative to this directory by dropping
    ``strip`` (a directory below the top) and prepending ``prefix`` (the top's place
    below an ancestor directory).
    """

    spec: GitIgnoreSpec
    prefix: str = ""
    strip: str = ""

    def verdict(self, relative: str) -> bool | None:
        """True ignored, False re-included (``!``), None when no line matches."""
        return self.spec.check_file(self.prefix + relative[len(self.strip) :]).include


Chain = tuple[_Rules, ...]


class Walked(NamedTuple):
    """A file found by ``walk_files``."""

    relative: str
    """Its path relative to the walk top, with ``/`` separators."""
    path: str
    """Its absolute path (a ``str``: a walk makes tens of thousands, ``Path`` costs 10x)."""
    link: bool
    """Whether it is a symlink (to a file): a reader decides whether to follow it."""


def walk_files(top: Path, root: Path, stop: threading.Event | None = None) -> Iterator[Walked]:
    """Every file under ``top`` that is not ignored, in walk order.

    ``root`` is the Location root: it bounds the ``.gitignore`` files read above ``top``
    when ``top`` is not inside a git repository. Setting ``stop`` ends the walk early (a
    cancelled call's worker thread must not go on walking a whole disk).
    """
    stack = [(iter(_entries(str(top))), "", _ancestors(top, root))]
    while stack and not (stop is not None and stop.is_set()):
        entries, base, chain = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
        elif entry.name == GIT:
            continue
        elif entry.is_dir(follow_symlinks=False):
            relative = base + entry.name + "/"
            if not _ignored(chain, relative):
                inner = _enter(chain, entry.path, relative)
                stack.append((iter(_entries(entry.path)), relative, inner))
        elif entry.is_file() and not _ignored(chain, base + entry.name):
            yield Walked(base + entry.name, entry.path, entry.is_symlink())


def _entries(directory: str) -> list[os.DirEntry[str]]:
    """The directory's entries sorted by name; an unreadable directory is empty."""
    try:
        with os.scandir(directory) as scan:
            return sorted(scan, key=_name)
    except OSError:
        return []


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _ignored(chain: Chain, relative: str) -> bool:
    """The deepest ``.gitignore`` with a matching line decides."""
    for rules in reversed(chain):
        verdict = rules.verdict(relative)
        if verdict is not None:
            return verdict
    return False


def _enter(chain: Chain, directory: str, relative: str) -> Chain:
    """The chain inside a subdirectory: its own rules added, or only them in a nested repo."""
    base = () if os.path.lexists(os.path.join(directory, GIT)) else chain
    rules = _load(directory, strip=relative)
    return base if rules is None else (*base, rules)


def _ancestors(top: Path, root: Path) -> Chain:
    """The rules of ``top`` and of the directories above it that also apply (module doc)."""
    chain = []
    for directory in _scope(top, root):
        prefix = top.relative_to(directory).as_posix() + "/" if directory != top else ""
        rules = _load(str(directory), prefix=prefix)
        if rules is not None:
            chain.append(rules)
    return tuple(chain)


def _scope(top: Path, root: Path) -> list[Path]:
    """``top`` and its ancestors up to the repository top, else the root, outermost first."""
    upward = [top, *top.parents]
    for index, directory in enumerate(upward):
        if os.path.lexists(directory / GIT):
            return upward[index::-1]
    if top.is_relative_to(root):
        return upward[len(top.relative_to(root).parts) :: -1]
    return [top]


def _load(directory: str, *, prefix: str = "", strip: str = "") -> _Rules | None:
    """The directory's ``.gitignore`` as rules, or None when it has none (or is unreadable)."""
    try:
        with open(os.path.join(directory, GITIGNORE), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    from pathspec import GitIgnoreSpec  # deferred: only walks pay for the import

    # RE2: a line such as *a*a*a*a*b would backtrack on long names in Python's re.
    spec = GitIgnoreSpec.from_lines(text.splitlines(), backend="re2")
    return _Rules(spec, prefix, strip) if len(spec) else None


# -- glob patterns ----------------------------------------------------------------------------
class GlobError(ValueError):
    """A glob pattern that cannot be compiled; the message says what is wrong."""


class GlobMatcher:
    """A compiled glob: ``fullmatch(path)`` in time linear in the path (RE2).

    The model writes glob patterns, and as a backtracking regex ``*a*a*a*a*a*b`` costs
    ``O(n^k)`` on a long name: RE2 never backtracks, and releases the GIL while matching.
    """

    __slots__ = ("_fullmatch", "pattern")

    def __init__(self, pattern: str, source: str) -> None:
        import re2  # type: ignore[import-untyped, unused-ignore]

        options = re2.Options()
        options.log_errors = False
        try:
            compiled = re2.compile("(?s)" + source, options)
        except re2.error as exc:
            raise GlobError(f"the glob pattern {pattern!r} cannot be compiled: {exc}") from None
        self.pattern = pattern
        self._fullmatch = compiled.fullmatch

    def fullmatch(self, path: str) -> bool:
        """Whether the pattern selects ``path`` (walk-relative, ``/``-separated)."""
        try:
            return self._fullmatch(path) is not None
        except UnicodeEncodeError:  # a name's undecodable bytes: each stays one character
            return self._fullmatch(_without_surrogates(path)) is not None


def _without_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def compile_glob(pattern: str) -> GlobMatcher:
    """The matcher that ``fullmatch``-es the walk-relative paths the pattern selects."""
    text = pattern.strip()
    text = text.removeprefix("./")
    anchored = "/" in text.rstrip("/")
    text = text.lstrip("/")
    if text.endswith("/"):
        text += "**"
    if not text:
        raise GlobError(f"the glob pattern {pattern!r} is empty; try '**/*' or '*.py'")
    body = _translate(text)
    source = body if anchored else f"(?:.*/)?{body}"
    try:
        re.compile(source)  # only compiled: its errors read as Python's, like the rest
    except re.error as exc:
        raise GlobError(f"the glob pattern {pattern!r} cannot be compiled: {exc}") from None
    return GlobMatcher(pattern, source)


def _translate(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        piece, index = _token(text, index)
        out.append(piece)
    return "".join(out)


def _token(text: str, index: int) -> tuple[str, int]:
    """The regex for the glob token at ``index``, and the index after it."""
    char = text[index]
    if char == "*":
        return _stars(text, index)
    if char == "?":
        return "[^/]", index + 1
    if char == "[":
        return _class(text, index)
    if char == "{":
        return _braces(text, index)
    if char == "\\" and index + 1 < len(text):
        return re.escape(text[index + 1]), index + 2
    return re.escape(char), index + 1


def _stars(text: str, index: int) -> tuple[str, int]:
    """``**/`` spans directories, a trailing ``/**`` everything below; else ``*``."""
    end = index
    while end < len(text) and text[end] == "*":
        end += 1
    segment_start = index == 0 or text[index - 1] == "/"
    if end - index >= 2 and segment_start:
        if end == len(text):
            return ".*", end
        if text[end] == "/":
            return "(?:.*/)?", end + 1
    return "[^/]*", end


def _class(text: str, index: int) -> tuple[str, int]:
    """``[abc]``, ``[!abc]``/``[^abc]`` and ranges; a lone ``[`` is literal."""
    end = index + 1
    if end < len(text) and text[end] in "!^":
        end += 1
    if end < len(text) and text[end] == "]":
        end += 1
    end = text.find("]", end)
    if end == -1:
        return re.escape("["), index + 1
    inner = text[index + 1 : end]
    negated = inner[:1] in ("!", "^")
    members = inner[1:] if negated else inner
    escaped = members.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return (f"[^/{escaped}]" if negated else f"[{escaped}]"), end + 1


def _braces(text: str, index: int) -> tuple[str, int]:
    """``{a,b,c}`` (nestable) as an alternation; an unclosed ``{`` is literal."""
    depth, start, options = 0, index + 1, []
    for end in range(index, len(text)):
        char = text[end]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                options.append(text[start:end])
                return "(?:" + "|".join(_translate(o) for o in options) + ")", end + 1
        elif char == "," and depth == 1:
            options.append(text[start:end])
            start = end + 1
    return re.escape("{"), index + 1
