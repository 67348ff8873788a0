"""``tooldeck approvals migrate``: copy this machine's ``permissions.json`` into the store.

Earlier versions kept ``always`` answers in ``<data_dir>/permissions.json``. The
Location's own SQLite database takes that file in by itself; a shared store
(``TOOLDECK_STORE_URL``) never does, since the file holds one machine's answers and
every replica reads the shared store. ``migrate`` is the operator saying "share them":
it copies the rules into the store (for the Location, as the file held them) and
renames the file ``permissions.json.migrated``. Running it again copies nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from tooldeck.cli._common import location_dir
from tooldeck.cli._help import accept_location


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "approvals",
        help="manage saved approvals",
        description="Saved 'always' answers of the Location's store.",
    )
    actions = parser.add_subparsers(dest="approvals_command", metavar="ACTION", required=True)
    migrate = actions.add_parser(
        "migrate",
        help="copy permissions.json into the store",
        description="Copy the approvals an earlier version saved in this Location's "
        "permissions.json into its store (TOOLDECK_STORE_URL, else its SQLite database) "
        "and keep the file as permissions.json.migrated.",
    )
    accept_location(migrate)
    migrate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import os

    from tooldeck.cli._store import store_from_env, store_settings
    from tooldeck.host.config.config_files import default_data_dir
    from tooldeck.host.store.legacy import LEGACY_NAME, migrate_legacy
    from tooldeck.host.store.sqlite import SqliteStore

    root = location_dir(args).resolve()
    data_dir = default_data_dir(root)
    store = store_from_env(os.environ, store_settings(root)) or SqliteStore.in_dir(data_dir)
    try:
        moved = migrate_legacy(store, data_dir)
    finally:
        store.close()
    if moved is None:
        print(f"nothing to migrate: no {LEGACY_NAME} in {data_dir}")
        return 0
    print(f"copied {len(moved)} approval(s) from {data_dir / LEGACY_NAME} into {store!r}")
    for rule in moved:
        print(f"  {rule.effect} {rule.action} on {rule.resource}")
    return 0
