"""The Location composes its services from what it holds now: replacing its config, asker
or answerer after a service was built is seen by the next decision or ask."""

from __future__ import annotations

import pytest

from tooldeck import Location
from tooldeck.errors import PermissionBlocked, PermissionDeclined, QuestionDismissed
from tooldeck.host.config.config import PermissionRule

SOURCE = {"type": "tool", "message_id": "m1", "id": "call_1"}


@pytest.fixture
def location(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    opened = Location(root, data_dir=tmp_path / "data")
    yield opened
    opened.close()


async def test_a_replaced_asker_is_the_one_asked(location):
    with pytest.raises(PermissionDeclined):  # no asker yet: declined
        await location.permission.assert_("edit", ["a.py"], source=SOURCE)
    asked = []
    location.asker = lambda request: asked.append(request.resources) or "once"
    await location.permission.assert_("edit", ["a.py"], source=SOURCE)
    assert asked == [("a.py",)]


async def test_a_replaced_answerer_answers_the_next_question(location):
    question = {"question": "Go?", "header": "Go", "options": [{"label": "yes"}]}
    with pytest.raises(QuestionDismissed):
        await location.question.ask([question], source=SOURCE)
    location.answerer = lambda request: [["yes"]]
    assert await location.question.ask([question], source=SOURCE) == [["yes"]]


async def test_the_permission_service_decides_by_the_current_config(location):
    service = location.permission
    assert service.evaluate("shell", "ls") == "ask"
    location.config = location.config.model_copy(
        update={"permission": (PermissionRule(action="shell", effect="deny"),)}
    )
    assert service.evaluate("shell", "ls") == "deny"
    assert service.visibility() is location.policy
    with pytest.raises(PermissionBlocked):
        await service.assert_("shell", ["ls"], source=SOURCE)


def test_a_relative_resource_matches_an_absolute_one_inside_the_root(location):
    location.config = location.config.model_copy(
        update={"permission": (PermissionRule(action="edit", resource="src/**", effect="allow"),)}
    )
    assert location.permission.evaluate("edit", str(location.root / "src" / "a.py")) == "allow"
    assert location.permission.evaluate("edit", "/elsewhere/src/a.py") == "ask"


def test_resource_updated_reaches_listeners_and_nothing_else(tmp_path):
    """Nobody serving: the call does nothing; a listener hears each URI until stopped."""
    location = Location(tmp_path)
    heard: list[str] = []
    location.resource_updated("test://x")
    stop = location.on_resource_updated(heard.append)
    location.resource_updated("test://x")
    stop()
    location.resource_updated("test://y")
    assert heard == ["test://x"]
