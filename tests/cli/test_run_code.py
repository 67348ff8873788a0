"""``tooldeck run-code``: one program through the session boundary."""

from __future__ import annotations

import json


def test_prints_the_result(tooldeck):
    code, out, err = tooldeck("run-code", "j = await tools.fun.joke()\nprint('told')\nj * 2")
    assert (code, err) == (0, "")
    assert out == "Printed output:\ntold\n\nResult:\n......\n"


def test_json_prints_the_outcome_with_the_programs_output(tooldeck):
    code, out, err = tooldeck("run-code", "j = await tools.fun.joke()\nprint('told')\nj", "--json")
    outcome = json.loads(out)
    assert (code, err, outcome["status"], outcome["error"]) == (0, "", "completed", None)
    assert outcome["output"]["result"] == "..." and outcome["output"]["printed"] == "told\n"
    assert [c["name"] for c in outcome["output"]["tool_calls"]] == ["fun_joke"]


def test_reads_a_file(tooldeck, tmp_path):
    program = tmp_path / "program.py"
    program.write_text("[1, 2]")
    code, out, _ = tooldeck("run-code", f"@{program}")
    assert code == 0 and out == "[\n  1,\n  2\n]\n"


def test_a_failing_program_exits_1(tooldeck):
    code, out, err = tooldeck("run-code", "1 / 0")
    assert code == 1 and out == ""
    assert err.startswith("tooldeck: run-code: failed (tool.execution)\n")
    assert "ZeroDivisionError" in err


def test_code_mode_off_is_a_usage_error(tooldeck, project):
    (project / "tooldeck.toml").write_text("[codemode]\nenabled = false\n")
    code, _, err = tooldeck("run-code", "1")
    assert code == 2 and err == "tooldeck: error: code mode is off ([codemode] enabled = false)\n"


def test_an_unreadable_file_is_a_usage_error(tooldeck, tmp_path):
    code, _, err = tooldeck("run-code", f"@{tmp_path / 'missing.py'}")
    assert code == 2 and "cannot read" in err
