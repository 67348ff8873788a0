"""The setup blocks of ``docs/telemetry.md`` run as written."""

from __future__ import annotations

import subprocess
import sys

from tooldeck import Host

from ..docs_blocks import blocks


def block(language: str) -> str:
    return next(b.code for b in blocks("telemetry.md") if b.lang == language)


def test_the_python_block_traces_a_host_it_opens(tmp_path, clean_env):
    traced = "assert ('telemetry', 'active') in [(p.name, p.status) for p in host.plugins]"
    code = f"{block('python')}\n{traced}\nhost.close()\nprovider.shutdown()\n"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_the_toml_block_turns_tracing_on(tmp_path, clean_env):
    (tmp_path / "tooldeck.toml").write_text(block("toml"))
    with Host.open(tmp_path) as host:
        config = host.location.config.telemetry
        assert (config.enabled, config.capture_content) == (True, False)
        assert any(p.name == "telemetry" and p.status == "active" for p in host.plugins)
