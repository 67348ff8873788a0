"""Generic output bounding: what the session runner does to text the model would read.

A tool may return megabytes; a model context cannot take them. After execution the
session runner checks the text parts of a call against ``[output] max_lines`` and
``max_bytes`` (one budget for the whole call, text parts counted in order). Text beyond
either limit is cut at a line boundary, keeping the *first* lines; the full text is saved
to ``<data_dir>/tool-output/tool_<call id>`` and the kept text ends with a marker naming
that file by its absolute path, so the model can ``read``/``grep`` the rest (or, when the
save failed, saying where and why: a full disk is not a failed call). A result
whose metadata has the key ``truncated`` (``True`` or ``False``) is left alone: its tool
pages its own output.

The common case (short output) must stay nearly free: ``within_limits`` decides from the
character counts alone and only counts newlines or encodes when the text is near a limit.
Saved outputs older than seven days are removed, at most once per process and data dir,
and the directory is kept under ``[output] max_saved_mb``: each save removes the oldest
saved outputs until the rest fit (an output larger than the cap is not saved at all).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tooldeck._tool import ContentPart, TextPart
from tooldeck.host.call.sizes import (
    UTF8_ERRORS,
    count_lines,
    format_size,
    text_budget,
    utf8_size,
)
from tooldeck.host.config.config import OutputConfig

log = logging.getLogger("tooldeck")

OUTPUT_DIR = "tool-output"
RETENTION_SECONDS = 7 * 24 * 60 * 60
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_ID = 96
_cleaned: set[str] = set()
_cleaned_lock = threading.Lock()


class Bounded(NamedTuple):
    """Content and metadata after bounding (``metadata["output_path"]``: the saved text)."""

    content: tuple[ContentPart, ...]
    metadata: Mapping[str, Any]


# -- the hot check ----------------------------------------------------------------------------
def within_limits(content: Sequence[ContentPart], max_lines: int, max_bytes: int) -> bool:
    """True when the text parts of ``content`` fit both limits (no allocation when short).

    Short text is decided from ``len`` alone (``text_budget``); newlines are counted and
    bytes encoded only near a limit.
    """
    chars = 0
    for part in content:
        if isinstance(part, TextPart):
            chars += len(part.text)
    if chars <= text_budget(max_lines, max_bytes):
        return True
    return _exactly_within(content, max_lines, max_bytes)


def _exactly_within(content: Sequence[ContentPart], max_lines: int, max_bytes: int) -> bool:
    lines = size = 0
    for part in content:
        if isinstance(part, TextPart):
            lines += count_lines(part.text)
            size += utf8_size(part.text, max_bytes + 1)
    return lines <= max_lines and size <= max_bytes


# -- cutting ----------------------------------------------------------------------------------
def bound_output(
    content: tuple[ContentPart, ...],
    metadata: Mapping[str, Any],
    *,
    limits: OutputConfig,
    data_dir: str | os.PathLike[str],
    call_id: str = "",
) -> Bounded:
    """Cut the text of one call to ``limits``, saving the full text when anything is cut.

    Unchanged (the same objects) when the text fits or when ``metadata`` has the key
    ``truncated``, whatever its value: a tool that reports it bounds its own output
    (``read``'s pages, a shell's tail) and says ``False`` when all of it fit. Otherwise the
    text parts that fit are kept, the first one that does not is cut and ends with the
    marker, later text parts are dropped; images and files stay. The new metadata adds
    ``truncated: True`` and ``output_path``.
    """
    if within_limits(content, limits.max_lines, limits.max_bytes) or _already_bounded(metadata):
        return Bounded(content, metadata)
    cut = _cut(content, limits.max_lines, limits.max_bytes)
    full = join_texts(p.text for p in content if isinstance(p, TextPart))
    path, problem = _save(full, data_dir, call_id, max_saved_bytes=limits.max_saved_mb << 20)
    parts = list(cut.parts)
    parts[cut.at] = TextPart(_with_marker(cut, full, path, problem))
    extra: dict[str, Any] = {"truncated": True}
    if path is not None:
        extra["output_path"] = str(path)
    return Bounded(tuple(parts), {**_as_dict(metadata), **extra})


def _already_bounded(metadata: Mapping[str, Any]) -> bool:
    return isinstance(metadata, Mapping) and "truncated" in metadata


def _as_dict(metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    return metadata if isinstance(metadata, Mapping) else {}


class _Cut(NamedTuple):
    parts: tuple[ContentPart, ...]  # text parts after the cut one are already dropped
    at: int  # the part to replace with ``head`` plus the marker
    head: str
    shown_lines: int  # complete lines kept, across all text parts
    shown_bytes: int


def _cut(content: Sequence[ContentPart], max_lines: int, max_bytes: int) -> _Cut:
    """Keep text parts while they fit the remaining budget; cut the first that does not."""
    parts: list[ContentPart] = []
    lines, size = max_lines, max_bytes
    index, head = -1, ""
    for part in content:
        if not isinstance(part, TextPart):
            parts.append(part)
        elif index < 0:
            head = text_head(part.text, lines, size)
            if head != part.text:
                index = len(parts)
            else:
                lines -= count_lines(head)
                size -= utf8_size(head)
            parts.append(part)
    shown_lines = max_lines - lines + head.count("\n") if index >= 0 else 0
    shown_bytes = max_bytes - size + utf8_size(head) if index >= 0 else 0
    return _Cut(tuple(parts), index, head, shown_lines, shown_bytes)


def text_head(text: str, max_lines: int, max_bytes: int) -> str:
    """The longest prefix of whole lines within both limits.

    Only when not even the first line fits is a line cut, after ``max_bytes`` bytes and
    never inside a UTF-8 sequence, so one huge line (minified JSON) still shows something.
    """
    end = _line_end(text, max_lines)
    if end > max_bytes or utf8_size(text[:end], max_bytes + 1) > max_bytes:
        end = _byte_end(text[: min(end, max_bytes)], max_bytes)
    if end == len(text) or end == 0 or text[end - 1] == "\n":
        return text[:end]
    newline = text.rfind("\n", 0, end)
    return text[: newline + 1] if newline >= 0 else text[:end]


def _line_end(text: str, max_lines: int) -> int:
    """Index just after the ``max_lines``-th newline (the whole text if it has fewer)."""
    end = 0
    for _ in range(max_lines):
        found = text.find("\n", end)
        if found < 0:
            return len(text)
        end = found + 1
    return end


def _byte_end(text: str, max_bytes: int) -> int:
    """How many characters of ``text`` fit in ``max_bytes`` UTF-8 bytes."""
    data = text.encode("utf-8", UTF8_ERRORS)
    if len(data) <= max_bytes:
        return len(text)
    cut = max_bytes
    while cut > 0 and data[cut] & 0xC0 == 0x80:  # a continuation byte: back to the lead
        cut -= 1
    return len(data[:cut].decode("utf-8", UTF8_ERRORS))


def join_texts(texts: Iterable[str]) -> str:
    """Text parts as one document whose lines are the parts' lines, in order."""
    pieces: list[str] = []
    for text in texts:
        if not text:
            continue
        if pieces and not pieces[-1].endswith("\n"):
            pieces.append("\n")
        pieces.append(text)
    return "".join(pieces)


# -- the marker -------------------------------------------------------------------------------
def _with_marker(cut: _Cut, full: str, path: Path | None, problem: str) -> str:
    omitted_lines = count_lines(full) - cut.shown_lines
    omitted_bytes = max(utf8_size(full) - cut.shown_bytes, 0)
    where = (
        f"full output saved to {path}. Use read with offset or grep on that file to see the rest."
        if path is not None
        else f"the full output could not be saved{problem}."
    )
    marker = (
        f"[output truncated: {omitted_lines:,} more line{'' if omitted_lines == 1 else 's'} "
        f"({format_size(omitted_bytes)}) omitted; {where}]"
    )
    shown = cut.head[:-1] if cut.head.endswith("\n") else cut.head
    return f"{shown}\n\n{marker}" if shown else marker


# -- saving -----------------------------------------------------------------------------------
def save_output(
    text: str,
    data_dir: str | os.PathLike[str],
    call_id: str = "",
    *,
    max_saved_bytes: int | None = None,
) -> Path | None:
    """Write ``text`` to a new file under ``<data_dir>/tool-output``; ``None`` on I/O error
    or when ``text`` alone is larger than ``max_saved_bytes``. With a cap, the oldest
    saved outputs are removed until the directory fits it again.

    A failed save must not fail the call: the model still gets the head of the output.
    """
    return _save(text, data_dir, call_id, max_saved_bytes=max_saved_bytes)[0]


def _save(
    text: str, data_dir: str | os.PathLike[str], call_id: str, *, max_saved_bytes: int | None
) -> tuple[Path | None, str]:
    """``save_output``, with why nothing was saved for the marker (``""`` when saved):
    ``": <reason>"`` or ``" to <path>: <reason>"``."""
    directory = Path(data_dir).absolute() / OUTPUT_DIR
    if max_saved_bytes is not None and utf8_size(text) > max_saved_bytes:
        log.warning("tool output not saved: larger than [output] max_saved_mb")
        return None, ": it is larger than [output] max_saved_mb"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        cleanup_once(directory)
        path = _write_new(directory, file_stem(call_id), text)
    except OSError as exc:
        log.warning("could not save truncated tool output under %s: %s", directory, exc)
        where = exc.filename if exc.filename else directory
        return None, f" to {where}: {exc.strerror or exc}"
    if max_saved_bytes is not None:
        try:
            remove_oldest_outputs(directory, max_saved_bytes, keep=path)
        except OSError as exc:
            log.warning("could not cap the saved tool outputs in %s: %s", directory, exc)
    return path, ""


def remove_oldest_outputs(directory: Path, max_bytes: int, *, keep: Path) -> int:
    """Delete the oldest ``tool_*`` files until the rest total at most ``max_bytes``
    (``keep``, the output just saved, stays); returns how many were removed."""
    saved: list[tuple[float, str, int]] = []
    with os.scandir(directory) as entries:
        for entry in entries:
            try:
                if entry.name.startswith("tool_") and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    saved.append((info.st_mtime, entry.path, info.st_size))
            except OSError:
                continue
    total = sum(size for _, _, size in saved)
    removed = 0
    for _, path, size in sorted(saved):  # oldest first; ties by name, so the order is fixed
        if total <= max_bytes:
            break
        if path == str(keep):
            continue
        try:
            os.unlink(path)
        except OSError:
            continue  # removed concurrently, or not ours to remove
        total -= size
        removed += 1
    return removed


def file_stem(call_id: str) -> str:
    """``tool_<call id>`` made safe as a file name, or a fresh id when there is none."""
    safe = _UNSAFE.sub("_", call_id)[:_MAX_ID]
    if not safe:
        safe = f"{time.strftime('%Y%m%dT%H%M%S')}_{secrets.token_hex(4)}"
    return f"tool_{safe}"


def _write_new(directory: Path, stem: str, text: str) -> Path:
    """Create the file exclusively, so a reused call id gets ``_2``, ``_3``... instead."""
    for attempt in range(1, 1000):
        path = directory / (stem if attempt == 1 else f"{stem}_{attempt}")
        try:
            with open(path, "x", encoding="utf-8", errors=UTF8_ERRORS, newline="") as file:
                file.write(text)
        except FileExistsError:
            continue
        except OSError:
            path.unlink(missing_ok=True)  # no half-written file for the model to find
            raise
        return path
    return _write_new(directory, f"{stem}_{secrets.token_hex(4)}", text)


def cleanup_once(directory: Path) -> None:
    """Remove saved outputs older than the retention, the first time this process saves.

    Best effort: a directory that cannot be listed must not keep the new output unsaved.
    """
    key = str(directory)
    with _cleaned_lock:
        if key in _cleaned:
            return
        _cleaned.add(key)
    try:
        remove_old_outputs(directory, time.time() - RETENTION_SECONDS)
    except OSError as exc:
        log.warning("could not clean up old tool outputs in %s: %s", directory, exc)


def remove_old_outputs(directory: Path, before: float) -> int:
    """Delete ``tool_*`` files last modified before ``before``; returns how many."""
    removed = 0
    with os.scandir(directory) as entries:
        for entry in entries:
            try:
                if (
                    entry.name.startswith("tool_")
                    and entry.is_file(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_mtime < before
                ):
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue  # removed concurrently or not ours to remove: skip it
    return removed
