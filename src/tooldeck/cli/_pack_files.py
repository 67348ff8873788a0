"""The files ``tooldeck new-pack`` writes: the pack of the pack author guide.

Each is the guide's file (``docs/pack-author-guide.md``, ``docs/compat-matrix.md``)
with its names as placeholders: ``{{dist}}`` (``tooldeck-notes``), ``{{module}}``
(``tooldeck_notes``), ``{{ns}}`` (``notes``) and ``{{scheme}}`` (``notes``, its resource's
URI scheme). ``tests/cli/test_new_pack.py`` renders them for ``notes`` and requires the
guide's files byte for byte, so the two cannot drift.
"""

from __future__ import annotations

FILES: dict[str, str] = {
    "pyproject.toml": r"""[build-system]
requires = ["setuptools>=70.1"]
build-backend = "setuptools.build_meta"

[project]
name = "{{dist}}"
version = "1.0.0"
description = "Short notes kept in the project's NOTES.md, as tooldeck tools."
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["tooldeck>=0.1,<0.2"]

[project.optional-dependencies]
# setuptools and pip: tooldeck_install builds this pack's wheel without isolation and
# installs it with pip (Python 3.12+ venvs come without setuptools, uv's without pip).
test = ["pytest>=8", "pytest-asyncio>=0.24", "setuptools>=70.1", "pip>=23"]

# What makes it a pack: tooldeck loads every entry point of the group "tooldeck".
# The value is the module (or "module:object") holding the @hookimpl functions.
[project.entry-points.tooldeck]
{{ns}} = "{{module}}"

[tool.pytest.ini_options]
asyncio_mode = "auto"
asyncio_default_fixture_loop_scope = "function"
filterwarnings = ["error"]
""",
    "README.md": r"""# {{dist}}

`{{ns}}_add` and `{{ns}}_search`: short notes in the project's NOTES.md.
""",
    "src/{{module}}/__init__.py": r'''"""{{dist}}: short notes kept in the project's NOTES.md."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tooldeck import (
    Location,
    PermissionCorrected,
    Prompt,
    PromptArgument,
    Resource,
    Tool,
    ToolContext,
    ToolEditor,
    ToolFailure,
    ToolResult,
    hookimpl,
    tool,
)

NOTES = "NOTES.md"


@hookimpl
def namespace_descriptions(editor: ToolEditor) -> None:
    editor.namespace("{{ns}}", "Short notes the user keeps in the project's NOTES.md.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    editor.add(add_tool(location.root / NOTES))
    editor.add(search)
    editor.add_resource(notes_resource(location.root / NOTES))
    editor.add_prompt(review_prompt(location.root / NOTES))


# -- {{ns}}_add: a Tool built by hand ----------------------------------------------------
class AddInput(BaseModel):
    text: str = Field(min_length=1, max_length=500, description="The note: one line.")


class AddOutput(BaseModel):
    count: int = Field(description="How many notes NOTES.md holds now.")


def add_tool(path: Path) -> Tool[AddInput, AddOutput]:
    """``{{ns}}_add``, writing to ``path`` (the NOTES.md of one project)."""

    async def add(data: AddInput, ctx: ToolContext) -> ToolResult:
        if "\n" in data.text:
            raise ToolFailure("A note is one line. Add each line as its own note.")
        try:
            # The same action as the built-in edit/write, so the user's rules apply.
            await ctx.permission.assert_("edit", [str(path)], metadata={"note": data.text})
        except PermissionCorrected as exc:
            raise ToolFailure(f"The user rejected this note: {exc.feedback}") from exc
        notes = [*read_notes(path), data.text]
        append_note(path, data.text)
        ctx.resource_updated("{{scheme}}://all")  # MCP clients subscribed to it read it again
        return ToolResult(
            content=f"Added note {len(notes)} to {NOTES}.",
            metadata={"path": str(path)},
            output=AddOutput(count=len(notes)),
        )

    return Tool(
        name="add",
        namespace="{{ns}}",
        description="Add a one-line note to the project's NOTES.md. The user may be "
        "asked to approve it.",
        input=AddInput,
        output=AddOutput,
        execute=add,
        permission="edit",       # hidden when the user denies `edit` everywhere
        codemode=False,          # advertised natively, not only through code mode
    )


# -- {{ns}}_search: a Tool built from a typed function ----------------------------------------
@tool(namespace="{{ns}}", codemode=False, permission="read")
async def search(query: str, limit: int = 10, *, ctx: ToolContext) -> list[str]:
    """Find notes containing some text (case-insensitive), oldest first.

    Args:
        query: The text to look for.
        limit: The most notes to return.
    """
    path = ctx.location.root / NOTES
    await ctx.permission.assert_("read", [str(path)])
    found = [note for note in read_notes(path) if query.casefold() in note.casefold()]
    return found[:limit]


# -- {{scheme}}://all and review: a resource and a prompt -------------------------------------
def notes_resource(path: Path) -> Resource:
    """``{{scheme}}://all``: every note of one project, for a user to attach to a chat."""

    def read(ctx: ToolContext) -> str:
        return "".join(f"- {note}\n" for note in read_notes(path))

    return Resource(
        "{{scheme}}://all", "{{ns}}", "Every note in NOTES.md.", "text/markdown", read=read
    )


def review_prompt(path: Path) -> Prompt:
    """``{{ns}}_review``: a message asking the model to review the notes, which it carries."""

    def render(args: Mapping[str, str], ctx: ToolContext) -> list[dict[str, Any]]:
        focus = args.get("focus", "anything that needs doing")
        return [
            {"role": "user", "content": notes_resource(path)},  # embedded: its text travels
            {"role": "user", "content": f"Review these notes. Focus on {focus}."},
        ]

    return Prompt(
        "review",
        "Review the project's notes.",
        [PromptArgument("focus", "What to look for.", complete=["deadlines", "owners"])],
        render=render,
        namespace="{{ns}}",
    )


def append_note(path: Path, note: str) -> None:
    """Add ``note`` as the file's last line. Appended, not rewritten: what else the file
    holds (a heading, prose) stays as it is, and a failed write loses this note only."""
    try:
        with path.open("a+", encoding="utf-8") as file:
            file.seek(0)
            text = file.read()
            file.write(("\n" if text and not text.endswith("\n") else "") + f"- {note}\n")
    except OSError as exc:
        raise ToolFailure(f"{NOTES} cannot be written ({exc}). Ask the user to fix it.") from exc


def read_notes(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolFailure(f"{NOTES} cannot be read ({exc}). Ask the user to fix it.") from exc
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]
''',
    "tests/test_{{ns}}.py": r"""from pathlib import Path

import {{module}}
from tooldeck import Reject, ToolContext

PROJECT = Path(__file__).resolve().parent.parent


async def test_add_asks_for_edit_then_writes(tooldeck_host, tooldeck_asker):
    host = tooldeck_host(plugins=[{{module}}])
    outcome = await host.call("{{ns}}_add", text="Ship on Friday")
    assert outcome.status == "completed", outcome
    assert outcome.output == {"count": 1}
    assert (host.root / "NOTES.md").read_text() == "- Ship on Friday\n"
    [request] = tooldeck_asker.asked("edit")
    assert request.resources == (str(host.root / "NOTES.md"),)
    assert request.metadata["note"] == "Ship on Friday"


async def test_a_note_keeps_what_the_file_already_says(tooldeck_host):
    host = tooldeck_host(plugins=[{{module}}])
    (host.root / "NOTES.md").write_text("# Notes\n\nKept by hand.\n- First")
    outcome = await host.call("{{ns}}_add", text="Second")
    assert outcome.output == {"count": 2}
    assert (host.root / "NOTES.md").read_text() == "# Notes\n\nKept by hand.\n- First\n- Second\n"


async def test_feedback_becomes_a_tool_failure(tooldeck_host, tooldeck_asker):
    tooldeck_asker.on("edit", Reject("Notes go in the wiki."))
    host = tooldeck_host(plugins=[{{module}}])
    outcome = await host.call("{{ns}}_add", text="Ship on Friday")
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert "Notes go in the wiki." in outcome.error.message
    assert not (host.root / "NOTES.md").exists()


async def test_a_plain_no_declines_the_call(tooldeck_host, tooldeck_asker):
    tooldeck_asker.on("edit", "reject")
    host = tooldeck_host(plugins=[{{module}}])
    assert (await host.call("{{ns}}_add", text="x")).status == "declined"


async def test_invalid_arguments_never_reach_the_tool(tooldeck_host, tooldeck_asker):
    host = tooldeck_host(plugins=[{{module}}])
    outcome = await host.call("{{ns}}_add", text="")
    assert outcome.status == "failed"
    assert "- text: " in outcome.error.message
    assert tooldeck_asker.requests == []


async def test_search_is_case_insensitive(tooldeck_host):
    host = tooldeck_host(plugins=[{{module}}])
    (host.root / "NOTES.md").write_text("- Buy milk\n- Call Bob\n- bob's birthday\n")
    outcome = await host.call("{{ns}}_search", query="BOB", limit=1)
    assert outcome.output == ["Call Bob"]


def test_tools_and_namespace(tooldeck_host):
    host = tooldeck_host(plugins=[{{module}}])
    host.assert_tool("{{ns}}_add", mode="native", provided_by="{{module}}", overrides=[])
    host.assert_tool("{{ns}}_search", mode="native")
    assert "NOTES.md" in host.service.catalog.namespaces["{{ns}}"].description


async def test_the_notes_resource_and_the_review_prompt(tooldeck_host):
    host = tooldeck_host(plugins=[{{module}}])
    (host.root / "NOTES.md").write_text("- Ship on Friday\n")
    notes = host.service.catalog.resources["{{scheme}}://all"].resource
    assert notes.read(ToolContext(host.location)) == "- Ship on Friday\n"
    review = host.service.catalog.prompts["{{ns}}_review"].prompt
    embedded, ask = review.render({"focus": "deadlines"}, ToolContext(host.location))
    assert embedded["content"].uri == "{{scheme}}://all"
    assert ask["content"] == "Review these notes. Focus on deadlines."


def test_hidden_when_edit_is_denied(tooldeck_host):
    config = {"permission": [{"action": "edit", "resource": "*", "effect": "deny"}]}
    host = tooldeck_host(plugins=[{{module}}], config=config)
    host.assert_no_tool("{{ns}}_add")
    host.assert_tool("{{ns}}_search")


def test_the_installed_entry_point(tooldeck_install):
    site = tooldeck_install(PROJECT)
    done = site.tooldeck("tools")
    assert done.returncode == 0, done.stderr
    assert "{{ns}}_add" in done.stdout and "{{dist}}" in done.stdout
    site.uninstall("{{dist}}")
    assert "{{ns}}_add" not in site.tooldeck("tools").stdout
""",
    "tox.ini": r"""# tox.ini of a tooldeck pack: its tests on every Python, next to other packs, and
# against several tooldeck versions.
#
#   tox p                                 the default cells in parallel: one per Python,
#                                         and the neighbours
#   tox p -m full                         every tooldeck version on every Python too
#   tox -e py312                          one cell
#   TOOLDECK_NEXT=../tooldeck tox -e py312-tooldecknext          a local checkout
#   TOOLDECK_NEXT=dist/tooldeck-0.2.0.dev1-py3-none-any.whl tox -e py312-tooldecknext
#   TOOLDECK_NEXT=https://example.org/wheels/tooldeck-0.2.0.dev1-py3-none-any.whl tox ...
#   PIP_FIND_LINKS=../wheels tox p        wheels that are not on an index yet
#
# matrix.sh builds those wheels into ../wheels and runs `tox p` with them.

[tox]
# tox-uv: uv creates each environment and installs into it, several times faster than
# virtualenv and pip.
requires =
    tox>=4.14
    tox-uv>=1.11
env_list =
    py{311,312,313}
    py312-neighbours
labels =
    full = py{311,312,313}-tooldeck{01,latest}, py312-tooldecknext, py312-neighbours
skip_missing_interpreters = false

[testenv]
description = the pack's tests against {env_name}
package = wheel
extras = test
# uv reads UV_FIND_LINKS where pip reads PIP_FIND_LINKS: one setting serves both.
set_env =
    UV_FIND_LINKS = {env:PIP_FIND_LINKS:}
deps =
    tooldeck01: tooldeck==0.1.*
    tooldecklatest: tooldeck
    # tooldecknext fails to start until TOOLDECK_NEXT names a checkout or a wheel.
    tooldecknext: {env:TOOLDECK_NEXT:TOOLDECK_NEXT-is-not-set}
    neighbours: tooldeck-git
    neighbours: tooldeck-safe-read
commands_pre =
    # Say which tooldeck this cell really got: the resolver installs the pack's own
    # requirement after `deps`, and may have replaced the one asked for here.
    python -c "import importlib.metadata as m; print('tooldeck', m.version('tooldeck'))"
commands =
    pytest {posargs}
    tooldeck check {{dist}}
    neighbours: tooldeck plugins
""",
    "matrix.sh": r"""#!/usr/bin/env bash
# The compatibility matrix of {{dist}}: build the wheels that are on no index yet into
# ../wheels, then run tox's cells in parallel. Arguments go to tox:
#
#   bash matrix.sh                one cell per Python, and the neighbours
#   bash matrix.sh -m full        every tooldeck version on every Python too
#
# TOOLDECK_NEXT (default ../tooldeck): a tooldeck checkout, whose wheel and example packs
# (the neighbours) are built, or a wheel file or URL for the tooldecknext cell.
set -euo pipefail
cd "$(dirname "$0")"
.venv/bin/pip install -q 'tox>=4.14' 'tox-uv>=1.11'
export TOOLDECK_NEXT="${TOOLDECK_NEXT:-../tooldeck}"
export PIP_FIND_LINKS="$PWD/../wheels"
if [ -d "$TOOLDECK_NEXT" ]; then
    for project in "$TOOLDECK_NEXT" "$TOOLDECK_NEXT/example_plugins/tooldeck-git" \
            "$TOOLDECK_NEXT/example_plugins/tooldeck-safe-read"; do
        .venv/bin/uv build -q --wheel --out-dir "$PIP_FIND_LINKS" "$project"
    done
fi
# pyenv's shims fail for versions outside `pyenv global`: let tox find the real ones.
if command -v pyenv >/dev/null; then
    for bin in "$(pyenv root)"/versions/*/bin; do PATH="$PATH:$bin"; done
fi
.venv/bin/tox p "$@"
""",
    "tests/test_neighbours.py": r"""from tooldeck import Host

MINE = {"{{ns}}_add", "{{ns}}_search"}


def test_my_tools_survive_the_installed_neighbours(tooldeck_env):
    host = Host.open(tooldeck_env)             # discovers every installed pack
    plugins = {p.name: p for p in host.plugins}
    assert "{{dist}}" in plugins, (
        "{{dist}} is not installed in this environment (run `pip install -e .`, "
        f"or tox, which installs the built wheel); installed: {sorted(plugins)}")
    assert plugins["{{dist}}"].status == "active", plugins["{{dist}}"].reason
    catalog = host.service.catalog
    assert {name: catalog.tools[name].source for name in MINE} == dict.fromkeys(
        MINE, "{{dist}}"), "a neighbour overrides or removed one of our tools"
""",
}
