"""Every block of ``docs/telemetry.md`` runs: the setup blocks as written, and the span
tree of one code-mode turn is what the real SDK records for that turn."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from opentelemetry.sdk.trace import ReadableSpan

from tooldeck import Host, ToolCall, hookimpl, run_tool_call, tool

from ..docs_blocks import page

PAGE = page("telemetry.md")
SETUP = PAGE.take("python", "TracerProvider()")
CONFIG = PAGE.take("toml", "[telemetry]")
TREE = PAGE.take("", "invoke_agent demo")


def test_the_python_block_traces_a_host_it_opens(tmp_path, clean_env):
    traced = "assert ('telemetry', 'active') in [(p.name, p.status) for p in host.plugins]"
    code = f"{SETUP.code}\n{traced}\nhost.close()\nprovider.shutdown()\n"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_the_toml_block_turns_tracing_on(tmp_path, clean_env):
    (tmp_path / "tooldeck.toml").write_text(CONFIG.code)
    with Host.open(tmp_path) as host:
        config = host.location.config.telemetry
        assert (config.enabled, config.capture_content) == (True, False)
        assert any(p.name == "telemetry" and p.status == "active" for p in host.plugins)


# -- the spans of one code-mode turn ---------------------------------------------------------
@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


class Pack:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add)
        editor.add(weather)


def rendered(spans: list[ReadableSpan]) -> list[str]:
    """The tree as the page prints it: each span, then its attributes, sorted."""
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        children.setdefault(span.parent.span_id if span.parent else None, []).append(span)
    lines: list[str] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in children.get(parent, []):
            lines.append(f"{'  ' * depth}{span.name}  [{span.kind.name}]")
            for key, value in sorted((span.attributes or {}).items()):
                lines.append(f"{'  ' * depth}    {key} = {value!r}")
            walk(span.context.span_id, depth + 1)

    walk(None, 0)
    return lines


def test_the_span_tree_is_what_the_sdk_records(tmp_path, clean_env, otel):
    program = "x = await tools.add(a=1, b=2)\nawait tools.weather(city='Oslo')\nx"
    agent = otel.tracer_provider.get_tracer("demo-agent")
    with Host.open(tmp_path, plugins=[Pack()], telemetry=otel.telemetry()) as host:
        snapshot = host.snapshot()
        otel.exporter.clear()  # the startup spans: the page shows the turn's

        async def turn() -> str:
            with agent.start_as_current_span("invoke_agent demo"):
                call = ToolCall("call_1", "execute", {"code": program})
                outcome = await run_tool_call(snapshot, call, session_id="s1")
            return outcome.status

        assert asyncio.run(turn()) == "completed"
    real = rendered(otel.spans())
    shown = TREE.code.splitlines()
    assert shown[0].endswith("  (the host's span)")
    shown[0] = shown[0].removesuffix("(the host's span)").rstrip()
    assert len(real) == len(shown), "\n".join(real)
    for mine, theirs in zip(shown, real, strict=True):
        if mine.endswith("…'"):  # the page cuts the description (and its quotes differ)
            key, _, value = mine.removesuffix("…'").partition(" = '")
            assert theirs.startswith(f"{key} = ") and theirs[len(key) + 4 :].startswith(value)
        else:
            assert mine == theirs
