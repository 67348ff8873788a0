"""``WheelCache``: real builds of a tiny generated pack, and the build requirements
checked before them."""

from __future__ import annotations

import os
import zipfile

import pytest

from tooldeck.errors import PackBuildError
from tooldeck.testing import WheelCache

from .conftest import MODULE, make_pack

IN_TREE_BACKEND = "from setuptools.build_meta import *  # noqa: F403\n"


def touch_later(path):
    """Move ``path``'s mtime forward: coarse filesystem clocks must not hide an edit."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def module_text(wheel):
    with zipfile.ZipFile(wheel) as archive:
        return archive.read("tdtest_mini.py").decode()


# -- WheelCache ------------------------------------------------------------------------------
def test_a_wheel_is_built_once_per_source_state(tmp_path, pack):
    cache = WheelCache(tmp_path / "cache")
    first = cache.wheel(pack)
    assert first.name == "tdtest_mini-1.0-py3-none-any.whl"
    assert cache.wheel(pack) == first
    assert sorted(p.name for p in pack.iterdir()) == ["pyproject.toml", "tdtest_mini.py"]
    (pack / "tdtest_mini.py").write_text(MODULE.format(says="mini 2"))
    touch_later(pack / "tdtest_mini.py")
    second = cache.wheel(pack)
    assert second != first
    assert "mini 2" in module_text(second) and "mini 1" in module_text(first)


def test_several_packs_build_in_parallel_in_order(tmp_path):
    one = make_pack(tmp_path / "one")
    two = make_pack(tmp_path / "two", version="2.0")
    cache = WheelCache(tmp_path / "cache")
    assert [w.name.split("-")[1] for w in cache.wheels(two, one, two)] == ["2.0", "1.0", "2.0"]


def test_the_project_backend_is_used_with_its_backend_path(tmp_path):
    pack = make_pack(tmp_path / "pack", backend="backend", backend_path='backend-path = ["_b"]')
    (pack / "_b").mkdir()
    (pack / "_b" / "backend.py").write_text(IN_TREE_BACKEND)
    assert WheelCache(tmp_path / "cache").wheel(pack).suffix == ".whl"


def test_a_failed_build_shows_the_backend_output(tmp_path):
    pack = make_pack(tmp_path / "pack", backend="no_such_backend")
    with pytest.raises(
        PackBuildError,
        match=r"(?s)building a wheel of .*pack failed "
        r"\(build_wheel exited 1, 0 wheels\):.*"
        r"No module named 'no_such_backend'",
    ):
        WheelCache(tmp_path / "cache").wheel(pack)
    with pytest.raises(PackBuildError, match="not a Python project"):
        WheelCache(tmp_path / "cache").wheel(tmp_path)


# -- the build requirements, checked up front ---------------------------------------------
def test_a_missing_build_requirement_says_what_to_install(tmp_path):
    pack = make_pack(tmp_path / "pack")
    text = (pack / "pyproject.toml").read_text()
    (pack / "pyproject.toml").write_text(
        text.replace(
            'requires = ["setuptools>=68"]', 'requires = ["setuptools>=9999", "tdtest-absent>=1"]'
        )
    )
    from importlib.metadata import version

    with pytest.raises(PackBuildError) as raised:
        WheelCache(tmp_path / "cache").wheel(pack)
    assert str(raised.value) == (
        "cannot build pack: its [build-system] requires 'setuptools>=9999', but this "
        f"environment has setuptools {version('setuptools')}. tooldeck_install builds "
        "without isolation, with this environment's packages: install it here "
        "(python -m pip install 'setuptools>=9999'), for example through the pack's test "
        "extra."
    )
    (pack / "pyproject.toml").write_text(
        text.replace('requires = ["setuptools>=68"]', 'requires = ["tdtest-absent>=1"]')
    )
    with pytest.raises(PackBuildError, match=r"this environment has no tdtest-absent\. "):
        WheelCache(tmp_path / "cache").wheel(pack)


def test_a_requirement_for_another_platform_is_not_checked(tmp_path):
    pack = make_pack(tmp_path / "pack")
    text = (pack / "pyproject.toml").read_text()
    (pack / "pyproject.toml").write_text(
        text.replace(
            'requires = ["setuptools>=68"]',
            'requires = ["setuptools>=68", "tdtest-absent; sys_platform == \'nowhere\'"]',
        )
    )
    assert WheelCache(tmp_path / "cache").wheel(pack).suffix == ".whl"
