from __future__ import annotations

import pytest

from tooldeck.host.registry.names import effective_name, name_problem, namespace_problem, normalize


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("read", "read"), ("git status", "git_status"), ("a.b/c", "a_b_c"), ("é-x_1", "_-x_1")],
)
def test_normalize_replaces_everything_outside_the_allowed_set(raw, expected):
    assert normalize(raw) == expected


def test_effective_name_flattens_namespace_dots():
    assert effective_name("status", "git") == "git_status"
    assert effective_name("list files", "acme.fs") == "acme_fs_list_files"
    assert effective_name("status", None) == "status"


def test_valid_names_have_no_problem():
    assert name_problem("read", None, codemode=True) is None
    assert name_problem("x" * 64, None, codemode=True) is None
    assert name_problem("status", "acme.git", codemode=False) is None


@pytest.mark.parametrize(
    ("name", "namespace", "fragment"),
    [
        ("", None, "1-64 characters"),
        ("x" * 65, None, "1-64 characters"),
        (42, None, "name must be a string"),
        ("ok", "bad ns", "namespace segment 'bad ns'"),
        ("ok", "a..b", "namespace segment ''"),
        ("y" * 62, "ns", "longer than 64"),
        ("ok", 3, "namespace must be a string"),
    ],
)
def test_invalid_names_say_why(name, namespace, fragment):
    problem = name_problem(name, namespace, codemode=True)
    assert problem is not None and fragment in problem


def test_execute_is_reserved_only_for_native_tools():
    assert "reserved" in (name_problem("execute", None, codemode=False) or "")
    assert name_problem("execute", None, codemode=True) is None
    assert name_problem("execute", "ns", codemode=False) is None


def test_namespace_problem_checks_each_segment():
    assert namespace_problem("a.b-c.d_e") is None
    assert namespace_problem("a." + "x" * 65) is not None
