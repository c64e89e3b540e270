"""Alembic migrations, applied at start-up and by `tabane migrate`, under an advisory lock.

Alembic is imported only when the database is not at HEAD: an up-to-date store opens without it
(it costs about 0.3 s of every CLI command otherwise; docs/journal/benchmarks.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, column, func, inspect, select, table, text

from tabane.storage.rls import APP_ROLE

if TYPE_CHECKING:
    from alembic.config import Config

HEAD = "0035"  # the newest migration; a test checks it against the scripts
_LOCK_KEY = 0x7A6A_6E65  # advisory lock id shared by every tabane process migrating a database
_VERSION = table("alembic_version", column("version_num"))


def config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    return cfg


def head() -> str | None:
    """The head revision according to the migration scripts (imports Alembic)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config()).get_current_head()


def _revision(conn: Connection) -> str | None:
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(select(_VERSION.c.version_num)).scalar()


def revision(conn: Connection) -> str | None:
    """The revision a connection's database is at (None: not migrated)."""
    return _revision(conn)


def current(owner: Engine) -> str | None:
    with owner.connect() as conn:
        return _revision(conn)


def upgrade(owner: Engine, *, login_role: bool, target: str = "head") -> None:
    """Bring the database to `target`; a second process waits for the first."""
    with owner.begin() as conn:
        if target == "head" and _revision(conn) == HEAD:
            return
        conn.execute(select(func.pg_advisory_xact_lock(_LOCK_KEY)))
        if _revision(conn) != HEAD or target != "head":
            from alembic import command

            cfg = config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, target)
        if login_role:
            conn.execute(text(f"ALTER ROLE {APP_ROLE} LOGIN"))
