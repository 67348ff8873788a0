"""Offline evaluation of tooldeck's tool ranking: recall@5 and MRR on a fixed catalog.

    .venv/bin/python bench/search/evaluate.py [--show-misses]

Reads ``catalog.json`` (``build_catalog.py``: built-ins, example packs and a generated
realistic set, >= 500 tools) and ``queries.tsv`` (>= 200 needs phrased as a user would
state them, each with the tool or tools that serve it), and ranks every query with:

- ``bm25``: ``ToolIndex``, the ranking code mode's ``search()`` and ``search_tools`` use;
- ``word substring``: each query word as a substring of the name (3), the namespace and
  its description (2) or the description (1) -- code mode's scoring before BM25;
- ``query substring``: the whole query as a substring of name or description.

recall@5: the share of queries with a relevant tool among the first five. MRR: the mean
of 1 / rank of the first relevant tool (0 when none is ranked).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from tooldeck import Tool, ToolResult
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.names import effective_name
from tooldeck.host.search.ranking import ToolIndex

HERE = Path(__file__).resolve().parent
Ranker = Callable[[str], list[int]]


def load() -> tuple[list[CatalogEntry], dict[str, NamespaceEntry], list[tuple[str, set[str]]]]:
    data = json.loads((HERE / "catalog.json").read_text())

    def run(inp: object, ctx: object) -> ToolResult:
        return ToolResult(content="ok")

    entries = []
    for spec in data["tools"]:
        tool = Tool(
            name=spec["name"],
            namespace=spec["namespace"],
            description=spec["description"],
            input=spec["input"],
            execute=run,
        )
        entries.append(CatalogEntry(effective_name(tool.name, tool.namespace), tool, "bench"))
    entries.sort(key=lambda e: e.name)
    spaces = {k: NamespaceEntry(v, "bench") for k, v in data["namespaces"].items()}
    names = {e.name for e in entries}
    queries = []
    for line in (HERE / "queries.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        query, relevant = line.split("\t")
        wanted = set(relevant.split(","))
        if not wanted <= names:
            raise SystemExit(f"queries.tsv: {query!r} names unknown tools {wanted - names}")
        queries.append((query, wanted))
    return entries, spaces, queries


def bm25(entries: Sequence[CatalogEntry], spaces: dict[str, NamespaceEntry]) -> Ranker:
    index = ToolIndex.of(entries, spaces)
    return lambda query: index.search(query, len(entries))


def word_substring(entries: Sequence[CatalogEntry], spaces: dict[str, NamespaceEntry]) -> Ranker:
    fields = []
    for e in entries:
        ns = e.tool.namespace or ""
        described = spaces.get(ns)
        space = f"{ns} {described.description if described else ''}".lower()
        fields.append((e.name.lower(), space, e.tool.description.lower()))

    def rank(query: str) -> list[int]:
        words = re.findall(r"[a-z0-9]+", query.lower())
        scored = [
            (-sum(3 * (w in n) + 2 * (w in s) + (w in d) for w in words), i)
            for i, (n, s, d) in enumerate(fields)
        ]
        return [i for score, i in sorted(scored) if score < 0]

    return rank


def query_substring(entries: Sequence[CatalogEntry], spaces: dict[str, NamespaceEntry]) -> Ranker:
    texts = [f"{e.name} {e.tool.description}".lower() for e in entries]
    return lambda query: [i for i, t in enumerate(texts) if query.lower() in t]


def score(
    ranker: Ranker, entries: Sequence[CatalogEntry], queries: list[tuple[str, set[str]]]
) -> tuple[float, float, list[str]]:
    hits, reciprocal, misses = 0, 0.0, []
    for query, wanted in queries:
        ranked = [entries[i].name for i in ranker(query)]
        first = next((k for k, name in enumerate(ranked) if name in wanted), None)
        if first is not None and first < 5:
            hits += 1
        else:
            misses.append(f"{query!r}: want {sorted(wanted)}, got {ranked[:3]}")
        if first is not None:
            reciprocal += 1 / (first + 1)
    return hits / len(queries), reciprocal / len(queries), misses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--out", default=str(HERE.parent / "results" / "raw" / "search.json"))
    args = ap.parse_args()
    entries, spaces, queries = load()
    print(f"{len(entries)} tools, {len(spaces)} namespaces, {len(queries)} queries")
    print(f"{'ranking':18s} {'recall@5':>8s} {'MRR':>6s}")
    results = {}
    for name, make in (
        ("bm25", bm25),
        ("word substring", word_substring),
        ("query substring", query_substring),
    ):
        recall, mrr, misses = score(make(entries, spaces), entries, queries)
        print(f"{name:18s} {recall:8.3f} {mrr:6.3f}")
        results[name] = {"recall@5": recall, "mrr": mrr, "misses": misses}
        if args.show_misses and name == "bm25":
            print("\n".join(f"  miss {m}" for m in misses))
    counts = {"tools": len(entries), "namespaces": len(spaces), "queries": len(queries)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"counts": counts, "results": results, "markdown": markdown(counts, results)}
    out.write_text(json.dumps(payload, indent=1) + "\n")


def markdown(counts: dict[str, int], results: dict[str, dict]) -> list[str]:
    """The section ``report_tooldeck.py`` puts in RESULTS.md."""
    lines = [
        "## Search — one ranking for code mode's search() and search_tools",
        "",
        f"_`bench/search/evaluate.py`: {counts['tools']} tools ({counts['namespaces']} "
        f"namespaces: built-ins, example packs, a generated realistic set), "
        f"{counts['queries']} queries phrased as a user states a need "
        "(`bench/search/queries.tsv`)._",
        "",
        "| ranking | recall@5 | MRR |",
        "|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(f"| {name} | {r['recall@5']:.3f} | {r['mrr']:.3f} |")
    return lines


if __name__ == "__main__":
    main()
