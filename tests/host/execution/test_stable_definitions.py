"""Definitions are byte-identical across snapshots, hosts and processes (any hash seed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

_BUILD = r'''
import hashlib, json, sys, tempfile
from typing import Literal
from pydantic import BaseModel
from tooldeck import CodeMode, Location, Tool, ToolResult, ToolService, tool

class Item(BaseModel):
    sku: str
    tags: set[str] = set()
    kind: Literal["a", "b", "c"] = "a"

@tool(namespace="shop")
def order(items: list[Item], note: str | None = None) -> Item:
    """Place an order."""
    return items[0]

def json_tool(name, ns, deferred=False, codemode=False):
    schema = {"type": "object", "properties": {f"p{k}": {"type": "string", "enum": ["x", "y", "z"]}
              for k in range(4)}, "required": ["p0"]}
    return Tool(name=name, namespace=ns, description=f"Tool {name}.", input=schema,
                execute=lambda i, c: ToolResult("ok"), codemode=codemode, defer_loading=deferred)

out = {}
for copy in range(2):  # two services (hosts) in one process
    root = tempfile.mkdtemp()
    provider = CodeMode()
    service = ToolService(Location(root), codemode=provider)
    def transform(editor):
        for ns in ("zeta", "alpha", "mid"):
            editor.namespace(ns, f"The {ns} service.")
        for n in range(12):
            ns = ("zeta", "alpha", "mid")[n % 3]
            editor.add(json_tool(f"t{n}", ns, deferred=n % 4 == 0))
            editor.add(json_tool(f"c{n}", ns, codemode=True))
        editor.add(order)
    service.transform(transform, source="pack")
    assert service.snapshot().names[-1] == "execute" and service.snapshot().deferred
    digests = {}
    for fmt in ("openai", "openai-responses", "anthropic", "gemini", "mcp"):
        for snap in (service.snapshot(), service.snapshot(session="s1")):
            text = json.dumps(snap.definitions_for(fmt))
            digests.setdefault(fmt, set()).add(hashlib.sha256(text.encode()).hexdigest())
    out[copy] = {fmt: sorted(d) for fmt, d in digests.items()}
    provider.close()
assert out[0] == out[1], "two services differ"
assert all(len(d) == 1 for d in out[0].values()), "two snapshots differ"
print(json.dumps(out[0]))
'''


def run(seed: str) -> dict[str, list[str]]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", _BUILD], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_definitions_are_byte_identical_whatever_the_hash_seed():
    first = run("0")
    assert set(first) == {"openai", "openai-responses", "anthropic", "gemini", "mcp"}
    assert run("1") == first
    assert run("271828") == first
