"""When tracing is on (``Host.open(telemetry=)``, config ``[telemetry]``), and what happens
without OpenTelemetry installed: nothing of it is imported, an explicit request is an error
naming the extra, a config request leaves the host untraced with the plugin reported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tooldeck import Telemetry, TelemetryConfig
from tooldeck.telemetry.settings import resolve

pytestmark = pytest.mark.usefixtures("clean_env")

ON = TelemetryConfig(enabled=True)
CAPTURING = TelemetryConfig(enabled=True, capture_content=True)


def test_the_argument_wins_over_config_either_way():
    assert resolve(None, TelemetryConfig()) is None
    assert resolve(None, ON) == Telemetry(capture_content=False)
    assert resolve(False, ON) is None
    assert resolve(True, TelemetryConfig()) == Telemetry(capture_content=False)
    assert resolve(Telemetry(capture_content=False), CAPTURING).capture_content is False
    assert resolve(Telemetry(), CAPTURING).capture_content is True


def test_a_wrong_argument_names_what_is_accepted():
    with pytest.raises(TypeError, match=r"True, False, None or a tooldeck.Telemetry, not str"):
        resolve("yes", TelemetryConfig())  # type: ignore[arg-type]


WITHOUT_OTEL = """
import json, sys
sys.modules["opentelemetry"] = None  # as if tooldeck[otel] were not installed
import tooldeck
from tooldeck import Host, UsageError
try:
    Host.open(sys.argv[1], plugins=[], telemetry=True)
except UsageError as exc:
    explicit = str(exc)
host = Host.open(sys.argv[1], plugins=[])
row = next(i for i in host.plugins if i.name == "telemetry")
print(json.dumps({"explicit": explicit, "status": row.status, "reason": row.reason,
                  "hooks": host.snapshot().call_hooks is None,
                  "loaded": sorted(m for m, v in sys.modules.items()
                             if m.startswith("opentelemetry") and v is not None)}))
"""


def test_without_opentelemetry_nothing_is_imported_and_the_extra_is_named(tmp_path):
    (tmp_path / "tooldeck.toml").write_text("[telemetry]\nenabled = true\n")
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_OTEL, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert "pip install 'tooldeck[otel]'" in found["explicit"]
    assert found["status"] == "failed"
    assert "pip install 'tooldeck[otel]'" in found["reason"]
    assert found["hooks"] is True
    assert found["loaded"] == []
