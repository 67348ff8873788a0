"""Run the official MCP conformance suite's server scenarios against ``tooldeck mcp serve``.

    python tests/mcp/conformance/run.py [--scenario NAME] [--keep DIR]

Installs Node 22 and ``@modelcontextprotocol/conformance`` from npm (the registry's
``node@22`` package provides Node; only ``npm`` must be on PATH) into a cache directory,
opens a throwaway Location holding ``pack.py`` (the tools, resources and prompts the
scenarios call) and a config allowing them, serves it with ``tooldeck mcp serve --http``
and runs every server scenario against it (``--suite all``: the pending ones too).
Prints one line per scenario and the pass count; exits 1 unless every scenario passed,
2 when the suite could not run.

``.ci/run`` runs it as its own step; ``docs/mcp.md`` records the counts. The suite
speaks HTTP only (``--url``), so stdio is covered by the in-process tests instead.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITE = "@modelcontextprotocol/conformance@0.1.16"
NODE = "node@22"
HERE = Path(__file__).resolve().parent
CONFIG = """\
# Every tool and resource of the conformance pack runs unasked: the scenarios test the
# protocol, not tooldeck's permission asks.
[[permission]]
action = "*"
resource = "*"
effect = "allow"
"""


def cache_dir() -> Path:
    given = os.environ.get("TOOLDECK_CONFORMANCE_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tooldeck-conformance"


def install(cache: Path) -> Path:
    """The ``node_modules/.bin`` holding ``node`` (22) and ``conformance``."""
    bin_dir = cache / "node_modules" / ".bin"
    if not (bin_dir / "conformance").exists() or not (bin_dir / "node").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("conformance: npm is not on PATH; install Node.js's npm first")
        cache.mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--no-save", "--prefix", str(cache), NODE, SUITE]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=900)
    return bin_dir


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def project(where: Path) -> Path:
    root = where / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / "tooldeck.toml").write_text(CONFIG, encoding="utf-8")
    shutil.copy(HERE / "pack.py", root / ".tooldeck" / "plugins" / "conformance.py")
    return root


def serve(root: Path, port: int, where: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
    env.update(
        TOOLDECK_TRUST="1",  # the project's plugin folder holds the pack
        XDG_CONFIG_HOME=str(where / "config"),
        XDG_DATA_HOME=str(where / "data"),
    )
    command = [sys.executable, "-m", "tooldeck", "mcp", "serve", "--location", str(root)]
    command += ["--http", f"127.0.0.1:{port}", "--no-codemode"]
    log = open(where / "server.log", "wb")  # noqa: SIM115  (closed with the process)
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log = (where / "server.log").read_text()
            raise SystemExit(f"conformance: the server exited:\n{log}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("conformance: the server did not listen within 60 s")


RESULT_DIR = re.compile(r"server-(?P<scenario>.+)-\d{4}-\d\d-\d\dT[\d-]+Z")
"""How the suite names a scenario's result folder: ``server-<scenario>-<timestamp>``."""


def results(out: Path) -> dict[str, list[str]]:
    """Scenario -> the messages of its failed checks (none: it passed), from the suite's
    ``checks.json`` files. Warnings and infos do not fail a scenario."""
    found: dict[str, list[str]] = {}
    for checks in sorted(out.rglob("checks.json")):
        named = RESULT_DIR.fullmatch(checks.parent.name)
        name = named.group("scenario") if named else checks.parent.name
        data = json.loads(checks.read_text(encoding="utf-8"))
        found[name] = [
            f"{check.get('id')}: {check.get('errorMessage', '')}"
            for check in data
            if check.get("status") == "FAILURE"
        ]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", help="run this scenario only")
    parser.add_argument("--keep", type=Path, help="keep the server log and results here")
    args = parser.parse_args(argv)
    bin_dir = install(cache_dir())
    with tempfile.TemporaryDirectory(prefix="tooldeck-conformance-") as temp:
        where = args.keep or Path(temp)
        where.mkdir(parents=True, exist_ok=True)
        port = free_port()
        server = serve(project(where), port, where)
        try:
            command = [str(bin_dir / "conformance"), "server", "--url"]
            command += [f"http://127.0.0.1:{port}/mcp", "-o", str(where / "results")]
            command += ["--suite", "all"]  # the pending scenarios too: all 32
            if args.scenario:
                command += ["--scenario", args.scenario]
            env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        finally:
            server.terminate()
            server.wait(timeout=30)
        found = results(where / "results")
        if not found:
            print(done.stdout, done.stderr, sep="\n")
            return 2
        for name, failures in sorted(found.items()):
            print(f"{'FAIL' if failures else 'pass'}  {name}")
            for failure in failures:
                print(f"        {failure}")
        passed = sum(not failures for failures in found.values())
        print(f"{passed}/{len(found)} server scenarios passed")
        return 0 if passed == len(found) else 1


if __name__ == "__main__":
    sys.exit(main())
