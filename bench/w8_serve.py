"""W8 serve load: ``tooldeck mcp serve --http`` beside the SDK's ``MCPServer``, many clients.

    .venv/bin/python bench/w8_serve.py [--clients 50,200] [--seconds 5] [--rounds 2] [--out DIR]

Runs the shared driver ``../shared/bench/w8_serve_load.py`` once per client count, with
this work tree's ``tooldeck`` (the one next to this interpreter): the same ``add`` tool
served by both, the same load generator on 127.0.0.1, interleaved rounds. tooldeck runs
with its defaults, so per-client sessions and every ``[mcp.serve]`` limit are on; the
generator sends no bearer token, so no principal is configured. Raw JSON per client
count goes to ``$BENCH_RESULTS/raw/W8-<clients>.json``; the driver prints the table
(p50/p99/max, server CPU per call, peak RSS, and how busy the rest of the machine was).
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="50,200")
    parser.add_argument("--seconds", default="5")
    parser.add_argument("--rounds", default="2")
    parser.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
    parser.add_argument(
        "--out",
        default=os.path.join(os.environ.get("BENCH_RESULTS", os.path.join(HERE, "results")), "raw"),
    )
    args = parser.parse_args()
    driver = os.path.join(os.path.abspath(args.shared), "w8_serve_load.py")
    tooldeck = os.path.join(os.path.dirname(sys.executable), "tooldeck")
    os.makedirs(args.out, exist_ok=True)
    for clients in args.clients.split(","):
        out = os.path.join(args.out, f"W8-{clients}.json")
        command = [sys.executable, driver, "--clients", clients, "--seconds", args.seconds]
        command += ["--rounds", args.rounds, "--tooldeck", tooldeck, "--out", out]
        done = subprocess.run(command, check=False)
        if done.returncode:
            return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
