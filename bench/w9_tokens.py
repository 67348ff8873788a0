"""W9 for tooldeck: what a catalog of 50 / 500 / 5,000 tools costs in the model's context.

    .venv/bin/python bench/w9_tokens.py [--sizes 50,500,5000] [--reps 5] [--o200k-file PATH]

The catalog, the tokenizer and the method are the shared driver's
(`../shared/bench/w9_tokens.py`: 20 namespaces with descriptions, generated JSON-Schema
tools, o200k_base when a verified vocabulary is at hand, else characters / 4). This
driver adds what tooldeck's issue #26 asks to see:

  native    every tool `Tool(..., codemode=False)`: all advertised;
  deferred  the same, every tool `defer_loading=True` (one `search_tools` tool and,
            for `anthropic`, the deferred definitions the API keeps out of the prompt:
            counted as advertised tokens only what is not deferred);
  codemode  every tool `Tool(...)`: one `execute` tool; reported with the namespaces
            its description names (of 20) and the stubs it lists.

Times (median over --reps fresh child processes, each after an unrelated warm-up build):
  first     register + first snapshot + `definitions_for("openai")` (native, JSON Schema)
  changed   then one tool changed (one more transform updating it) + snapshot +
            `definitions_for("openai")`: the rebuild a running host pays
  memory    resident memory the first build added, and the process's in all
Past 5,000 tools (`--time-sizes 5000,50000`) the shared catalog repeats, each further
copy's tools numbered.
Writes `bench/results/raw/W9.json`, whose `markdown` is W9's section of RESULTS.md.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "bench")
sys.path.insert(0, SHARED)  # the shared driver imports its `common`


def _load_shared():
    """The shared driver, loaded by path: it has this file's module name."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("shared_w9", os.path.join(SHARED, "w9_tokens.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shared = _load_shared()

MODES = ("native", "deferred", "codemode")


def modes():
    from tooldeck import Tool

    return MODES if "defer_loading" in Tool.__dataclass_fields__ else ("native", "codemode")


FORMATS = ("openai", "anthropic")


def make_tools(specs, mode):
    from tooldeck import Tool, ToolResult

    def run(inp, ctx):
        return ToolResult(content="ok")

    kw = {"native": {"codemode": False}, "codemode": {}}.get(mode)
    if kw is None:
        kw = {"codemode": False, "defer_loading": True}
    fresh = json.loads(json.dumps(specs))
    return [
        Tool(
            name=s["name"],
            namespace=s["namespace"],
            description=s["description"],
            input=s["input"],
            execute=run,
            **kw,
        )
        for s in fresh
    ]


def service_with(specs, mode, root):
    from tooldeck import CodeMode, Location, ToolService

    tools = make_tools(specs, mode)
    location = Location(root)
    provider = CodeMode()
    service = ToolService(location, codemode=provider)

    def register(editor):
        for ns, desc in shared.namespace_descriptions():
            editor.namespace(ns, desc)
        for t in tools:
            editor.add(t)

    return service, register, (provider, location)


def advertised(defs, fmt):
    """What stays in the prompt: Anthropic keeps `defer_loading` definitions out of it."""
    return [d for d in defs if not (fmt == "anthropic" and d.get("defer_loading"))]


def tokens(specs, mode, root, count):
    service, register, closing = service_with(specs, mode, root)
    with service.batch():
        service.transform(register, source="w9")
    snap = service.snapshot()
    out = {}
    for fmt in FORMATS:
        text = json.dumps(advertised(snap.definitions_for(fmt), fmt))
        out[fmt] = {"tokens": count(text), "chars4": shared.chars4(text)}
    info = {"advertised": len(snap.definitions_for("openai"))}
    if mode == "codemode":
        description = snap.get("execute").description
        info["namespaces_named"] = sum(
            f"- tools.{ns}" in description for ns, _ in shared.namespace_descriptions()
        )
        info["stubs_listed"] = len(re.findall(r"async def \w+\(self", description))
    for c in closing:
        c.close()
    return out, info


def specs_of(size):
    """``size`` tool specs: the shared catalog's (at most 5,600 distinct tools), repeated
    past 5,000 with a numbered name and description for each further copy."""
    if size <= 5000:
        return shared.generate_specs(size)
    base = shared.generate_specs(5000)
    return [
        {**s, "name": f"{s['name']}_{k}", "description": f"{s['description']} (copy {k})"}
        if k
        else s
        for k in range(-(-size // 5000))
        for s in base
    ][:size]


def rss_mb():
    """This process's resident memory now, in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def child(size):
    """Fresh process: a warm-up build, then the timed first build and one-tool change."""
    import gc

    root = tempfile.mkdtemp(prefix="w9-")
    try:
        tokens(shared.WARMUP_SPECS, "native", root, shared.chars4)
        specs = specs_of(size)
        service, register, closing = service_with(specs, "native", root)
        gc.collect()
        gc.disable()
        before_mb = rss_mb()
        t0, c0 = time.perf_counter(), time.process_time()
        with service.batch():
            service.transform(register, source="w9")
        service.snapshot().definitions_for("openai")
        t1, c1 = time.perf_counter(), time.process_time()
        built_mb = rss_mb() - before_mb
        target = specs[size // 2]
        name = f"{target['namespace']}_{target['name']}"
        service.transform(
            lambda e: e.update(name, lambda t: t.replace(description=t.description + " (v2)")),
            source="change",
        )
        defs = service.snapshot().definitions_for("openai")
        t2, c2 = time.perf_counter(), time.process_time()
        gc.enable()
        assert any(d["function"]["description"].endswith("(v2)") for d in defs)
        for c in closing:
            c.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        json.dumps(
            {
                "first": t1 - t0,
                "changed": t2 - t1,
                "first_cpu": c1 - c0,
                "changed_cpu": c2 - c1,
                "built_mb": built_mb,
                "rss_mb": rss_mb(),
            }
        )
    )


def timed(size, reps):
    samples = {
        "first": [],
        "changed": [],
        "first_cpu": [],
        "changed_cpu": [],
        "built_mb": [],
        "rss_mb": [],
    }
    for _ in range(reps):
        p = subprocess.run(
            [sys.executable, __file__, "--child", str(size)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if p.returncode:
            raise RuntimeError(p.stderr[-3000:])
        got = json.loads(p.stdout.strip().splitlines()[-1])
        for k in samples:
            samples[k].append(got[k])
    return {k: statistics.median(v) for k, v in samples.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="50,500,5000")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--time-sizes", default="5000")
    ap.add_argument("--o200k-file", default=os.environ.get("W9_O200K_FILE"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "raw", "W9.json"))
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child)
        return
    tok_name, count, note = shared.load_tokenizer("auto", a.o200k_file)
    sizes = [int(x) for x in a.sizes.split(",")]
    specs = shared.generate_specs(max(sizes))
    measured = {}
    root = tempfile.mkdtemp(prefix="w9-")
    try:
        for size in sizes:
            for mode in modes():
                measured[f"{mode} {size}"] = tokens(specs[:size], mode, root, count)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    times = {s: timed(s, a.reps) for s in (int(x) for x in a.time_sizes.split(",") if x)}
    lines = markdown(sizes, measured, times, tok_name, note, a.reps)
    print("\n".join(lines))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(
            {
                "tokenizer": tok_name,
                "note": note,
                "measured": measured,
                "times": times,
                "markdown": lines,
            },
            f,
            indent=1,
        )


def markdown(sizes, measured, times, tok_name, note, reps):
    small, big = min(sizes), max(sizes)
    lines = [
        "## W9 — what the catalog costs in the model's context (50 / 500 / 5,000 tools)",
        "",
        f"_`bench/w9_tokens.py` (catalog: `../shared/bench/w9_tokens.py`); tokens: {tok_name} "
        f"({note}) of `json.dumps(definitions_for(fmt))`; Anthropic `defer_loading` "
        "definitions are not counted (the API keeps them out of the prompt)._",
        "",
        "| tools | mode | advertised | openai tokens | anthropic tokens "
        "| namespaces named | stubs |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in sizes:
        for mode in modes():
            t, info = measured[f"{mode} {s}"]
            lines.append(
                f"| {s:,} | {mode} | {info['advertised']} | {t['openai']['tokens']:,} | "
                f"{t['anthropic']['tokens']:,} | {info.get('namespaces_named', '')} | "
                f"{info.get('stubs_listed', '')} |"
            )
    lines.append("")
    if f"deferred {big}" in measured:
        d_big, d_small = measured[f"deferred {big}"][0], measured[f"deferred {small}"][0]
        n_small = measured[f"native {small}"][0]
        lines.append(
            f"Deferred {big:,} / native {small}: openai "
            f"{d_big['openai']['tokens'] / n_small['openai']['tokens']:.2f}x, anthropic "
            f"{d_big['anthropic']['tokens'] / n_small['anthropic']['tokens']:.2f}x "
            f"(goal <= 1.1x); deferred {big:,} / deferred {small}: openai "
            f"{d_big['openai']['tokens'] / d_small['openai']['tokens']:.2f}x."
        )
    for s, t in times.items():
        lines.append(
            f"Native {s:,} JSON-Schema tools, median of {reps} fresh processes: first "
            f"definitions {t['first'] * 1e3:.0f} ms (goal <= 1,000 ms); one tool changed, "
            f"then snapshot + definitions {t['changed'] * 1e3:.1f} ms "
            f"({t['changed'] / t['first']:.1%} of the first; goal <= 5%). CPU time (less "
            f"sensitive to a loaded machine): first {t['first_cpu'] * 1e3:.0f} ms, changed "
            f"{t['changed_cpu'] * 1e3:.1f} ms. Memory: the first build added "
            f"{t['built_mb']:.0f} MB of resident memory ({t['built_mb'] * 1e6 / s / 1e3:.1f} KB "
            f"a tool; the tools themselves were built before), {t['rss_mb']:.0f} MB in all."
        )
    return lines


if __name__ == "__main__":
    main()
