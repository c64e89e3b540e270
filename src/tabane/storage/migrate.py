"""Alembic migrations, applied at start-up and by `tabane migrate`, under an advisory lock.

Alembic is imported only when the database is not at HEAD: an up-to-date store opens without it
(it costs about 0.3 s of every CLI command otherwise; docs/journal/benchmarks.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, column, func, inspect, select, table, text

from tabane.errors import StoreTooOld
from tabane.storage.rls import APP_ROLE

if TYPE_CHECKING:
    from alembic.config import Config

HEAD = "0040"  # the newest migration; a test checks it against the scripts
# The 0.1 chain ended at 0035, whose schema the baseline (0036) builds in one step: a store at
# 0035 is stamped 0036; one at an older revision of that chain is refused (docs/guide.md).
SQUASHED = "0035"
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


def _from_squashed_chain(conn: Connection) -> None:
    """A store the squashed chain made: at its last revision it is the baseline's schema (a test
    upgrades a recorded one and compares); before it, it is refused."""
    found = _revision(conn)
    if found is None or not found.isdigit() or int(found) > int(SQUASHED):
        return
    if found != SQUASHED:
        raise StoreTooOld(
            f"this store's schema is at migration {found}, older than {SQUASHED}, the oldest "
            f"this tabane upgrades: open it once with a tabane whose migrations end at {SQUASHED}"
            " (which upgrades it), or export each context there with `tabane export CONTEXT`"
            " and `tabane import FILE` into a new store"
        )
    conn.execute(_VERSION.update().values(version_num="0036"))


def upgrade(owner: Engine, *, login_role: bool, target: str = "head") -> None:
    """Bring the database to `target`; a second process waits for the first."""
    with owner.begin() as conn:
        if target == "head" and _revision(conn) == HEAD:
            return
        conn.execute(select(func.pg_advisory_xact_lock(_LOCK_KEY)))
        _from_squashed_chain(conn)
        if _revision(conn) != HEAD or target != "head":
            from alembic import command

            cfg = config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, target)
        if login_role:
            conn.execute(text(f"ALTER ROLE {APP_ROLE} LOGIN"))
