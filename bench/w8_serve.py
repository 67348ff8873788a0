"""W8 serve load: ``tooldeck mcp serve --http`` beside the SDK's ``MCPServer``, many clients.

    .venv/bin/python bench/w8_serve.py [--clients 50,200] [--protocol legacy,auto]
        [--seconds 5] [--rounds 2] [--out DIR]

Runs ``bench/w8_load.py`` (tooldeck's copy of the shared driver
``../shared/bench/w8_serve_load.py``) once per client count, with this work tree's
``tooldeck`` (the one next to this interpreter): the same ``add`` tool served by both, the
same load generator on 127.0.0.1, interleaved rounds. tooldeck serves with per-client
sessions, a principal (``bench``, with a rule of its own; its token in ``W8_TOKEN``, random
when unset) and every ``[mcp.serve]`` limit at its default; every client request carries
the bearer token, to both servers. Both protocol eras run: ``legacy`` (handshake-era
clients, each with its ``Mcp-Session-Id`` and so its own tooldeck session scope) and
``auto`` (2026-07-28 clients, stateless: no scope to open). Raw JSON per client count and
era goes to ``$BENCH_RESULTS/raw/W8-<clients>-<protocol>.json``; the driver prints the
table (p50/p99/max, server CPU per call, peak RSS, how busy the rest of the machine was).
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="50,200")
    parser.add_argument("--protocol", default="legacy,auto")
    parser.add_argument("--shared", help="the shared bench folder (its common.py, w6_server.py)")
    parser.add_argument("--seconds", default="5")
    parser.add_argument("--rounds", default="2")
    parser.add_argument(
        "--out",
        default=os.path.join(os.environ.get("BENCH_RESULTS", os.path.join(HERE, "results")), "raw"),
    )
    args = parser.parse_args()
    driver = os.path.join(HERE, "w8_load.py")
    tooldeck = os.path.join(os.path.dirname(sys.executable), "tooldeck")
    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, W8_SHARED=os.path.abspath(args.shared)) if args.shared else None
    for protocol in args.protocol.split(","):
        for clients in args.clients.split(","):
            out = os.path.join(args.out, f"W8-{clients}-{protocol}.json")
            command = [sys.executable, driver, "--clients", clients, "--seconds", args.seconds]
            command += ["--rounds", args.rounds, "--protocol", protocol]
            command += ["--tooldeck", tooldeck, "--out", out]
            done = subprocess.run(command, check=False, env=env)
            if done.returncode:
                return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
