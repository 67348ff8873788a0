"""Run the official MCP conformance suite's client scenarios against tooldeck's mount.

    python tests/mcp/client/conformance/run.py --install DIR

installs ``@modelcontextprotocol/conformance`` (``SUITE_VERSION``) with the Node it needs
(the npm registry's ``node@22``) into ``DIR`` unless it is there, then runs every client
scenario the suite lists, one at a time, with ``client.py`` (tooldeck mounting the
suite's server) as the client. ``expected-failures.yml`` holds the scenarios tooldeck
does not pass, each with its reason; the suite itself fails a run on a scenario that
fails unexpectedly *or* passes while listed. Prints one line per scenario and the
count; exits 1 when anything was unexpected. ``.ci/run`` runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SUITE_VERSION = "0.1.16"
NODE = "node@22"
HERE = Path(__file__).resolve().parent
CLIENT = HERE / "client.py"
BASELINE = HERE / "expected-failures.yml"
SCENARIO_TIMEOUT_MS = 60_000
"""Per scenario (the suite's default is 30 s; the client imports the SDK, on a busy CI
machine that alone can take several seconds)."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", metavar="DIR", required=True, help="where the suite lives")
    parser.add_argument("--scenario", action="append", help="run only these (repeatable)")
    args = parser.parse_args(argv)
    prefix = Path(args.install).resolve()
    suite = installed(prefix)
    scenarios = args.scenario or client_scenarios(suite)
    unexpected = 0
    passed = 0
    with tempfile.TemporaryDirectory(prefix="tooldeck-conformance-results-") as results:
        for scenario in scenarios:
            outcome, ok = run_scenario(suite, scenario, Path(results))
            passed += outcome == "passed"
            unexpected += not ok
            print(f"{scenario:45} {outcome}{'' if ok else '  (UNEXPECTED)'}", flush=True)
    print(f"client scenarios passed: {passed}/{len(scenarios)}; unexpected: {unexpected}")
    return 1 if unexpected else 0


def installed(prefix: Path) -> list[str]:
    """The command that runs the suite (its own Node first on ``PATH``), installing it."""
    binary = prefix / "node_modules" / ".bin" / "conformance"
    if not binary.exists():
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(prefix),
                NODE,
                f"@modelcontextprotocol/conformance@{SUITE_VERSION}",
            ],
            check=True,
            timeout=900,
        )
    node = prefix / "node_modules" / ".bin" / "node"
    return [str(node), str(binary)]


def client_scenarios(suite: list[str]) -> list[str]:
    """The client scenarios the suite lists (``conformance list``)."""
    listing = subprocess.run(
        [*suite, "list"], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    section = listing.split("Client scenarios", 1)[1]
    return re.findall(r"^\s+- (\S+)", section, flags=re.MULTILINE)


def run_scenario(suite: list[str], scenario: str, results: Path) -> tuple[str, bool]:
    """("passed" | "failed", whether that was expected) for one scenario."""
    command = f"{sys.executable} {CLIENT}"
    done = subprocess.run(
        [
            *suite,
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
            "--timeout",
            str(SCENARIO_TIMEOUT_MS),
            "--expected-failures",
            str(BASELINE),
            "-o",
            str(results),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{Path(suite[0]).parent}{os.pathsep}{os.environ['PATH']}"},
        timeout=SCENARIO_TIMEOUT_MS / 1000 + 60,
    )
    output = done.stdout + done.stderr
    outcome = "passed" if "OVERALL: PASSED" in output else "failed"
    if done.returncode != 0:
        sys.stdout.write(output[-4000:])
    return outcome, done.returncode == 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
