"""The store a command opens its Location with: ``TOOLDECK_STORE_URL`` or the SQLite default.

Replicas of ``tooldeck mcp serve`` on different machines share saved approvals and
pending calls only through one database, so every command that runs tools reads the
same variable: ``mcp serve`` on each replica, and ``call``/``run-code`` for an operator
whose ``always`` answers should reach the replicas (``tools`` and ``plugins`` only list,
and never connect). The value names a PostgreSQL server
(a ``postgresql://``/``postgres://`` URL or a libpq conninfo such as ``host=db
dbname=tooldeck``); unset or empty means the Location's own SQLite database.
``TOOLDECK_STORE_SCHEMA`` picks the schema (default ``tooldeck``): one per project, since
approvals are not keyed by project path. The pool's size and every operation's bound
come from the Location's ``[store]`` config (``pool_min_size``, ``pool_max_size``,
``timeout_s``, which also bounds connecting unless the value sets ``connect_timeout``).

The value carries a password, so it comes from the environment only (never a file in
the project), and no message prints it: every error names the variable and what failed,
with the password replaced by ``***``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from tooldeck.cli._errors import CommandError

if TYPE_CHECKING:
    from pathlib import Path

    from tooldeck.host.config.config import StoreConfig
    from tooldeck.host.store.base import Store

STORE_ENV = "TOOLDECK_STORE_URL"
SCHEMA_ENV = "TOOLDECK_STORE_SCHEMA"
_SCHEMES = ("postgresql://", "postgres://")


def store_settings(root: Path) -> StoreConfig:
    """The ``[store]`` section of the Location at ``root`` (config errors propagate)."""
    from tooldeck.host.config.config_files import load_config

    return load_config(root).store


def store_from_env(environ: Mapping[str, str], settings: StoreConfig | None = None) -> Store | None:
    """A ``PostgresStore`` when ``TOOLDECK_STORE_URL`` is set, else ``None`` (SQLite),
    sized and bounded by ``settings`` (the defaults without).

    Connects now, so a wrong value fails the command at start with a ``CommandError``
    naming the variable, rather than at the first ask. The caller closes the store.
    """
    value = environ.get(STORE_ENV, "").strip()
    if not value:
        return None
    _check_form(value)
    try:
        import psycopg
        import psycopg_pool  # noqa: F401  (the store's pool: say what to install)
    except ImportError:
        raise CommandError(
            f"{STORE_ENV} selects a PostgreSQL store, which needs psycopg 3 and its pool: "
            "pip install 'tooldeck[postgres]'"
        ) from None
    from tooldeck.host.config.config import StoreConfig
    from tooldeck.host.store.postgres import PostgresStore

    settings = settings or StoreConfig()
    schema = environ.get(SCHEMA_ENV, "").strip() or "tooldeck"
    secrets = _secrets(value)
    try:
        return PostgresStore(
            value,
            schema=schema,
            pool_min_size=settings.pool_min_size,
            pool_max_size=settings.pool_max_size,
            timeout_s=settings.timeout_s,
        )
    except ValueError as exc:  # the schema: PostgresStore checks it before connecting
        raise CommandError(f"{SCHEMA_ENV}: {exc}") from None
    except psycopg.ProgrammingError as exc:  # libpq could not parse the value
        raise CommandError(
            f"{STORE_ENV}: not a valid PostgreSQL URL or conninfo: {_hide(exc, secrets)}"
        ) from None
    except psycopg.Error as exc:
        raise CommandError(
            f"{STORE_ENV}: could not open the PostgreSQL store: {_hide(exc, secrets)}"
        ) from None


def _check_form(value: str) -> None:
    """Refuse a value that is neither a PostgreSQL URL nor a conninfo, naming only its
    scheme (the part before ``://`` holds no password)."""
    if value.startswith(_SCHEMES):
        return
    scheme, sep, _ = value.partition("://")
    if sep:
        raise CommandError(
            f"{STORE_ENV}: a {scheme}:// URL is not a store tooldeck knows; give a "
            "postgresql:// URL or a libpq conninfo ('host=db dbname=tooldeck'), or unset "
            "it for the Location's SQLite database"
        )
    if "=" not in value:
        raise CommandError(
            f"{STORE_ENV}: expected a postgresql:// URL or a libpq conninfo "
            "('host=db dbname=tooldeck'), or unset it for the Location's SQLite database"
        )


_CONNINFO_PASSWORD = re.compile(r"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")


def _secrets(value: str) -> set[str]:
    """The password as it may appear in a message: raw, quoted and percent-decoded."""
    found: set[str] = set()
    if value.startswith(_SCHEMES):
        try:
            parts = urlsplit(value)
        except ValueError:  # libpq reports the malformed URL; the regex below still looks
            parts = None
        if parts is not None and parts.password:
            found.update({parts.password, unquote(parts.password)})
        for part in parts.query.split("&") if parts is not None else ():
            key, _, given = part.partition("=")
            if key == "password" and given:
                found.update({given, unquote(given)})
    for match in _CONNINFO_PASSWORD.finditer(value):
        given = match.group(1)
        found.update({given, given.strip("'")})
    return {secret for secret in found if secret}


def _hide(exc: BaseException, secrets: set[str]) -> str:
    """``exc``'s first lines, with every form of the password replaced by ``***``."""
    text = " ".join(line.strip() for line in str(exc).strip().splitlines())
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text
