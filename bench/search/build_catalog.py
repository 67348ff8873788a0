"""Write bench/search/catalog.json: the tool catalog the search evaluation ranks.

    .venv/bin/python bench/search/build_catalog.py

Three parts, all through tooldeck's public API (a ``Host`` with every tool native):

- the built-in tools;
- the example packs' tools (``example_plugins/*``, loaded from their sources, with a
  session for ``tooldeck-todo``, whose tools are session-scoped);
- a generated, realistic set: W9's generator (``../shared/bench/w9_tokens.py``), 25 tools in
  each of its 20 namespaces (the first 500 it yields), namespace descriptions included.

The file is data: the evaluation reads it and never rebuilds it, so queries written
against it keep meaning the same tools.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GENERATED = 500


def _packs() -> list[object]:
    import importlib

    found = []
    for name in ("tooldeck_git", "tooldeck_hello", "tooldeck_todo"):
        src = ROOT / "example_plugins" / name.replace("_", "-") / "src"
        sys.path.insert(0, str(src))
        found.append(importlib.import_module(name))
    return found


def _host_tools() -> tuple[list[dict], dict[str, str]]:
    from tooldeck import Host

    tools, namespaces = [], {}
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "tooldeck.toml").write_text("[codemode]\nenabled = false\n")
        with Host.open(root, plugins=_packs()) as host, host.session("catalog"):
            snapshot = host.snapshot(None, session="catalog")
            by_name = {d["name"]: d for d in snapshot.definitions_for("mcp")}
            for entry in snapshot.catalog.tools.values():
                definition = by_name[entry.name]
                tools.append(
                    {
                        "name": entry.tool.name,
                        "namespace": entry.tool.namespace,
                        "description": entry.tool.description,
                        "input": json.loads(json.dumps(definition["inputSchema"])),
                        "source": entry.source,
                    }
                )
            for name, described in snapshot.catalog.namespaces.items():
                namespaces[name] = described.description
    return tools, namespaces


def _generated() -> tuple[list[dict], dict[str, str]]:
    sys.path.insert(0, str(ROOT.parent / "shared" / "bench"))
    import w9_tokens

    specs = w9_tokens.generate_specs(GENERATED)
    for spec in specs:
        spec["source"] = "generated"
    return specs, dict(w9_tokens.namespace_descriptions())


def main() -> None:
    tools, namespaces = _host_tools()
    generated, spaces = _generated()
    namespaces.update(spaces)
    tools += generated
    tools.sort(key=lambda t: (t["namespace"] or "", t["name"]))
    spaces = json.dumps(dict(sorted(namespaces.items())), indent=1)
    rows = ",\n".join(json.dumps(t, sort_keys=True) for t in tools)  # one tool a line
    text = f'{{"namespaces": {spaces},\n"tools": [\n{rows}\n]}}\n'
    (HERE / "catalog.json").write_text(text)
    print(f"{len(tools)} tools, {len(namespaces)} namespaces -> {HERE / 'catalog.json'}")


if __name__ == "__main__":
    main()
