"""Meaning as well as words, when the ``semantic`` extra is installed: a static embedding
of each tool, ranked by closeness to the query and fused with the word ranking.

The words of a request and of a tool often differ ("a programming mistake to fix"
for ``update_issue``); a static embedding places related words near each other, so the
closest tools can be found without a shared word. The model is a table: a text's vector
is the mean of its tokens' rows, unit length, so embedding is a lookup and a query costs
one matrix-vector product over the tools.

The table and its tokenizer are the files the ``wordllama`` wheel ships
(``weights/l2_supercat_256.safetensors``, 32,000 tokens x 256, and
``tokenizers/l2_supercat_tokenizer_config.json``). They are read here directly, with
``safetensors`` and ``tokenizers``: nothing is imported from ``wordllama`` (its loader
may reach for a model hub) and nothing is ever downloaded. Without the extra
``installed()`` is ``None`` and search is lexical only.

A tool's text is its name in words, the first sentence of its description (later ones
tend to be boilerplate shared by many tools) and its namespace's description. Texts are
embedded once per index; a repeated text (a namespace's description) once per build.

The same table also lends the word ranking words (``Neighbours``): a query word no tool
uses ("altitude", "wildfire") is searched as the catalog's words closest to it in
meaning ("elevation", "fire"). A mean of whole-text vectors blurs which of a service's
tools is meant; one word's neighbours keep the word ranking's grip on names and actions.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

NEIGHBOURS = 3
"""How many of the catalog's words stand in for a word it does not use, at most."""
NEIGHBOUR_FLOOR = 0.4
"""How close in meaning (cosine) a catalog word must be to stand in for one; below it,
a static embedding's neighbours are mostly words sharing a few letters."""
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_FIRST_SENTENCE = re.compile(r"[.!?](?:\s|$)")
_IDENTIFIER = re.compile(r"[_.\-]+")


@dataclass(frozen=True, slots=True)
class Embedder:
    """A static embedding table and its tokenizer."""

    table: NDArray[np.float32]
    tokenizer: Any  # tokenizers.Tokenizer

    def sums(self, texts: Sequence[str]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Each text's sum of token rows and its token count (means are made from these,
        so a text made of parts can add its parts' sums)."""
        import numpy as np

        encoded = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        sums = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        counts = np.zeros(len(texts), dtype=np.float32)
        for row, done in enumerate(encoded):
            if done.ids:
                sums[row] = self.table[done.ids].sum(axis=0)
                counts[row] = len(done.ids)
        return sums, counts

    def embed(self, text: str) -> NDArray[np.float32]:
        """One text's unit vector (zeros when it has no token)."""
        sums, _ = self.sums([text])
        vector: NDArray[np.float32] = _unit(sums)[0]
        return vector


@lru_cache(maxsize=1)
def installed() -> Embedder | None:
    """The embedding of the ``semantic`` extra, or ``None`` when it is not installed
    (read once per process, from files inside the installed wheel)."""
    spec = importlib.util.find_spec("wordllama")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    weights, tokenizer = root / WEIGHTS, root / TOKENIZER
    if not (weights.is_file() and tokenizer.is_file()):
        return None
    try:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError:
        return None
    (table,) = load_file(str(weights)).values()
    rows = np.ascontiguousarray(table, dtype=np.float32)
    return Embedder(rows, Tokenizer.from_file(str(tokenizer)))


def tool_text(name: str, description: str) -> str:
    """What a tool's vector is made of, but its namespace: its name in words and the
    first sentence of its description."""
    first = _FIRST_SENTENCE.split(description.strip(), maxsplit=1)[0]
    return f"{_IDENTIFIER.sub(' ', name)}. {first}."


class Vectors:
    """The unit vectors of one catalog's tools, and their closeness to a query."""

    __slots__ = ("_embedder", "_matrix")

    def __init__(
        self,
        embedder: Embedder,
        texts: Sequence[str],
        namespaces: Sequence[str | None],
        described: dict[str, str],
    ) -> None:
        import numpy as np

        self._embedder = embedder
        sums, counts = embedder.sums(texts)
        spaces = sorted({n for n in namespaces if n and described.get(n)})
        if spaces:
            space_sums, space_counts = embedder.sums([described[n] for n in spaces])
            row = {n: i for i, n in enumerate(spaces)}
            for doc, space in enumerate(namespaces):
                if space in row:
                    sums[doc] += space_sums[row[space]]
                    counts[doc] += space_counts[row[space]]
        del counts  # a mean is a sum scaled; unit length makes the scale irrelevant
        self._matrix = _unit(np.asarray(sums, dtype=np.float32))

    def closest(self, query: str, limit: int, anchors: Sequence[int] = ()) -> list[int]:
        """The positions of the ``limit`` tools closest to ``query``, closest first
        (ties in position order); none when the query has no token. With ``anchors``
        (tools' positions), only the tools at least as close as one of them."""
        import numpy as np

        vector = self._embedder.embed(query)
        if limit <= 0 or not vector.any() or not len(self._matrix):
            return []
        # einsum, not BLAS: one thread, so a query never wakes (and leaves spinning)
        # a BLAS thread pool on a busy machine.
        scores = np.einsum("ij,j->i", self._matrix, vector)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        found = sorted(top.tolist(), key=lambda d: (-float(scores[d]), d))
        if not anchors:
            return found
        floor = min(float(scores[a]) for a in anchors)
        return [d for d in found if float(scores[d]) >= floor]


class Neighbours:
    """The words of one catalog as vectors, to find those closest to a word it lacks."""

    __slots__ = ("_embedder", "_matrix", "_terms")

    def __init__(self, embedder: Embedder, spelled: Mapping[str, str]) -> None:
        """``spelled``: each search term of the catalog and one way it is written
        (``elev`` → ``elevation``: a stem is no word to embed)."""
        self._embedder = embedder
        self._terms = tuple(spelled)
        sums, _ = embedder.sums([spelled[t] for t in self._terms])
        self._matrix = _unit(sums)

    def of(self, word: str) -> tuple[tuple[str, float], ...]:
        """The catalog's terms closest to ``word``: at most ``NEIGHBOURS``, each at least
        ``NEIGHBOUR_FLOOR`` close, closest first (ties in catalog order), with their
        closeness."""
        import numpy as np

        vector = self._embedder.embed(word)
        if not vector.any() or not self._terms:
            return ()
        scores = np.einsum("ij,j->i", self._matrix, vector)  # one thread, as closest()
        near = np.flatnonzero(scores >= NEIGHBOUR_FLOOR).tolist()
        near.sort(key=lambda t: (-float(scores[t]), t))
        return tuple((self._terms[t], float(scores[t])) for t in near[:NEIGHBOURS])


def _unit(rows: NDArray[np.float32]) -> NDArray[np.float32]:
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: NDArray[np.float32] = rows / norms
    return result
