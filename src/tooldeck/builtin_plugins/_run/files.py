"""What the file tools (``read``, ``write``, ``edit``) share: paths, permission, text, diffs.

* **Paths and permission.** ``FileServices`` is captured from the Location when a
  tool's executor is built (its first call). ``resolve`` asks ``external_directory``
  for a path lexically outside the Location (``tooldeck.paths``) and then, because the
  lexical check alone would let a symlink inside the project (``docs -> ~/.ssh``)
  reach outside without a word, also asks for the directory a symlink really leads to
  when that is outside the Location. The path the tool works on stays the lexical
  one, and so do permission resources. ``PermissionCorrected`` becomes a
  ``ToolFailure`` carrying the user's feedback; the decline signals are never caught.
* **Bad paths and saved outputs.** A path no file system takes (a NUL byte, a name
  over 255 bytes, a path over 4 KiB) fails clearly before anything is asked. The
  read-only tools reach the Location's saved outputs (what a truncation marker names,
  in the data dir) without an ``external_directory`` ask.
* **Reading.** Only regular files are read, opened non-blocking and checked with
  ``fstat`` first: a FIFO or a device is refused before a byte is read.
* **Text.** Files are UTF-8. A BOM and pure CRLF line endings are remembered by
  ``TextFile`` so an edit writes them back; the text itself uses ``\\n``.
* **Messages.** Missing files name up to three similar siblings; OS errors say what
  went wrong in words a model can act on.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tooldeck._tool import ToolFailure
from tooldeck.builtin_plugins._run.lookalikes import lookalikes
from tooldeck.builtin_plugins.read import MAX_LINE_CHARS
from tooldeck.errors import PermissionCorrected
from tooldeck.host.call.bounding import OUTPUT_DIR
from tooldeck.host.call.sizes import format_size as format_size  # webfetch uses it
from tooldeck.paths import lexical_path, resolve_in_location

if TYPE_CHECKING:
    from tooldeck._tool import ToolContext, ToolResult
    from tooldeck.builtin_plugins._deferred import RunFn
    from tooldeck.host.location.location import Location
    from tooldeck.host.permissions.permission import PermissionGate, PermissionService

BOM = "\ufeff"
SNIFF_BYTES = 8192
NAME_MAX = 255  # bytes in one path component, on the common file systems
PATH_MAX = 4096  # bytes in a path handed to the kernel, with its final NUL
SHELL_DIR = "shell"  # under the data dir: the full output of shell commands
SAVED_OUTPUT_DIRS = (OUTPUT_DIR, SHELL_DIR)  # what the file tools read without an outside ask
MAX_FILE_BYTES = 50 * 1024 * 1024
"""The largest file the file tools load whole; a tool may pass a smaller ``limit``."""
PathKind = Literal["file", "directory"]

# Bytes that occur in text: tab, LF, FF, CR, ESC, printable ASCII and all of 0x80-0xFF
# (UTF-8 sequences). What ``translate`` leaves of a sample is control characters.
_TEXT_BYTES = bytes([9, 10, 12, 13, 27, *range(32, 127), *range(128, 256)])


# -- paths and permission ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FileServices:
    """The Location services a file tool captures when its executor is built."""

    location: Location
    permission: PermissionService

    @classmethod
    def capture(cls, location: Location) -> FileServices:
        return cls(location, location.permission)

    def gate(self, ctx: ToolContext) -> PermissionGate:
        """The permission service bound to this call's canonical source and session."""
        return self.permission.gate(ctx.source, session_id=ctx.session_id)

    def shown(self, path: Path) -> str:
        """How messages name ``path``: relative to the root inside it, else absolute."""
        root = self.location.root
        if path == root:
            return "."
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)

    def lexical(self, raw: str) -> Path:
        """``raw`` judged like ``resolve_in_location`` does, without asking anything.

        A path no file system accepts (a NUL byte, a name or whole path too long) fails
        here, saying what is wrong, before anything is asked or touched.
        """
        path = lexical_path(self.location, check_characters(raw))
        check_length(path)
        return path

    async def resolve(
        self, gate: PermissionGate, raw: str, kind: PathKind, *, reading: bool = False
    ) -> Path:
        """The absolute lexical path, after every ``external_directory`` ask it needs.

        ``reading``: the tool only reads, so the Location's own saved outputs (the full
        text a truncation marker names) need no ``external_directory`` ask.
        """
        path = self.lexical(raw)
        if reading and self.saved_output(path):
            return path
        with feedback_as_failure(f"access outside the project ({raw})"):
            return await resolve_in_location(gate, self.location, raw, kind=kind)

    def saved_output(self, path: Path) -> bool:
        """Whether ``path`` (and where it really leads) is in a saved-output directory."""
        real = Path(os.path.realpath(path))
        for name in SAVED_OUTPUT_DIRS:
            directory = Path(os.path.normpath(self.location.data_dir.absolute() / name))
            if path.is_relative_to(directory) and real.is_relative_to(os.path.realpath(directory)):
                return True
        return False

    async def ask(
        self, gate: PermissionGate, action: str, path: Path, metadata: Mapping[str, Any]
    ) -> None:
        """Assert the tool's own action on ``path``; feedback becomes a ``ToolFailure``."""
        with feedback_as_failure(f"the {action} of {self.shown(path)}"):
            await gate.assert_(action, (str(path),), metadata=metadata)


FileRun = Callable[[FileServices, Any, "ToolContext"], Awaitable["ToolResult"]]


def file_executor(run: FileRun) -> Callable[[Location], RunFn]:
    """The ``executor(location)`` of a file tool: ``run`` with the Location's services
    bound as its first argument, captured when the tool is first called."""

    def executor(location: Location) -> RunFn:
        return partial(run, FileServices.capture(location))

    return executor


def check_characters(raw: str) -> str:
    """``raw``, unless it holds what no file name can: a NUL byte, or a lone surrogate."""
    if "\0" in raw:
        raise ToolFailure(
            f"The path {_clip(raw)} contains a NUL character (\\0), which no file name can "
            "hold. Pass the path without it."
        )
    try:
        os.fsencode(raw)
    except UnicodeEncodeError as exc:
        raise ToolFailure(
            f"The path {_clip(raw)} contains a character that cannot be part of a file "
            f"name ({exc.object[exc.start : exc.end]!r}). Pass the path without it.",
            cause=exc,
        ) from exc
    return raw


def check_length(path: Path) -> None:
    """Fail on a name or an absolute path longer than file systems allow."""
    encoded = os.fsencode(path)
    longest = max(len(name) for name in encoded.split(b"/"))
    if longest > NAME_MAX:
        raise ToolFailure(
            f"The path has a name of {longest:,} bytes; file and directory names can have "
            f"at most {NAME_MAX} bytes. Use a shorter name."
        )
    if len(encoded) >= PATH_MAX:
        raise ToolFailure(
            f"The path is {len(encoded):,} bytes long as an absolute path; paths must be "
            f"shorter than {PATH_MAX:,} bytes. Use a shorter path."
        )


def _clip(raw: str, limit: int = 80) -> str:
    return repr(raw if len(raw) <= limit else raw[:limit] + "…")


@contextlib.contextmanager
def feedback_as_failure(what: str) -> Iterator[None]:
    """Turn a rejection *with feedback* into a failure the model reads and acts on."""
    try:
        yield
    except PermissionCorrected as exc:
        raise ToolFailure(
            f"The user rejected {what} and said: {exc.feedback}\n"
            "Take this feedback into account before trying again.",
            cause=exc,
        ) from exc


# -- reading bytes ----------------------------------------------------------------------------
def read_bytes(path: Path, shown: str, *, hint: str) -> bytes:
    """The bytes of a regular file; every expected OS error becomes a ``ToolFailure``."""
    data = read_regular(path, shown)
    if data is None:
        raise not_found(path, shown, hint)
    return data


def read_regular(
    path: Path, shown: str, *, follow: bool = True, whole: bool = False, verb: str = "read"
) -> bytes | None:
    """The bytes of the regular file at ``path``, or ``None`` when nothing is there.

    Anything but a regular file is refused before a byte is read (a FIFO would block,
    ``/dev/zero`` never ends), and so is a file over ``MAX_FILE_BYTES`` unless ``whole``.
    ``follow=False`` opens with ``O_NOFOLLOW``: a symlink in the last component is an
    error, not a detour. ``verb`` is what the tool was about to do, for messages.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_failure(exc, shown, verb) from exc
    try:
        _check_regular(os.fstat(fd), shown, whole=whole)
        with open(fd, "rb", closefd=False) as file:
            return file.read()
    except OSError as exc:
        raise os_failure(exc, shown, "read") from exc
    finally:
        os.close(fd)


def _check_regular(info: os.stat_result, shown: str, *, whole: bool) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise ToolFailure(f"{shown} is a directory, not a file.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolFailure(f"{shown} is not a regular file (a device, socket or pipe).")
    if not whole and info.st_size > MAX_FILE_BYTES:
        raise ToolFailure(
            f"{shown} is {format_size(info.st_size)}, too large to load (the file tools "
            f"stop at {format_size(MAX_FILE_BYTES)}). Search it with grep, or change it "
            "with shell tools."
        )


def os_failure(exc: OSError, shown: str, verb: str) -> ToolFailure:
    """An expected OS error in words the model can act on."""
    if isinstance(exc, IsADirectoryError):
        message = f"{shown} is a directory, not a file."
    elif isinstance(exc, NotADirectoryError | FileExistsError):
        message = f"Cannot {verb} {shown}: a part of its parent path is a file, not a directory."
    elif isinstance(exc, PermissionError):
        message = f"Cannot {verb} {shown}: the operating system denied access."
    else:
        message = f"Cannot {verb} {shown}: {exc.strerror or exc}."
    return ToolFailure(message, cause=exc)


def not_found(path: Path, shown: str, hint: str) -> ToolFailure:
    """ "Not found", plus similar names in the same directory or a missing parent.

    ``hint`` is the tool's next step for the model (list the directory, use write, ...).
    """
    message = f"File not found: {shown}."
    if not path.parent.is_dir():
        message += " Its directory does not exist either."
    else:
        similar = [os.path.join(os.path.dirname(shown), name) for name in similar_names(path)]
        if similar:
            message += f" Did you mean: {', '.join(similar)}?"
    return ToolFailure(f"{message} {hint}")


def similar_names(path: Path, limit: int = 3) -> list[str]:
    """Up to ``limit`` siblings whose names look like ``path``'s: lookalikes (differing
    only in normalization, spaces or quotes) first, then close ones (case-insensitive)."""
    try:
        with os.scandir(path.parent) as entries:
            names = sorted(entry.name for entry in entries)
    except OSError:
        return []
    alike = [found.name for found in lookalikes(path) if found.parent == path.parent]
    by_folded = {name.casefold(): name for name in reversed(names)}  # first name wins
    close = difflib.get_close_matches(path.name.casefold(), list(by_folded), n=limit, cutoff=0.6)
    return list(dict.fromkeys([*alike, *(by_folded[name] for name in close)]))[:limit]


# -- text ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TextFile:
    """A decoded file: its text with ``\\n`` line endings, and what to restore on write."""

    text: str
    bom: bool = False
    crlf: bool = False

    def encode(self, text: str) -> bytes:
        """``text`` (``\\n`` endings) as this file's bytes: same BOM, same line endings.

        A BOM is added only when ``text`` has none of its own: never two.
        """
        if self.crlf and "\r\n" not in text:
            text = text.replace("\n", "\r\n")
        bom = BOM if self.bom and not text.startswith(BOM) else ""
        return (bom + text).encode("utf-8")


def decode_text(data: bytes, shown: str, *, purpose: str) -> TextFile:
    """Decode UTF-8 text, or fail saying why the file is not text (binary, UTF-16, bytes)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ToolFailure(f"{shown} is UTF-16 text; only UTF-8 files can be {purpose}.")
    if looks_binary(data):
        size = format_size(len(data))
        raise ToolFailure(f"{shown} is a binary file ({size}) and cannot be {purpose}.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolFailure(
            f"{shown} is not valid UTF-8 (invalid byte at offset {exc.start:,}), so it cannot "
            f"be {purpose}. It may be binary or use another encoding.",
            cause=exc,
        ) from exc
    return text_file(text)


def text_file(text: str) -> TextFile:
    """Split decoded text into ``\\n`` text, BOM and line-ending style."""
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    return TextFile(text.replace("\r\n", "\n") if crlf else text, bom, crlf)


def looks_binary(data: bytes) -> bool:
    """A NUL byte, or more than 30% control characters, in the first 8 KiB."""
    sample = data[:SNIFF_BYTES]
    if b"\x00" in sample:
        return True
    return len(sample.translate(None, _TEXT_BYTES)) > len(sample) * 0.3


def numbered_line(number: int, line: str) -> str:
    """``N: text``, as ``read`` shows lines; a long line is cut and says so."""
    line = line.removesuffix("\r")  # a stray CR of a file with mixed line endings
    if len(line) > MAX_LINE_CHARS:
        cut = f"{line[:MAX_LINE_CHARS]}… [line cut at {MAX_LINE_CHARS:,} of {len(line):,} chars]"
        return f"{number}: {cut}"
    return f"{number}: {line}" if line else f"{number}:"


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their ``\\n``; ``[]`` for empty text."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


# -- diffs ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Diff:
    """A unified diff for UIs and permission asks, with its line counts."""

    text: str
    additions: int
    deletions: int

    def metadata(self) -> dict[str, Any]:
        return {"diff": self.text, "additions": self.additions, "deletions": self.deletions}


def unified_diff(before: str | None, after: str, shown: str) -> Diff:
    """The change from ``before`` (``None``: a new file) to ``after``."""
    diff = difflib.unified_diff(
        _diff_lines(before or ""),
        _diff_lines(after),
        fromfile="/dev/null" if before is None else shown,
        tofile=shown,
    )
    lines = list(diff)
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return Diff("".join(lines), added, removed)


def _diff_lines(text: str) -> list[str]:
    """Lines with their newline; a last line without one says so, like ``diff`` does."""
    lines = [line + "\n" for line in split_lines(text)]
    if lines and not text.endswith("\n"):
        lines[-1] += "\\ No newline at end of file\n"
    return lines
