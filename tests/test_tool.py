from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import FrozenToolError, Tool, ToolFailure, ToolResult


def run(inp, ctx):
    return ToolResult("ok")


def test_tool_is_frozen_and_replace_copies():
    original = Tool(name="read", description="Read.", execute=run)
    with pytest.raises(FrozenToolError, match=r"use tool\.replace\(name=\.\.\.\)"):
        original.name = "x"  # type: ignore[misc]
    with pytest.raises(FrozenToolError):
        del original.name  # type: ignore[misc]
    changed = original.replace(description="Changed.", codemode=False)
    assert (changed.name, changed.description, changed.codemode) == ("read", "Changed.", False)
    assert original.description == "Read." and original.codemode is True


def test_tool_never_validates_when_constructed():
    broken = Tool(name="", description=None, execute=None, input=42)  # type: ignore[arg-type]
    assert broken.input == 42


def test_tool_defaults_match_the_contract():
    t = Tool(name="x", description="d", execute=run)
    assert (t.input, t.output, t.namespace, t.codemode, t.permission, t.pinned) == (
        None,
        None,
        None,
        True,
        None,
        False,
    )


def test_tool_equality_is_identity():
    a = Tool(name="x", description="d", execute=run)
    assert a == a and a != a.replace()


def test_tool_result_defaults():
    result = ToolResult("text")
    assert (result.content, dict(result.metadata), result.output) == ("text", {}, None)


def test_tool_failure_keeps_message_cause_and_metadata():
    cause = OSError("disk")
    failure = ToolFailure("could not read", cause=cause, metadata={"path": "a"})
    assert str(failure) == "could not read"
    assert failure.cause is cause and failure.__cause__ is cause
    assert failure.metadata == {"path": "a"}
    assert isinstance(failure, Exception)


def test_replace_rejects_unknown_fields_and_repr_shows_fields():
    original = Tool(name="read", description="Read.", execute=run)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nme'"):
        original.replace(nme="x")
    assert repr(original).startswith("Tool(name='read', description='Read.'")


def test_the_registry_cache_slot_is_no_field_of_the_tool():
    original = Tool(name="read", description="Read.", execute=run)
    object.__setattr__(original, "_record", "cached")
    assert "_record" not in repr(original) and "cached" not in repr(original)
    assert original.replace(description="Other.")._record is None
    with pytest.raises(TypeError, match="_record"):
        Tool(name="read", description="Read.", execute=run, _record="x")  # type: ignore[call-arg]
    with pytest.raises((ValueError, TypeError), match="_record"):  # TypeError on 3.13+
        original.replace(_record="x")


@pytest.mark.slow
def test_tool_generics_infer_from_input_and_output_under_mypy(tmp_path):
    """``tests/typing/tool_generics.py``: no annotations needed, the executor still checked."""
    snippet = Path(__file__).parent / "typing" / "tool_generics.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--warn-unused-ignores",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(snippet),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
