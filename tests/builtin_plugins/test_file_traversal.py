"""Nothing outside the Location is read or modified without ``external_directory``.

A matrix of the file tools against every way a path can lead out of the project:
``..``, an absolute path, ``~`` and a symlinked directory inside the project. The user
rejects the ``external_directory`` ask; the outside file must be untouched (content and
mtime), its content must not reach the model, and that ask must have come first.
"""

from __future__ import annotations

import os

import pytest

from tooldeck.host.permissions.request import Reject

SECRET = "secret token\n"
OLD_MTIME_NS = 1_000_000_000 * 10**9


@pytest.fixture
def tools(builtins):
    return builtins.load("read", "write", "edit")


@pytest.fixture
def outside(root, tmp_path, monkeypatch):
    """The outside files, by how the model names them."""
    home = tmp_path / "home"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "target").mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (root / "linked").symlink_to(tmp_path / "target", target_is_directory=True)
    files = {
        "../outside.txt": tmp_path / "outside.txt",
        str(tmp_path / "elsewhere" / "abs.txt"): tmp_path / "elsewhere" / "abs.txt",
        "~/home.txt": home / "home.txt",
        "linked/t.txt": tmp_path / "target" / "t.txt",
    }
    for file in files.values():
        file.write_text(SECRET)
        os.utime(file, ns=(OLD_MTIME_NS, OLD_MTIME_NS))
    return files


CALLS = {
    "read": {},
    "write": {"content": "overwritten\n"},
    "edit": {"old_string": "secret", "new_string": "public"},
}
PATHS = ["../outside.txt", "absolute", "~/home.txt", "linked/t.txt"]


def pick(outside, path):
    return next(name for name in outside if name.startswith("/")) if path == "absolute" else path


def unchanged(file) -> bool:
    return file.read_text() == SECRET and file.stat().st_mtime_ns == OLD_MTIME_NS


def shown(outcome) -> str:
    return "\n".join(getattr(part, "text", "") for part in outcome.content)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("tool", list(CALLS))
async def test_a_rejected_external_directory_touches_nothing(tools, asker, outside, tool, path):
    name = pick(outside, path)
    asker.replies["external_directory"] = "reject"
    outcome = await tools.call(tool, path=name, **CALLS[tool])
    assert outcome.status == "declined"
    assert [request.action for request in asker.requests] == ["external_directory"]
    assert asker.requests[0].resources == (os.path.join(outside[name].parent, "*"),)
    assert unchanged(outside[name])
    assert "secret" not in shown(outcome)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("tool", list(CALLS))
async def test_feedback_on_external_directory_fails_and_touches_nothing(
    tools, asker, outside, tool, path
):
    name = pick(outside, path)
    asker.replies["external_directory"] = Reject("stay in the project")
    outcome = await tools.call(tool, path=name, **CALLS[tool])
    assert outcome.status == "failed" and "stay in the project" in outcome.error.message
    assert unchanged(outside[name]) and "secret" not in shown(outcome)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("tool", ["write", "edit"])
async def test_approved_directory_still_needs_the_edit_approval(tools, asker, outside, tool, path):
    name = pick(outside, path)
    asker.replies["edit"] = "reject"
    outcome = await tools.call(tool, path=name, **CALLS[tool])
    assert outcome.status == "declined"
    assert [request.action for request in asker.requests] == ["external_directory", "edit"]
    assert unchanged(outside[name])


@pytest.mark.parametrize("path", PATHS)
async def test_approved_directory_lets_read_through(tools, asker, outside, path):
    name = pick(outside, path)
    outcome = await tools.call("read", path=name)
    assert outcome.status == "completed" and "1: secret token" in shown(outcome)
    assert [request.action for request in asker.requests] == ["external_directory"]


@pytest.mark.parametrize("path", ["../new/x.txt", "linked/new/x.txt", "~/new/x.txt"])
async def test_a_rejected_write_creates_no_outside_directories(
    tools, asker, outside, tmp_path, path
):
    asker.replies["external_directory"] = "reject"
    assert (await tools.call("write", path=path, content="x")).status == "declined"
    assert not any(p.name == "new" for p in tmp_path.rglob("new"))
