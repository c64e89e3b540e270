"""Alembic migrations, applied at start-up and by `tabane migrate`, under an advisory lock."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, func, select, text

from tabane.storage.rls import APP_ROLE

_LOCK_KEY = 0x7A6A_6E65  # advisory lock id shared by every tabane process migrating a database


def config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    return cfg


def head() -> str | None:
    return ScriptDirectory.from_config(config()).get_current_head()


def current(owner: Engine) -> str | None:
    with owner.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(owner: Engine, *, login_role: bool, target: str = "head") -> None:
    """Bring the database to `target`; a second process waits for the first."""
    cfg = config()
    with owner.begin() as conn:
        conn.execute(select(func.pg_advisory_xact_lock(_LOCK_KEY)))
        if MigrationContext.configure(conn).get_current_revision() != head() or target != "head":
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, target)
        if login_role:
            conn.execute(text(f"ALTER ROLE {APP_ROLE} LOGIN"))
