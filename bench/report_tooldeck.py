"""Raw results of the shared drivers (+ micro.py) -> bench/RESULTS.md for tooldeck.

    python3 bench/report_tooldeck.py [--raw bench/results/raw] [--out bench/RESULTS.md]

Reads ``W1.json .. W6.json`` (written by ../shared/bench/w?_*.py with
``--adapters bench/tooldeck_adapters.py``), ``micro.json`` (bench/micro.py) and
``w7.json`` (bench/w7_sessions.py, tooldeck alone: no peer has sessions). Every
ratio is computed per rep from the two numbers of that same rep (both peers ran in the
same interleaved rep), then the median over reps is reported, as the shared report does.
"""

import argparse
import json
import os
import statistics
from datetime import UTC, datetime

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RAW = os.path.join(os.environ.get("BENCH_RESULTS", os.path.join(HERE, "results")), "raw")

# workload -> (tooldeck row, metric, comparator, op, bound, label)
# op "<=": ratio tooldeck/comparator <= bound; "abs<": absolute seconds < bound.
TARGETS = {
    "W1": [
        ("tooldeck", "total", "floor", "<=", 1.2, "total (register + list) ≤ 1.2x floor"),
        ("tooldeck", "relist", None, "abs<", 5e-6, "relist < 5 µs (one cold call per rep)"),
    ],
    "micro": [
        (
            "service.snapshot() unchanged",
            None,
            None,
            "abs<",
            2e-6,
            "snapshot of unchanged state < 2 µs",
        ),
        (
            "service.snapshot().definitions_for(openai)",
            None,
            None,
            "abs<",
            5e-6,
            "relist (snapshot + definitions_for) < 5 µs, timeit",
        ),
    ],
    "W2": [
        ("tooldeck", "remove_mid", "floor-fold", "<=", 3.0, "remove-mid ≤ 3x floor-fold"),
        ("tooldeck", "remove_mid", "pluggy", "info", None, "remove-mid vs pluggy (reported)"),
    ],
    "W3": [
        (
            "tooldeck execute (sync add)",
            "per_call",
            "floor-a json.loads+call",
            "<=",
            1.3,
            "execute (async API, pydantic input) ≤ 1.3x floor-a",
        ),
        (
            "tooldeck execute (async add)",
            "per_call",
            "floor-a json.loads+call",
            "<=",
            1.5,
            "  same, `async def` tool ≤ 1.5x floor-a",
        ),
        (
            "tooldeck execute_sync (sync add)",
            "per_call",
            "floor-a json.loads+call",
            "<=",
            1.3,
            "execute_sync ≤ 1.3x floor-a",
        ),
        (
            "tooldeck execute JSON-Schema input",
            "per_call",
            "floor-a json.loads+call",
            "<=",
            2.0,
            "JSON-Schema input ≤ 2x floor-a",
        ),
        (
            "tooldeck run_tool_call (sync add)",
            "per_call",
            "floor-a json.loads+call",
            "<=",
            2.0,
            "run_tool_call ≤ 2x floor-a",
        ),
        *(
            (
                row,
                "per_call",
                "pydantic-ai toolset call (async add)",
                "<=",
                1.0,
                f"{label} ahead of pydantic-ai's toolset call (async add)",
            )
            for row, label in (
                ("tooldeck execute (sync add)", "execute"),
                ("tooldeck execute_sync (sync add)", "execute_sync"),
                ("tooldeck execute JSON-Schema input", "JSON-Schema input"),
                ("tooldeck run_tool_call (sync add)", "run_tool_call"),
            )
        ),
    ],
    "W4": [
        (
            "tooldeck Host.open 50 + snapshot",
            "wall",
            "pluggy load 50 tooldeck dists",
            "<=",
            1.2,
            "Host.open(50) + snapshot ≤ 1.2x pluggy on the same 50 dists",
        ),
        (
            "tooldeck --version",
            "wall",
            "python -c pass (floor)",
            "<=",
            2.0,
            "`tooldeck --version` ≤ 2x `python -c pass`",
        ),
        (
            "tooldeck --help",
            "wall",
            "python -c pass (floor)",
            "<=",
            2.0,
            "`tooldeck --help` ≤ 2x `python -c pass`",
        ),
    ],
    "W5": [
        (
            "tooldeck execute (no type check)",
            "program",
            "floor monty (await, future protocol)",
            "<=",
            2.0,
            "a 100-call program, no type check ≤ 2x the monty floor",
        ),
        (
            "tooldeck execute + type check",
            "program",
            "floor+typecheck monty",
            "<=",
            1.2,
            "the same with type checking ≤ 1.2x the floor+typecheck row",
        ),
        (
            "tooldeck execute + type check",
            "program",
            "CodeMode run_code restart (fresh REPL + type check)",
            "<=",
            1.0,
            "  ahead of CodeMode (fresh session + type check)",
        ),
        (
            "tooldeck execute + type check",
            "program",
            "CodeMode run_code warm REPL",
            "<=",
            1.0,
            "  ahead of CodeMode (warm REPL, no type check)",
        ),
        (
            "tooldeck execute (no type check)",
            "program",
            "CodeMode run_code warm REPL",
            "<=",
            1.0,
            "  no type check, ahead of CodeMode (warm REPL)",
        ),
    ],
    "W6": [
        (
            "tooldeck mount (stdio)",
            "call",
            "SDK Client -> MCPServer (stdio)",
            "<=",
            1.3,
            "a call through a mounted stdio server ≤ 1.3x the SDK client's own call",
        ),
        (
            "tooldeck mcp serve (stdio)",
            "call",
            "SDK Client -> MCPServer (stdio)",
            "<=",
            1.3,
            "W6d: `tooldeck mcp serve` answers a call ≤ 1.3x an MCPServer",
        ),
        (
            "tooldeck mount (stdio)",
            "connect",
            "SDK Client -> MCPServer (stdio)",
            "<=",
            1.1,
            "connect + mount + first snapshot ≤ 1.1x the SDK's own connect",
        ),
        (
            "tooldeck mount (stdio)",
            "list",
            "SDK Client -> MCPServer (stdio)",
            "info",
            None,
            "relist (all pages) + refreshed snapshot vs the SDK's listing (reported)",
        ),
    ],
}

TITLES = {
    "W1": "W1 — catalog build (100 plugins x 10 tools -> 1,000 OpenAI definitions)",
    "W2": "W2 — override churn (remove #50, then #100 revealing #99; 10 definitions)",
    "W3": "W3 — validated call of add(a, b) from the JSON string (per call)",
    "W4": "W4 — whole-process startup with 50 installed plugin distributions",
    "W5": "W5 — code mode: one program making 100 nested calls of add(a, b) (per program)",
    "W6": "W6 — MCP over stdio: mounting a server (client) and `tooldeck mcp serve` (W6d)",
}


def load(raw, name):
    path = os.path.join(raw, f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fmt_time(sec):
    if sec is None:
        return "-"
    if sec >= 1:
        return f"{sec:.3f} s"
    if sec >= 1e-3:
        return f"{sec * 1e3:.1f} ms"
    if sec >= 1e-6:
        return f"{sec * 1e6:.2f} µs"
    return f"{sec * 1e9:.0f} ns"


def fmt_ratio(r):
    if r is None:
        return "-"
    return f"{r:.2f}x" if r < 100 else f"{r:.0f}x"


def is_tooldeck(name):
    return name.startswith("tooldeck")


def paired_ratio(results, num, den, metric):
    """Median over reps of num/den, each rep's pair measured in the same rep."""
    a = results[num]["samples"].get(metric, [])
    b = results[den]["samples"].get(metric, [])
    rs = [x / y for x, y in zip(a, b, strict=False) if x is not None and y]
    if not rs:
        return None, None
    q = statistics.quantiles(rs, n=4) if len(rs) >= 2 else [rs[0]] * 3
    return statistics.median(rs), (q[0], q[2])


def median(results, name, metric):
    st = results[name]["stats"].get(metric)
    return st["median"] if st else None


def check(op, value, bound):
    if value is None:
        return "?"
    if op == "info":
        return "info"
    ok = value <= bound if op == "<=" else value < bound
    return "✓" if ok else "✗"


W7_TITLE = "W7 — sessions on a 1,000-tool Location, each adding one tool"


def w7_targets(w7):
    """Issue 14's targets, from ``w7.json``."""
    first, unchanged, mem = w7["first"], w7["unchanged"], w7["memory"]
    ratio = w7["ratios"]["session first / location first"]
    snap = unchanged["service.snapshot(session=id) unchanged"]
    per_session = mem["bytes per open session beyond its own tool"]
    left = mem["bytes left per session after closing all"]
    return [
        f"| first session snapshot ≤ 5% of the Location's first | {ratio:.1%}; "
        f"{fmt_time(first['session first snapshot']['median'])} vs "
        f"{fmt_time(first['location first snapshot']['median'])} | "
        f"{check('<=', ratio, 0.05)} |",
        f"| unchanged session snapshot ≤ 2 µs | {fmt_time(snap['median'])} "
        f"(min {fmt_time(snap['min'])}) | {check('abs<', snap['median'], 2e-6)} |",
        f"| open session ≤ 4 KB beyond its own tool ({mem['sessions']:,} open) | "
        f"{per_session:,.0f} B | {check('abs<', per_session, 4096)} |",
        f"| closing frees the session (≤ 100 B left per session) | {left:,.0f} B | "
        f"{check('abs<', left, 100)} |",
    ]


def w7_section(w7):
    env = w7["env"]
    out = [
        f"## {W7_TITLE}",
        "",
        f"_{env['utc']} · Python {env['python']} · loadavg "
        f"{fmt_load(env.get('loadavg'))} · `bench/w7_sessions.py`_",
        "",
        "| first snapshot (per rep: a fresh Location, fresh sessions) | median | min |",
        "|---|---|---|",
    ]
    out += [
        f"| {n} | {fmt_time(r['median'])} | {fmt_time(r['min'])} |" for n, r in w7["first"].items()
    ]
    out += ["", "| unchanged (timeit, per call) | median | min |", "|---|---|---|"]
    out += [
        f"| `{n}` | {fmt_time(r['median'])} | {fmt_time(r['min'])} |"
        for n, r in w7["unchanged"].items()
    ]
    out += ["", "| memory (tracemalloc, after gc) | bytes |", "|---|---|"]
    out += [f"| {n} | {v:,.0f} |" for n, v in w7["memory"].items()]
    return [*out, ""]


def targets_table(workload, data, micro):
    rows = []
    for row, metric, comp, op, bound, label in TARGETS[workload]:
        if workload == "micro":
            if micro is None or row not in micro["results"]:
                continue
            r = micro["results"][row]
            rows.append(
                f"| {label} | {fmt_time(r['median'])} (min {fmt_time(r['min'])}) | "
                f"{check(op, r['median'], bound)} |"
            )
            continue
        res = data["results"]
        if row not in res or (comp is not None and comp not in res):
            rows.append(f"| {label} | not measured | ? |")
            continue
        if op == "abs<":
            v = median(res, row, metric)
            rows.append(
                f"| {label} | {fmt_time(v)} (median of {data['reps']} reps) | "
                f"{check(op, v, bound)} |"
            )
            continue
        r, iqr = paired_ratio(res, row, comp, metric)
        spread = f" (IQR {iqr[0]:.2f}-{iqr[1]:.2f})" if iqr else ""
        times = f"; {fmt_time(median(res, row, metric))} vs {fmt_time(median(res, comp, metric))}"
        rows.append(f"| {label} | **{fmt_ratio(r)}**{spread}{times} | {check(op, r, bound)} |")
    return rows


def ratio_table(data, metrics):
    """Rows: every comparator; columns: each tooldeck row x metric, tooldeck/comparator."""
    res = data["results"]
    ours = [n for n in res if is_tooldeck(n)]
    others = [n for n in res if not is_tooldeck(n)]
    floor = data["floor"]
    others.sort(key=lambda n: n != floor)
    cols = [(o, m) for o in ours for m in metrics if m in res[o]["samples"]]
    its = "its median" + (f" ({' / '.join(metrics)})" if len(metrics) > 1 else "")
    head = ["comparator", its] + [f"{o}{'' if len(metrics) == 1 else f' · {m}'}" for o, m in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    # tooldeck's own medians first
    own = ["**tooldeck median**", ""] + [f"**{fmt_time(median(res, o, m))}**" for o, m in cols]
    lines.append("| " + " | ".join(own) + " |")
    for c in others:
        its = " / ".join(fmt_time(median(res, c, m)) for m in metrics if m in res[c]["samples"])
        label = f"{c} (floor)" if c == floor and "floor" not in c else c
        cells = [label, its]
        for o, m in cols:
            r, _ = paired_ratio(res, o, c, m) if m in res[c]["samples"] else (None, None)
            cells.append(fmt_ratio(r))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def w2_correctness(data):
    corr = data.get("correctness", {})
    out = []
    for n, c in corr.items():
        mid, last = c.get("remove_mid"), c.get("remove_last")
        if mid is None:
            continue
        out.append(
            f"| {n} | {'✓' if mid[0] else '✗'} {mid[1]} | {'✓' if last[0] else '✗'} {last[1]} |"
        )
    return ["| peer | remove_mid | remove_last |", "|---|---|---|", *out]


def env_line(data):
    env = data.get("env", {})
    v = env.get("versions", {})
    ver = ", ".join(f"{k} {val}" for k, val in v.items() if val)
    extra = ""
    if data.get("workload") == "W4" and env.get("w4_venv"):
        w = env["w4_venv"]
        ours = sum(d.startswith("tooldeck-bench-plugin") for d in w.get("non_plugin_dists", []))
        extra = (
            f"; /tmp/w4-venv: {w.get('n_dists')} dists ({w.get('n_plugin_dists')} "
            f"benchhost-plugin-NN, {ours} tooldeck-bench-plugin-NN), "
            f"versions {env.get('w4_versions')}"
        )
    gc = data.get("gc_enabled")
    reps = data.get("reps")
    return (
        f"_{env.get('utc', '?')} · Python {env.get('python', '?')} · {env.get('cpus')} CPUs · "
        f"loadavg start {fmt_load(env.get('loadavg'))} end {fmt_load(env.get('loadavg_end'))} "
        f"· {reps} reps after {data.get('warmup')} warm-up"
        f"{' · GC on' if gc else ' · GC off in timed sections' if gc is not None else ''} · "
        f"{ver}{extra}_"
    )


def fmt_load(load):
    return "/".join(f"{x:.1f}" for x in load) if load else "-"


OWN_SECTIONS = ("search", "W9")
"""Raw files holding their own Markdown section (``markdown``: a list of lines)."""

METRICS = {
    "W1": ["total", "register", "list", "relist"],
    "W2": ["remove_mid", "remove_last"],
    "W3": ["per_call"],
    "W4": ["wall"],
    "W5": ["program"],
    "W6": ["connect", "call", "list"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", default=DEFAULT_RAW)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    a = ap.parse_args()
    data = {w: load(a.raw, w) for w in ("W1", "W2", "W3", "W4", "W5", "W6")}
    micro = load(a.raw, "micro")
    w7 = load(a.raw, "w7")

    out = [
        "# tooldeck vs the peers — benchmark results",
        "",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by "
        "`bench/report_tooldeck.py` from the raw JSON in "
        f"`{os.path.relpath(a.raw, os.path.dirname(HERE))}/` (`bash bench/run.sh`; see "
        "`bench/README.md`). Ratios are tooldeck / comparator, computed per rep from the "
        "two numbers of the same interleaved rep, then the median over reps; below 1 "
        "means tooldeck is faster. The machine is a shared 2-core box with other work "
        "running, so absolute times drift; read the ratios.",
        "",
        "## Targets",
        "",
        "| workload | target | measured | |",
        "|---|---|---|---|",
    ]
    summary = []
    for w in ("W1", "micro", "W2", "W3", "W4", "W5", "W6"):
        src = micro if w == "micro" else data[w]
        if w != "micro" and src is None:
            out.append(f"| {w} | (no raw results) | | ? |")
            continue
        for row in targets_table(w, src, micro):
            label = "W1 (micro.py)" if w == "micro" else w
            out.append(f"| {label} {row}")
            summary.append(row)
    for row in w7_targets(w7) if w7 is not None else ():
        out.append(f"| W7 {row}")
        summary.append(row)
    checked = [r for r in summary if not r.rstrip().endswith("info |")]
    failed = [r for r in checked if r.rstrip().endswith("✗ |")]
    out += [
        "",
        f"**{len(checked) - len(failed)} of {len(checked)} targets ✓**"
        + (f", {len(failed)} ✗." if failed else ".")
        + " (`info` = reported, no target.)",
        "",
    ]

    for w in ("W1", "W2", "W3", "W4", "W5", "W6"):
        d = data[w]
        if d is None:
            continue
        out += [f"## {TITLES[w]}", "", env_line(d), ""]
        out += ratio_table(d, METRICS[w])
        out.append("")
        if w == "W1" and micro is not None:
            out += [
                "Steady state, `bench/micro.py` (timeit: autorange loop count, "
                f"{next(iter(micro['results'].values()))['repeat']} repeats, per call; "
                f"unchanged {micro['n_tools']}-tool catalog; {micro['env']['utc']}, "
                f"loadavg {fmt_load(micro['env'].get('loadavg'))}):",
                "",
                "| operation | median | min |",
                "|---|---|---|",
            ]
            for n, r in micro["results"].items():
                out.append(f"| `{n}` | {fmt_time(r['median'])} | {fmt_time(r['min'])} |")
            out.append("")
        if w == "W2":
            out += [
                "Correctness (expected: remove_mid → all 10 from #100; remove_last → all 10 "
                "revealed from #99):",
                "",
                *w2_correctness(d),
                "",
            ]
        if w == "W4":
            out += ["Commands (`/tmp/w4-venv/bin/python -c CODE`, empty cwd, scrubbed env):", ""]
            for n, c in d.get("commands", {}).items():
                if is_tooldeck(n) or "tooldeck" in n or "pydantic" in n:
                    out.append(f"- **{n}**: `{c['code']}`")
            hf = d.get("hyperfine")
            if hf:
                out += [
                    "",
                    "hyperfine cross-check (`-N`, median): "
                    + ", ".join(
                        f"{n} {fmt_time(h['median'])}"
                        for n, h in hf.items()
                        if is_tooldeck(n) or n.startswith(("python -c pass", "pluggy load 50"))
                    )
                    + ".",
                ]
            out.append("")
    if w7 is not None:
        out += w7_section(w7)
    # Workloads that render their own section (tooldeck alone, no peer rows).
    for name in OWN_SECTIONS:
        own = load(a.raw, name)
        if own is not None:
            out += ["", *own["markdown"]]
    text = "\n".join(out).rstrip() + "\n"
    with open(a.out, "w") as f:
        f.write(text)
    print(f"wrote {a.out}")
    for r in summary:
        print(r)


if __name__ == "__main__":
    main()
