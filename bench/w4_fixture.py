"""W4 fixture for tooldeck: 50 tooldeck plugin distributions + tooldeck in /tmp/w4-venv.

    python3 bench/w4_fixture.py [--input pydantic|jsonschema] [--rebuild]

Idempotent; what it builds is reused by later runs:

  /tmp/w4-venv (+ /tmp/w4, /tmp/w4-build)
      the shared W4 fixture (50 ``benchhost-plugin-NN`` dists, pluggy, stevedore,
      importlib-metadata); built by running ``../shared/bench/w4_startup.py --setup-only``
      when missing. /tmp/w4-build (setuptools + wheel) also builds the wheels below.
  /tmp/w4-tooldeck/src-<input>/tooldeck-bench-plugin-NN/
      50 distributions of the same shape as the benchhost ones: a pyproject (setuptools
      backend), one module ``tooldeck_bench_plugin_NN``, entry point group ``tooldeck``.
      Each module defines ONE ``tooldeck.Tool`` (name ``bench_plugin_NN``) at import
      and adds it from ``@tooldeck.hookimpl def tool_transform(editor)``. Its input is a
      tiny pydantic model (default) or a JSON Schema (``--input jsonschema``).
  /tmp/w4-tooldeck/wheels-<input>/   their wheels (``pip wheel --no-deps --no-build-isolation``,
                                     built once)
  /tmp/w4-tooldeck/dist/             a wheel of /work/main (built from a copy of the tree, so
                                     the work tree gets no build/ or egg-info), rebuilt and
                                     force-reinstalled whenever src/ or pyproject.toml change

tooldeck is installed WITH its dependencies, pinned to the versions in /tmp/peers
(``pip freeze`` as a constraints file), so W1-W3 and W4 run the same library versions.
Both the shared commands (benchhost plugins) and the tooldeck commands then run in the
same venv; every command asserts it found its 50 plugins.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

N = 50
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED_W4 = os.path.join(os.path.dirname(REPO), "shared", "bench", "w4_startup.py")
PEERS_PY = "/tmp/peers/bin/python"
VENV, BUILD_VENV = "/tmp/w4-venv", "/tmp/w4-build"
PY, PIP, BUILD_PIP = f"{VENV}/bin/python", f"{VENV}/bin/pip", f"{BUILD_VENV}/bin/pip"
ROOT = "/tmp/w4-tooldeck"
DIST_DIR = f"{ROOT}/dist"
TOOLDECK_COPY = f"{ROOT}/tooldeck-src"
STATE = f"{ROOT}/installed.json"
EMPTY = f"{ROOT}/empty-cwd"
GROUP = "tooldeck"

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "tooldeck-bench-plugin-{nn}"
version = "1.0.0"
description = "tooldeck W4 benchmark fixture plugin {nn}"
requires-python = ">=3.11"
dependencies = ["tooldeck"{extra_dep}]

[project.entry-points.tooldeck]
plugin_{nn} = "tooldeck_bench_plugin_{nn}"

[tool.setuptools]
py-modules = ["tooldeck_bench_plugin_{nn}"]
"""

MODULE_PYDANTIC = '''\
"""tooldeck bench plugin {nn} (W4 fixture): one tool with a tiny pydantic input."""
from pydantic import BaseModel

import tooldeck


class Input(BaseModel):
    path: str
    limit: int = 10


def _execute(inp, ctx):
    return tooldeck.ToolResult(f"plugin {nn}: {{inp.path}} (limit {{inp.limit}})")


TOOL = tooldeck.Tool(name="bench_plugin_{nn}", description="Tool of bench plugin {nn}.",
                     input=Input, execute=_execute)


@tooldeck.hookimpl
def tool_transform(editor):
    editor.add(TOOL)
'''

MODULE_JSONSCHEMA = '''\
"""tooldeck bench plugin {nn} (W4 fixture): one tool with a tiny JSON-Schema input."""
import tooldeck

INPUT = {{"type": "object",
         "properties": {{"path": {{"type": "string"}},
                        "limit": {{"type": "integer", "default": 10}}}},
         "required": ["path"], "additionalProperties": False}}


def _execute(args, ctx):
    return tooldeck.ToolResult(f"plugin {nn}: {{args['path']}}")


TOOL = tooldeck.Tool(name="bench_plugin_{nn}", description="Tool of bench plugin {nn}.",
                     input=INPUT, execute=_execute)


@tooldeck.hookimpl
def tool_transform(editor):
    editor.add(TOOL)
'''

MODULES = {"pydantic": (MODULE_PYDANTIC, ', "pydantic"'), "jsonschema": (MODULE_JSONSCHEMA, "")}


def sh(cmd, **kw):
    line = " ".join(cmd)
    print("+", line if len(line) < 240 else line[:240] + " ...", file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def clean_env():
    """The shared driver's scrubbed environment (same as w4_startup.clean_env)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "XDG_CACHE_HOME": "/tmp/w4/xdg-nocache",
    }


def ensure_shared_fixture():
    if os.path.exists(PY) and os.path.exists(BUILD_PIP):
        return
    py = PEERS_PY if os.path.exists(PEERS_PY) else sys.executable
    sh([py, SHARED_W4, "--setup-only"])


def source_hash():
    """Hash of everything that goes into the tooldeck wheel."""
    h = hashlib.sha256()
    for top in ("pyproject.toml", "README.md"):
        with open(os.path.join(REPO, top), "rb") as f:
            h.update(top.encode() + f.read())
    for dirpath, dirnames, filenames in os.walk(os.path.join(REPO, "src")):
        dirnames[:] = sorted(
            d for d in dirnames if d != "__pycache__" and not d.endswith(".egg-info")
        )
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                h.update(os.path.relpath(path, REPO).encode() + b"\0" + f.read())
    return h.hexdigest()[:16]


def build_tooldeck_wheel(digest):
    """A wheel of the current tree, built from a copy (no build/ or egg-info in /work/main)."""
    shutil.rmtree(TOOLDECK_COPY, ignore_errors=True)
    shutil.rmtree(DIST_DIR, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(os.path.join(REPO, "src"), f"{TOOLDECK_COPY}/src", ignore=ignore)
    for top in ("pyproject.toml", "README.md", "LICENSE"):
        if os.path.exists(os.path.join(REPO, top)):
            shutil.copy(os.path.join(REPO, top), TOOLDECK_COPY)
    sh(
        [
            BUILD_PIP,
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            DIST_DIR,
            TOOLDECK_COPY,
        ]
    )
    wheels = [w for w in os.listdir(DIST_DIR) if w.startswith("tooldeck-")]
    assert len(wheels) == 1, wheels
    print(f"tooldeck wheel {wheels[0]} (source {digest})", file=sys.stderr)
    return f"{DIST_DIR}/{wheels[0]}"


def build_plugin_wheels(kind):
    src, wheels = f"{ROOT}/src-{kind}", f"{ROOT}/wheels-{kind}"
    module, extra_dep = MODULES[kind]
    for nn in (f"{i:02d}" for i in range(1, N + 1)):
        d = f"{src}/tooldeck-bench-plugin-{nn}"
        os.makedirs(d, exist_ok=True)
        with open(f"{d}/pyproject.toml", "w") as f:
            f.write(PYPROJECT.format(nn=nn, extra_dep=extra_dep))
        with open(f"{d}/tooldeck_bench_plugin_{nn}.py", "w") as f:
            f.write(module.format(nn=nn))
    have = os.listdir(wheels) if os.path.isdir(wheels) else []
    if len([w for w in have if w.endswith(".whl")]) < N:
        dirs = sorted(f"{src}/{d}" for d in os.listdir(src))
        sh([BUILD_PIP, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels, *dirs])
    out = sorted(f"{wheels}/{w}" for w in os.listdir(wheels) if w.endswith(".whl"))
    assert len(out) == N, len(out)
    return out


def constraints():
    """/tmp/peers' exact versions, so the W4 venv runs what W1-W3 run."""
    path = f"{ROOT}/constraints.txt"
    lines = []
    if os.path.exists(PEERS_PY):
        out = subprocess.run(
            [PEERS_PY, "-m", "pip", "freeze", "--exclude-editable"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        lines = [
            ln
            for ln in out.splitlines()
            if "==" in ln and not ln.lower().startswith(("tooldeck", "-e"))
        ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def verify(kind):
    code = (
        "import importlib.metadata as m, json, tooldeck; "
        f'eps = m.entry_points(group="{GROUP}"); '
        "print(json.dumps({'eps': sorted(e.value for e in eps), 'file': tooldeck.__file__, "
        "'version': m.version('tooldeck')}))"
    )
    os.makedirs(EMPTY, exist_ok=True)
    out = subprocess.run(
        [PY, "-c", code], env=clean_env(), cwd=EMPTY, capture_output=True, text=True, check=True
    ).stdout
    info = json.loads(out)
    bench = [v for v in info["eps"] if v.startswith("tooldeck_bench_plugin_")]
    assert len(bench) == N, info["eps"]
    assert info["file"].startswith(VENV), f"tooldeck imported from {info['file']}, not the venv"
    probe = "import tooldeck_bench_plugin_01 as p; print(type(p.TOOL.input).__name__)"
    got = subprocess.run(
        [PY, "-c", probe], env=clean_env(), cwd=EMPTY, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert got == ("ModelMetaclass" if kind == "pydantic" else "dict"), got
    print(
        f"/tmp/w4-venv: tooldeck {info['version']} from {info['file']}, "
        f"{len(bench)} tooldeck-bench plugins ({kind} input), "
        f"{len(info['eps'])} '{GROUP}' entry points in total",
        file=sys.stderr,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--input",
        choices=sorted(MODULES),
        default="pydantic",
        help="the plugins' input kind (default pydantic)",
    )
    ap.add_argument(
        "--rebuild",
        action="store_true",
        help="delete /tmp/w4-tooldeck and reinstall (the shared venv is kept)",
    )
    a = ap.parse_args()
    if a.rebuild:
        shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT, exist_ok=True)
    ensure_shared_fixture()
    state = {}
    if os.path.exists(STATE):
        with open(STATE) as f:
            state = json.load(f)
    venv_id = os.stat(f"{VENV}/pyvenv.cfg").st_mtime_ns  # a recreated venv starts over
    if state.get("venv") != venv_id:
        state = {"venv": venv_id}
    digest = source_hash()
    plugin_wheels = build_plugin_wheels(a.input)
    cons = constraints()
    if state.get("tooldeck") != digest or not os.path.isdir(DIST_DIR):
        wheel = build_tooldeck_wheel(digest)
        sh([PIP, "install", "-q", "-c", cons, wheel])  # with dependencies
        sh([PIP, "install", "-q", "--no-deps", "--force-reinstall", wheel])  # same version
        state["tooldeck"] = digest
    if state.get("plugins") != a.input:
        sh([PIP, "install", "-q", "--no-deps", "--force-reinstall", *plugin_wheels])
        state["plugins"] = a.input
    with open(STATE, "w") as f:
        json.dump(state, f)
    verify(a.input)


if __name__ == "__main__":
    main()
