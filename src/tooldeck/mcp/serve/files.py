"""Files a served call returned, kept so that its client can read them back.

A ``FilePart`` in a result travels as an embedded resource named
``tooldeck://calls/<call id>/<file name>`` (``providers/_attachments.file_uri``); a
client that drops the embedded copy (many show a link) reads it again with
``resources/read``. Each file is kept for the client session that made the call and
readable by it alone, the most recent ``MAX_BYTES`` of them in all; an evicted or
foreign one is simply not found.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from tooldeck._tool import ContentPart, FilePart
from tooldeck.providers._attachments import file_uri

MAX_BYTES = 64 << 20
SCHEME = "tooldeck://calls/"


class CallFiles:
    """Recent files of served calls, by owner (a client session) and URI."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._files: OrderedDict[tuple[str, str], FilePart] = OrderedDict()
        self._size = 0

    def keep(self, owner: str, call_id: str, parts: Iterable[ContentPart]) -> None:
        """Keep the files among ``parts`` of call ``call_id``, for ``owner``."""
        for part in parts:
            if isinstance(part, FilePart) and len(part.data) <= self.max_bytes:
                key = (owner, file_uri(call_id, part))
                self._drop(key)
                self._files[key] = part
                self._size += len(part.data)
        while self._size > self.max_bytes:
            self._drop(next(iter(self._files)))

    def get(self, owner: str, uri: str) -> FilePart | None:
        return self._files.get((owner, uri))

    def forget(self, owner: str) -> None:
        """The owner's session ended: its files go."""
        for key in [k for k in self._files if k[0] == owner]:
            self._drop(key)

    def _drop(self, key: tuple[str, str]) -> None:
        part = self._files.pop(key, None)
        if part is not None:
            self._size -= len(part.data)
