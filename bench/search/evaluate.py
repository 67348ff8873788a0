"""Offline evaluation of tooldeck's tool ranking: recall@5 and MRR, and what it costs.

    .venv/bin/python bench/search/evaluate.py [--show-misses {none,dev,all}] [--out PATH]
        [--write] [--tuning]

Two catalogs:

- ``catalog.json`` (``build_catalog.py``): 516 tools, built-ins, example packs and the
  first 500 tools of the shared generator (``../shared/bench/w9_tokens.py``);
- the **full** generated catalog: the built-in and pack tools of ``catalog.json`` plus
  every verb x object of the same generator (5,600 tools, 20 namespaces; the first 500
  are ``catalog.json``'s), generated here.

Three query sets:

- ``queries.tsv``: 227 needs phrased as a user would state them, written against
  ``catalog.json``'s tools;
- ``paraphrases.tsv``: 165 needs written from the domains without reading tool names
  (how: its header), labelled against the full catalog; on ``catalog.json`` a query
  keeps the labels that exist there, and one with none left is a *no-tool* query;
- ``paraphrases-heldout.tsv``: 69 more needs written the same way and never read while
  the ranking was tuned (its header): the honest measure of the paraphrase sets.

Rankings: ``tooldeck`` (``ToolIndex``, what ``search()`` and ``search_tools`` use: with
the ``semantic`` extra when it is installed); ``tooldeck, words only`` (the same without
the extra's meaning ranking: what a default install ranks);
``lexical`` (the BM25 ranking before stems, synonyms and concepts,
``lexical_baseline.py``); ``word substring`` (each query word as a substring of the name
(3), namespace and its description (2) or description (1)); ``query substring`` (the
whole query inside name or description).

recall@5: the share of queries with a relevant tool among the first five. MRR: the mean
of 1 / rank of the first relevant tool (0 when none is ranked; tooldeck's rankings are
asked for five tools, as ``search_tools`` is by default, so theirs is MRR@5). For ``tooldeck`` also:
how often a no-tool query's result is flagged weak (it should be), and how often an
answered query's is (it should not be). Cost: building the index of the full catalog
and one query on it, medians of repeated runs in this process.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck import Tool, ToolResult
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.names import effective_name
from tooldeck.host.search.ranking import ToolIndex

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FULL = 5600
LIMIT = 5
"""What tooldeck's rankings are asked for: ``search_tools``' default limit (with the
``semantic`` extra the limit decides which tools found by meaning alone may join, so
the evaluation asks what a model asks; MRR is then MRR@5)."""
Ranker = Callable[[str], list[int]]
Spaces = dict[str, NamespaceEntry]

sys.path.insert(0, str(HERE))
import lexical_baseline  # noqa: E402  (beside this file, not a package)


@dataclass(frozen=True)
class Query:
    text: str
    relevant: frozenset[str]
    split: str = ""  # paraphrases: "dev" or "held"


def _run(inp: object, ctx: object) -> ToolResult:
    return ToolResult(content="ok")


def entries_of(specs: Sequence[dict[str, Any]]) -> list[CatalogEntry]:
    entries = []
    for spec in specs:
        tool = Tool(
            name=spec["name"],
            namespace=spec["namespace"],
            description=spec["description"],
            input=spec["input"],
            execute=_run,
        )
        entries.append(CatalogEntry(effective_name(tool.name, tool.namespace), tool, "bench"))
    entries.sort(key=lambda e: e.name)
    return entries


def catalogs() -> dict[str, tuple[list[CatalogEntry], Spaces]]:
    """``catalog.json`` and the full generated catalog."""
    data = json.loads((HERE / "catalog.json").read_text())
    spaces = {k: NamespaceEntry(v, "bench") for k, v in data["namespaces"].items()}
    sys.path.insert(0, str(ROOT.parent / "shared" / "bench"))
    import w9_tokens

    own = [t for t in data["tools"] if t["source"] != "generated"]
    full = own + w9_tokens.generate_specs(FULL)
    return {
        "catalog.json": (entries_of(data["tools"]), spaces),
        "full": (entries_of(full), spaces),
    }


def expand(label: str) -> list[str]:
    """``a_{b,c}_d,e`` → ``a_b_d``, ``a_c_d``, ``e``."""
    items, depth, current = [], 0, ""
    for ch in label:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    items.append(current)
    return [name for item in items for name in _braces(item.strip())]


def _braces(item: str) -> list[str]:
    found = re.search(r"\{([^}]*)\}", item)
    if found is None:
        return [item]
    head, tail = item[: found.start()], item[found.end() :]
    return [n for alt in found.group(1).split(",") for n in _braces(head + alt + tail)]


def read_queries(path: Path, names: set[str]) -> list[Query]:
    queries = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        text, relevant, *split = line.split("\t")
        wanted = frozenset(expand(relevant)) if relevant != "-" else frozenset()
        if not wanted <= names:
            raise SystemExit(f"{path.name}: {text!r} names unknown tools {wanted - names}")
        queries.append(Query(text, wanted, split[0] if split else ""))
    return queries


def within(queries: list[Query], names: set[str]) -> list[Query]:
    """``queries`` with only the relevant tools that exist among ``names``."""
    return [Query(q.text, q.relevant & names, q.split) for q in queries]


# -- rankings --------------------------------------------------------------------------------
def tooldeck(entries: Sequence[CatalogEntry], spaces: Spaces) -> Ranker:
    index = ToolIndex.of(entries, spaces)
    return lambda query: index.search(query, LIMIT)


def words_only(entries: Sequence[CatalogEntry], spaces: Spaces) -> Ranker:
    index = ToolIndex.of(entries, spaces, semantic=False)
    return lambda query: index.search(query, LIMIT)


def lexical(entries: Sequence[CatalogEntry], spaces: Spaces) -> Ranker:
    index = lexical_baseline.ToolIndex.of(entries, spaces)
    return lambda query: index.search(query, len(entries))


def word_substring(entries: Sequence[CatalogEntry], spaces: Spaces) -> Ranker:
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


def query_substring(entries: Sequence[CatalogEntry], spaces: Spaces) -> Ranker:
    texts = [f"{e.name} {e.tool.description}".lower() for e in entries]
    return lambda query: [i for i, t in enumerate(texts) if query.lower() in t]


RANKINGS = {
    "tooldeck": tooldeck,
    "tooldeck, words only": words_only,
    "lexical": lexical,
    "word substring": word_substring,
    "query substring": query_substring,
}


# -- scores ----------------------------------------------------------------------------------
def score(ranker: Ranker, entries: Sequence[CatalogEntry], queries: list[Query]) -> dict[str, Any]:
    answerable = [q for q in queries if q.relevant]
    hits, reciprocal, misses = 0, 0.0, []
    for q in answerable:
        ranked = [entries[i].name for i in ranker(q.text)]
        first = next((k for k, name in enumerate(ranked) if name in q.relevant), None)
        if first is not None and first < 5:
            hits += 1
        else:
            got = ranked[:3]
            misses.append(f"[{q.split}] {q.text!r}: want {sorted(q.relevant)}, got {got}")
        if first is not None:
            reciprocal += 1 / (first + 1)
    n = len(answerable) or 1
    return {
        "recall@5": hits / n,
        "mrr": reciprocal / n,
        "queries": len(answerable),
        "misses": misses,
    }


def weak_rates(entries: Sequence[CatalogEntry], spaces: Spaces, queries: list[Query]) -> dict:
    """How often ``Ranked.weak`` is set: on no-tool queries, and on answered ones."""
    index = ToolIndex.of(entries, spaces)
    none = [q for q in queries if not q.relevant]
    flagged_none = [q.text for q in none if index.rank(q.text, 5).weak]
    answered = []
    for q in queries:
        if not q.relevant:
            continue
        ranked = index.rank(q.text, 5)
        if any(entries[i].name in q.relevant for i in ranked.positions):
            answered.append((q.text, ranked.weak))
    flagged = [text for text, weak in answered if weak]
    return {
        "no_tool": len(none),
        "no_tool_weak": len(flagged_none),
        "answered": len(answered),
        "answered_weak": len(flagged),
        "answered_weak_queries": flagged,
        "no_tool_not_weak": [q.text for q in none if q.text not in flagged_none],
    }


def costs(entries: Sequence[CatalogEntry], spaces: Spaces, texts: list[str]) -> dict[str, float]:
    """Medians of building the index of ``entries`` and of answering one query, in CPU
    seconds of this process (wall time on the shared 2-core box says more about its
    neighbours), and the bytes the index holds."""
    ToolIndex.of(entries, spaces)  # warm: schemas compiled, stems cached, as in a host
    builds = []
    for _ in range(5):
        gc.collect()
        start = time.process_time()
        index = ToolIndex.of(entries, spaces)
        builds.append(time.process_time() - start)
    del index
    gc.collect()
    tracemalloc.start()
    index = ToolIndex.of(entries, spaces)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    per_query = []
    for _ in range(3):
        for text in texts:
            start = time.process_time()
            index.rank(text, 5)
            per_query.append(time.process_time() - start)
    worded = ToolIndex.of(entries, spaces, semantic=False)
    words_query = []
    for _ in range(3):
        for text in texts:
            start = time.process_time()
            worded.rank(text, 5)
            words_query.append(time.process_time() - start)
    baseline, words_build = [], []
    for _ in range(3):
        start = time.process_time()
        lexical_baseline.ToolIndex.of(entries, spaces)
        baseline.append(time.process_time() - start)
        start = time.process_time()
        ToolIndex.of(entries, spaces, semantic=False)
        words_build.append(time.process_time() - start)
    return {
        "tools": len(entries),
        "semantic": index.semantic,
        "build_s": statistics.median(builds),
        "words_build_s": statistics.median(words_build),
        "words_query_s": statistics.median(words_query),
        "words_query_p95_s": statistics.quantiles(words_query, n=20)[-1],
        "lexical_build_s": statistics.median(baseline),
        "index_bytes": held,
        "query_s": statistics.median(per_query),
        "query_p95_s": statistics.quantiles(per_query, n=20)[-1],
    }


# -- the report ------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show-misses", choices=("none", "dev", "all"), default="none")
    ap.add_argument(
        "--write",
        action="store_true",
        help="also put the section in bench/RESULTS.md in place of the one there",
    )
    ap.add_argument(
        "--tuning", action="store_true", help="leave the held-out set out (while tuning)"
    )
    ap.add_argument("--out", default=str(HERE.parent / "results" / "raw" / "search.json"))
    args = ap.parse_args()
    cats = catalogs()
    full_names = {e.name for e in cats["full"][0]}
    small_names = {e.name for e in cats["catalog.json"][0]}
    existing = read_queries(HERE / "queries.tsv", small_names)
    paraphrases = read_queries(HERE / "paraphrases.tsv", full_names)
    # Marked so that ``--show-misses dev`` never prints them.
    heldout = [
        Query(q.text, q.relevant, "heldout")
        for q in read_queries(HERE / "paraphrases-heldout.tsv", full_names)
    ]
    runs = {
        "queries.tsv on catalog.json": ("catalog.json", existing),
        "paraphrases on catalog.json": ("catalog.json", within(paraphrases, small_names)),
        "paraphrases on full": ("full", paraphrases),
        "held-out on catalog.json": ("catalog.json", within(heldout, small_names)),
        "held-out on full": ("full", heldout),
    }
    if args.tuning:
        runs = {k: v for k, v in runs.items() if not k.startswith("held-out")}
    results: dict[str, Any] = {}
    for title, (cat, queries) in runs.items():
        entries, spaces = cats[cat]
        print(f"\n{title}: {len(entries)} tools, {sum(1 for q in queries if q.relevant)} queries")
        print(f"{'ranking':22s} {'recall@5':>8s} {'MRR':>6s}")
        row: dict[str, Any] = {}
        for name, make in RANKINGS.items():
            ranker = make(entries, spaces)
            row[name] = score(ranker, entries, queries)
            print(f"{name:22s} {row[name]['recall@5']:8.3f} {row[name]['mrr']:6.3f}")
        for split in ("dev", "held"):
            part = [q for q in queries if q.split == split]
            if part:
                row[f"tooldeck {split}"] = score(tooldeck(entries, spaces), entries, part)
                r = row[f"tooldeck {split}"]
                print(f"{'  ' + split:22s} {r['recall@5']:8.3f} {r['mrr']:6.3f}  ({r['queries']})")
        row["weak"] = weak_rates(entries, spaces, queries)
        w = row["weak"]
        print(
            f"weak flag: {w['no_tool_weak']}/{w['no_tool']} no-tool queries, "
            f"{w['answered_weak']}/{w['answered']} answered queries"
        )
        if args.show_misses != "none":
            for miss in row["tooldeck"]["misses"]:
                if args.show_misses == "all" or miss.startswith("[dev]") or miss.startswith("[]"):
                    print("  miss", miss)
        results[title] = row
    texts = [q.text for q in existing + paraphrases + heldout]
    cost = costs(*cats["full"], texts)
    print(
        f"\nindex of {cost['tools']} tools (semantic extra: {cost['semantic']}): built in "
        f"{cost['build_s'] * 1000:.0f} ms CPU (words only: {cost['words_build_s'] * 1000:.0f} "
        f"ms, lexical: {cost['lexical_build_s'] * 1000:.0f} ms), "
        f"{cost['index_bytes'] / 2**20:.1f} MiB; a query {cost['query_s'] * 1000:.2f} ms "
        f"(p95 {cost['query_p95_s'] * 1000:.2f} ms; words only "
        f"{cost['words_query_s'] * 1000:.2f} ms, p95 {cost['words_query_p95_s'] * 1000:.2f} ms)"
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"results": results, "cost": cost, "markdown": markdown(results, cost)}
    out.write_text(json.dumps(payload, indent=1) + "\n")
    if args.write:
        write_section(payload["markdown"], HERE.parent / "RESULTS.md")


def markdown(results: dict[str, Any], cost: dict[str, Any]) -> list[str]:
    """The section ``report_tooldeck.py`` puts in RESULTS.md (``--write`` puts it there
    alone)."""
    extra = "installed" if cost["semantic"] else "not installed"
    lines = [
        "## Search — one ranking for code mode's search() and search_tools",
        "",
        "_`bench/search/evaluate.py`: `catalog.json` (516 tools: built-ins, example packs, "
        "500 generated in 20 namespaces) and the full generated catalog (5,616 tools); "
        "`queries.tsv` (227 needs written against catalog.json), `paraphrases.tsv` "
        "(165 needs written from the domains without reading tool names) and "
        "`paraphrases-heldout.tsv` (69 more, written the same way and never read while "
        "the ranking was tuned); on catalog.json a paraphrase counts when its tool exists "
        "there. `tooldeck` ranks with the `semantic` extra "
        f"({extra} for this run), `tooldeck, words only` without it (a default install); "
        "both are asked for 5 tools, as `search_tools` is, so their MRR is MRR@5._",
        "",
        "| queries, catalog | ranking | recall@5 | MRR |",
        "|---|---|---|---|",
    ]
    for title, row in results.items():
        for name in ("tooldeck", "tooldeck dev", "tooldeck held", *list(RANKINGS)[1:]):
            if name in row:
                r = row[name]
                label = f"{title} ({r['queries']})" if name == "tooldeck" else ""
                if name in ("tooldeck dev", "tooldeck held"):
                    name = f"tooldeck, {name.split()[1]} half ({r['queries']})"
                lines.append(f"| {label} | {name} | {r['recall@5']:.3f} | {r['mrr']:.3f} |")
    lines += [
        "",
        "Weak-result flag (`search_tools` then adds namespaces and a suggested query):",
        "",
    ]
    for title, row in results.items():
        w = row["weak"]
        if w["no_tool"]:
            lines.append(
                f"- {title}: {w['no_tool_weak']} of {w['no_tool']} queries no tool serves, "
                f"{w['answered_weak']} of {w['answered']} answered ones"
            )
        else:
            lines.append(f"- {title}: {w['answered_weak']} of {w['answered']} answered queries")
    lines += [
        "",
        f"Cost on {cost['tools']:,} tools, CPU time: building the index "
        f"{cost['build_s'] * 1000:.0f} ms (words only: {cost['words_build_s'] * 1000:.0f} ms; "
        f"the lexical one: {cost['lexical_build_s'] * 1000:.0f} ms), once per snapshot on its "
        f"first search, holding {cost['index_bytes'] / 2**20:.1f} MiB; one query "
        f"{cost['query_s'] * 1000:.2f} ms median, {cost['query_p95_s'] * 1000:.2f} ms p95 "
        f"(words only: {cost['words_query_s'] * 1000:.2f} ms, "
        f"{cost['words_query_p95_s'] * 1000:.2f} ms p95; medians of 5 builds and of 3 passes "
        "over every query).",
    ]
    return lines


def write_section(lines: list[str], path: Path) -> None:
    """Replace the search section of ``path`` (RESULTS.md) with ``lines``."""
    text = path.read_text()
    start = text.index("## Search")
    end = text.find("\n## ", start + 1)
    rest = text[end:] if end != -1 else "\n"
    path.write_text(text[:start] + "\n".join(lines) + "\n" + rest)


if __name__ == "__main__":
    main()
