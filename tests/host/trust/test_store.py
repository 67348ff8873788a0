"""The trust store: keyed by real path and fingerprint, written atomically, shared safely."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tooldeck.errors import ConfigError
from tooldeck.host.trust.items import TrustItem, fingerprint
from tooldeck.host.trust.project import project_items
from tooldeck.host.trust.store import TrustStore, evaluate, trust_store_path

from ...full_disk import on_a_full_disk

pytestmark = pytest.mark.usefixtures("clean_env")

PLUGIN = TrustItem("plugin", ".tooldeck/plugins/x.py", "a" * 64, "")


def folder(tmp_path, name):
    path = tmp_path / name
    (path / ".tooldeck" / "plugins").mkdir(parents=True)
    (path / ".tooldeck" / "plugins" / "x.py").write_text(f"# {name}\n")
    return path


def test_the_fingerprint_ignores_order_and_sees_every_digest():
    other = TrustItem("allow", "shell *", "b" * 64, "allow shell on *")
    assert fingerprint([PLUGIN, other]) == fingerprint([other, PLUGIN])
    changed = TrustItem(PLUGIN.kind, PLUGIN.name, "c" * 64, "")
    assert fingerprint([changed, other]) != fingerprint([PLUGIN, other])


def test_items_name_plugins_servers_and_allow_rules(tmp_path):
    root = folder(tmp_path, "p")
    project = {
        "mcp": {"servers": {"s": {"command": ["run", "it"], "env": {"K": "v"}}}},
        "permission": [
            {"action": "shell", "effect": "allow"},
            {"action": "edit", "effect": "ask"},
        ],
    }
    items = project_items(root, project)
    assert [(i.kind, i.name, i.detail) for i in items] == [
        ("plugin", ".tooldeck/plugins/x.py", ""),
        ("server", "s", "run it  (env: K=v)"),
        ("allow", "shell *", "allow shell on *"),
    ]


def test_a_folder_is_trusted_by_its_real_path(tmp_path):
    root = folder(tmp_path, "p")
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    items = project_items(root, None)
    store = TrustStore()
    store.grant(evaluate(root, items, environ={}))
    status = evaluate(link.resolve(), project_items(link.resolve(), None), environ={})
    assert (status.trusted, status.source) == (True, "store")
    data = json.loads(trust_store_path().read_text())
    assert list(data["folders"]) == [str(root.resolve())]


def test_concurrent_writers_lose_nothing(tmp_path, join_threads):
    roots = [folder(tmp_path, f"p{i}") for i in range(24)]
    statuses = [evaluate(r, project_items(r, None), environ={}) for r in roots]
    threads = [threading.Thread(target=TrustStore().grant, args=(s,)) for s in statuses]
    for thread in threads:
        thread.start()
    join_threads(*threads)
    assert sorted(TrustStore().folders()) == sorted(str(r) for r in roots)


GRANT = """
import sys
from pathlib import Path
from tooldeck.host.trust.project import project_items
from tooldeck.host.trust.store import TrustStore, evaluate
root = Path(sys.argv[1])
TrustStore().grant(evaluate(root, project_items(root, None), environ={}))
"""


def test_concurrent_processes_lose_nothing(tmp_path):
    roots = [folder(tmp_path, f"q{i}") for i in range(4)]
    env = {**os.environ, "XDG_DATA_HOME": str(trust_store_path().parent.parent)}
    processes = [
        subprocess.Popen([sys.executable, "-c", GRANT, str(root)], env=env) for root in roots
    ]
    assert [process.wait(timeout=120) for process in processes] == [0] * len(roots)
    assert sorted(TrustStore().folders()) == sorted(str(r) for r in roots)
    leftovers = [p.name for p in trust_store_path().parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []  # no temporary file was left behind


def test_a_broken_store_trusts_nothing_and_is_set_aside_on_the_next_grant(tmp_path, caplog):
    root = folder(tmp_path, "p")
    path = trust_store_path()
    path.parent.mkdir(parents=True)
    path.write_text("{torn")
    status = evaluate(root, project_items(root, None), environ={})
    assert (status.trusted, status.source) == (False, "untrusted")
    assert status.problem is not None and str(path) in status.problem
    with caplog.at_level("WARNING", logger="tooldeck"):
        TrustStore().grant(status)
    assert "started a new one" in caplog.text
    assert [p.read_text() for p in path.parent.glob("trust.json.broken-*")] == ["{torn"]
    assert evaluate(root, project_items(root, None), environ={}).trusted


def test_revoke_forgets_only_that_folder(tmp_path):
    one, two = folder(tmp_path, "one"), folder(tmp_path, "two")
    store = TrustStore()
    for root in (one, two):
        store.grant(evaluate(root, project_items(root, None), environ={}))
    assert store.revoke(one) is True
    assert store.revoke(one) is False
    assert list(store.folders()) == [str(two)]


def test_what_is_shown_for_review_hides_nothing_behind_control_characters(tmp_path):
    from tooldeck.host.trust.store import evaluate as decide

    root = folder(tmp_path, "p")
    project = {
        "mcp": {"servers": {"s": {"command": ["true\n    (nothing else)", "\x1b[8mrm -rf ~"]}}}
    }
    described = decide(root, project_items(root, project), environ={}).describe()
    assert "\x1b" not in described
    assert "s: 'true\\n    (nothing else)' '\\x1b[8mrm -rf ~'" in described


LIMITED_GRANT = """
import sys
from pathlib import Path
from tooldeck.errors import ConfigError
from tooldeck.host.trust.project import project_items
from tooldeck.host.trust.store import TrustStore, evaluate
root = Path(sys.argv[1])
try:
    TrustStore().grant(evaluate(root, project_items(root, None), environ={}))
except ConfigError as exc:
    print(exc)
"""


def test_a_full_disk_leaves_the_store_whole_and_says_which_file(tmp_path):
    first, second = folder(tmp_path, "first"), folder(tmp_path, "second")
    TrustStore().grant(evaluate(first, project_items(first, None), environ={}))
    path = trust_store_path()
    before = path.read_text()
    env = {**os.environ, "XDG_DATA_HOME": str(path.parent.parent)}
    limit = len(before) + 10  # the old store fits, the new one does not
    done = on_a_full_disk(LIMITED_GRANT, str(second), limit=limit, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"{path}: trust store: cannot be written: File too large; it was left as it was\n"
    )
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".")] == []


def test_a_file_where_the_data_folder_should_be_is_named(tmp_path):
    root = folder(tmp_path, "p")
    path = trust_store_path()
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    path.parent.write_text("not a folder")
    with pytest.raises(ConfigError) as failed:
        TrustStore().grant(evaluate(root, project_items(root, None), environ={}))
    assert str(failed.value) == (
        f"{path}: trust store: cannot be written: File exists ({path.parent}); "
        "it was left as it was"
    )
