from __future__ import annotations

import os

import pytest

from tooldeck import Location
from tooldeck.errors import PermissionDeclined
from tooldeck.host.config.paths import resolve_in_root
from tooldeck.paths import is_inside, resolve_in_location

SOURCE = {"type": "tool", "message_id": "m1", "id": "call_1"}


class Script:
    def __init__(self, reply="once"):
        self.reply = reply
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        return self.reply


@pytest.fixture
def asker():
    return Script()


@pytest.fixture
def location(tmp_path, asker):
    root = tmp_path / "root"
    root.mkdir()
    return Location(root, data_dir=tmp_path / "data", asker=asker)


async def resolve(location, path, **options):
    gate = location.permission.gate(SOURCE, session_id="s1")
    return await resolve_in_location(gate, location, path, **options)


def asked(asker):
    return [(r.action, r.resources, r.save) for r in asker.requests]


@pytest.mark.parametrize("path", ["a/b.txt", "./a/b.txt", "a/../a/b.txt", "a//b.txt"])
async def test_relative_paths_inside_resolve_without_asking(location, asker, path):
    assert await resolve(location, path) == location.root / "a" / "b.txt"
    assert asker.requests == []


async def test_absolute_paths_inside_and_the_root_itself_ask_nothing(location, asker):
    assert await resolve(location, str(location.root / "x.py")) == location.root / "x.py"
    assert await resolve(location, "", kind="directory") == location.root
    assert await resolve(location, location.root) == location.root
    assert asker.requests == []


async def test_dotdot_out_of_the_location_asks_for_the_parent_directory(location, asker):
    outside = location.root.parent
    assert await resolve(location, "../notes/todo.md") == outside / "notes" / "todo.md"
    pattern = f"{outside}/notes/*"
    assert asked(asker) == [("external_directory", (pattern,), (pattern,))]
    assert dict(asker.requests[0].metadata) == {
        "path": str(outside / "notes" / "todo.md"),
        "kind": "file",
    }


async def test_a_directory_asks_for_itself(location, asker):
    outside = location.root.parent / "lib"
    assert await resolve(location, str(outside), kind="directory") == outside
    assert asked(asker)[0][1] == (f"{outside}/*",)


async def test_the_filesystem_root_asks_for_slash_star(location, asker):
    await resolve(location, "/", kind="directory")
    assert asked(asker)[0][1] == ("/*",)


async def test_a_sibling_with_the_roots_name_as_prefix_is_outside(location, asker):
    sibling = f"{location.root}-other/a.txt"
    await resolve(location, sibling)
    assert asked(asker)[0][1] == (f"{location.root}-other/*",)
    assert not is_inside(location, sibling)


async def test_tilde_expands_to_the_home_directory(location, asker, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert await resolve(location, "~/notes/a.md") == tmp_path / "home" / "notes" / "a.md"
    assert asked(asker)[0][1] == (f"{tmp_path}/home/notes/*",)


async def test_always_covers_the_directory_but_not_its_subdirectories(location, asker):
    asker.reply = "always"
    outside = location.root.parent
    await resolve(location, str(outside / "docs" / "a.md"))
    await resolve(location, str(outside / "docs" / "b.md"))
    await resolve(location, str(outside / "docs" / "deep" / "c.md"))
    assert [r.resources for r in asker.requests] == [
        (f"{outside}/docs/*",),
        (f"{outside}/docs/deep/*",),
    ]


async def test_outside_without_an_asker_is_declined(tmp_path):
    location = Location(tmp_path, data_dir=tmp_path / "data")
    with pytest.raises(PermissionDeclined) as caught:
        await resolve(location, "../elsewhere.txt")
    assert caught.value.action == "external_directory"


async def test_a_symlink_leading_outside_asks_for_its_real_directory(location, asker, tmp_path):
    target = tmp_path / "outside"
    target.mkdir()
    os.symlink(target, location.root / "link")
    resolved = await resolve(location, "link/secret.txt")
    assert resolved == location.root / "link" / "secret.txt"  # the path the model wrote
    (request,) = asker.requests
    assert request.action == "external_directory"
    assert request.resources == (f"{target}/*",)
    assert request.metadata["link"] == str(resolved)
    assert is_inside(location, "link/secret.txt")  # lexically inside


async def test_a_symlink_staying_inside_asks_nothing(location, asker):
    (location.root / "real").mkdir()
    os.symlink(location.root / "real", location.root / "alias")
    assert await resolve(location, "alias/a.txt") == location.root / "alias" / "a.txt"
    assert asker.requests == []


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("a.txt", True),
        ("", True),
        (".", True),
        ("a/../../b", False),
        ("/", False),
        ("../root/a.txt", True),
    ],
)
def test_is_inside(location, path, inside):
    assert is_inside(location, path) is inside


async def test_the_config_layer_judges_against_a_bare_root(tmp_path):
    """``tooldeck.paths`` hands the Location's root to ``host.config.paths``, which needs
    only that root and something with ``assert_``: no Location, no permission service."""

    class Gate:
        def __init__(self):
            self.asserted = []

        async def assert_(self, action, resources, *, save=None, metadata=None):
            self.asserted.append((action, tuple(resources), tuple(save or ())))

    gate = Gate()
    assert await resolve_in_root(gate, tmp_path, "a/b.txt") == tmp_path / "a" / "b.txt"
    assert await resolve_in_root(gate, tmp_path, "../c.txt") == tmp_path.parent / "c.txt"
    pattern = f"{tmp_path.parent}/*"
    assert gate.asserted == [("external_directory", (pattern,), (pattern,))]
