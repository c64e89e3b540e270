"""Open the store: start or reach PostgreSQL, migrate, and hand out sessions under RLS.

Two engines: the owner's (migrations and the reference tables: users, scopes, grants) and the
application's, which connects as a role that cannot bypass row-level security. Every application
transaction sets the caller's read and write scope sets with `SET LOCAL` first, so a pooled
connection never carries one caller's authority into another's transaction.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Engine, Table, create_engine, event, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from sqlalchemy.orm import Session

from tabane.config import Settings
from tabane.errors import InvalidInput, Issue, StoreBusy, StoreUnavailable
from tabane.storage import embedded, guard, keeper, migrate
from tabane.storage.holders import Hold
from tabane.storage.rls import APP_ROLE
from tabane.types import Principal

log = logging.getLogger(__name__)


# Connection exceptions (class 08) and the server shutting down or still starting: the database
# went away, not the statement. A refused connection carries no SQLSTATE at all.
GONE = ("57P01", "57P02", "57P03")


def _gone(exc: OperationalError) -> bool:
    state = getattr(exc.orig, "sqlstate", None)
    return state is None or state.startswith("08") or state in GONE


def _conflict(exc: OperationalError) -> StoreBusy | None:
    """A deadlock or serialization failure as `store_busy` (retry); None for anything else."""
    if getattr(exc.orig, "sqlstate", None) not in CONFLICTS:
        return None
    return StoreBusy(
        "a concurrent write conflicted with this one; nothing written, retry",
        issues=[Issue("store", "deadlock or serialization failure")],
    )


def array_literal(values: frozenset[str] | tuple[str, ...]) -> str:
    """A PostgreSQL text[] literal with every element quoted."""
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in sorted(values))
    return "{" + ",".join(quoted) + "}"


T = TypeVar("T")

# Reads run beside a caller's own at once, across every caller of one store (threads mostly wait
# on PostgreSQL, which works on the two connections in parallel).
BESIDE_THREADS = 8
CONFLICTS = ("40P01", "40001")  # deadlock detected, serialization failure: retrying may succeed


class Beside:
    """Runs a read in a second transaction of the same principal, on another pooled connection
    in a worker thread, so that it overlaps the caller's own statements: PostgreSQL works on
    both at once. The second transaction has its own snapshot, as each statement of a READ
    COMMITTED transaction already has; the same row-level security applies."""

    def __init__(self, store: Store, principal: Principal) -> None:
        self._store = store
        self._principal = principal

    def submit(self, read: Callable[[Session], T]) -> Future[T]:
        return self._store.beside_pool.submit(self._run, read)

    def _run(self, read: Callable[[Session], T]) -> T:
        with self._store.session(self._principal) as session:
            return read(session)


@dataclass
class Store:
    owner: Engine
    app: Engine
    embedded_home: Path | None = None
    shared_buffers_mb: int = 0  # the embedded server's tuning, for a restart
    idle_seconds: float = 0.0  # how long the embedded server outlives its last holder
    hold: Hold | None = None  # this process's hold on the embedded server (storage/holders.py)
    beside_pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(BESIDE_THREADS, "tabane-beside")
    )
    _revive_lock: threading.Lock = field(default_factory=threading.Lock)

    def beside(self, principal: Principal) -> Beside:
        """A runner of reads beside `principal`'s own transaction (see `Beside`)."""
        return Beside(self, principal)

    @contextmanager
    def session(self, principal: Principal, *, snapshot: bool = False) -> Iterator[Session]:
        """One transaction acting for `principal`; commits on success, rolls back on error. A
        value PostgreSQL cannot take (`unstorable`) rolls it back as bad input, never a 500; a
        deadlock with a concurrent write rolls it back as `store_busy` (retry). With `snapshot`
        every statement of the transaction reads the same snapshot (REPEATABLE READ): a read
        of many statements, as an export, sees no write that committed meanwhile."""
        bind = (
            self.app.execution_options(isolation_level="REPEATABLE READ") if snapshot else self.app
        )
        try:
            with Session(bind, expire_on_commit=False) as session, session.begin():
                first: list[ColumnElement[Any]] = [
                    func.set_config("tabane.read_scopes", array_literal(principal.read), True),
                    func.set_config("tabane.write_scopes", array_literal(principal.write), True),
                ]
                user = principal.user_id > 0  # a user, not a job (storage/guard.py)
                if user:
                    first.append(guard.hold(principal.user_id))
                row = session.execute(select(*first)).one()
                if user:
                    guard.check(str(row[-1]), principal.name)
                yield session
        except (DataError, UnicodeEncodeError) as exc:
            problem = unstorable(exc)
            if problem is None:
                raise
            raise InvalidInput(
                f"a value PostgreSQL cannot take: {problem}; nothing written",
                issues=[Issue("value", problem)],
            ) from None
        except OperationalError as exc:
            raise self._failed(exc) from None

    @contextmanager
    def unscoped(self) -> Iterator[Session]:
        """An application transaction with no scopes: it sees only rows scoped exactly {public}
        and can write nothing."""
        with Session(self.app, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def admin(self) -> Iterator[Session]:
        """One owner transaction, for the reference tables (users, scopes, grants) only; a
        deadlock with a concurrent write rolls it back as `store_busy` (retry)."""
        try:
            with Session(self.owner, expire_on_commit=False) as session, session.begin():
                yield session
        except OperationalError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OperationalError) -> Exception:
        """A failed transaction's error: `store_busy` for a conflict, `store_unavailable` when
        the database went away (an embedded server that died is started again first, so the
        next call finds it), else the error itself."""
        busy = _conflict(exc)
        if busy is not None:
            return busy
        if not _gone(exc):
            return exc
        with self._revive_lock:
            try:
                if self.embedded_home is not None:
                    embedded.revive(self.embedded_home, self.shared_buffers_mb)
                    keeper.ensure(self.embedded_home, self.idle_seconds)  # it left with the server
                self.app.dispose()  # the pools' connections to the server that went away
                self.owner.dispose()
            except Exception:
                log.exception("the database went away and could not be started again")
        reason = (str(exc.orig).strip().splitlines() or ["no reason given"])[0]
        return StoreUnavailable(
            f"the database connection was lost ({reason}); retry the call",
            issues=[Issue("store", "the database went away")],
            written="nothing, unless the server went away during the commit itself",
        )

    def vacuum(self, tables: Sequence[Table]) -> bool:
        """VACUUM `tables` with index cleanup as the owner, outside a transaction; False when
        PostgreSQL refused (logged: the caller's committed work stands)."""
        quote = self.owner.dialect.identifier_preparer.format_table
        try:
            with self.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text(f"VACUUM (INDEX_CLEANUP ON) {', '.join(map(quote, tables))}"))
        except DBAPIError:
            log.warning("VACUUM of %d tables failed", len(tables), exc_info=True)
            return False
        return True

    def close(self) -> None:
        """Close the pools and let go of the embedded server: with no idle time, the last
        process out stops it; otherwise its keeper does once it has been idle that long."""
        self.beside_pool.shutdown(wait=False, cancel_futures=True)
        self.app.dispose()
        self.owner.dispose()
        if self.hold is not None:
            self.hold.release()
            self.hold = None
            if self.embedded_home is not None and self.idle_seconds <= 0:
                keeper.stop_if_unheld(self.embedded_home)


def unstorable(exc: BaseException) -> str | None:
    """What made PostgreSQL (or its driver) refuse a value, when that is the input's fault: a
    NUL character or a lone surrogate in a text, a number out of its column's range. The
    surfaces refuse these with their field first; this is the net under every other caller."""
    if isinstance(exc, UnicodeEncodeError):
        return "a text is not valid Unicode (a lone surrogate)"
    orig = getattr(exc, "orig", None)
    if "NUL (0x00)" in str(orig):
        return "a text contains a NUL character"
    if getattr(orig, "sqlstate", None) == "22003":
        return "a number is out of range"
    return None


def open_store(settings: Settings, *, run_migrations: bool = True) -> Store:
    """Start the embedded server (or reach TABANE_DATABASE_URL), migrate, and check the app role."""
    hold: Hold | None = None
    if settings.database_url is None:
        owner, app, hold = _open_embedded(settings, run_migrations)
    else:
        owner = _engine(settings.database_url)
        try:
            _check_server(owner)
        except StoreUnavailable:
            owner.dispose()
            raise
        if run_migrations:
            migrate.upgrade(owner, login_role=False)
        if settings.app_database_url:
            app = _engine(settings.app_database_url)
        else:
            app = _engine(settings.database_url, set_role=APP_ROLE)
    try:
        _check_app_role(app)
    except StoreUnavailable:
        app.dispose()
        owner.dispose()
        if hold is not None:
            hold.release()
        raise
    home = settings.home if hold is not None else None
    return Store(owner, app, home, settings.pg_shared_buffers_mb, settings.pg_idle_seconds, hold)


def _open_embedded(settings: Settings, run_migrations: bool) -> tuple[Engine, Engine, Hold]:
    """Start or join the home's server and hold it (before the lock is let go, so its keeper
    never stops it under this process), its keeper running; make the database and migrate."""
    home = settings.home
    with embedded.init_lock(home):
        socket_dir = embedded.start(home, settings.pg_shared_buffers_mb)
        hold = Hold(home)
        try:
            keeper.ensure(home, settings.pg_idle_seconds)
            owner = _engine(embedded.url(socket_dir, "postgres"))
            if not _reachable(owner):
                _ensure_database(
                    embedded.url(socket_dir, "postgres", "postgres"), embedded.DATABASE
                )
            if run_migrations:
                migrate.upgrade(owner, login_role=True)
        except BaseException:
            hold.release()
            raise
    return owner, _engine(embedded.url(socket_dir, APP_ROLE)), hold


def _engine(url: str, *, set_role: str | None = None) -> Engine:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    engine = create_engine(parsed, pool_pre_ping=True, pool_size=5, max_overflow=10)

    @event.listens_for(engine, "connect")
    def _session(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
        """Every session in UTC: the years 1–9999 that inputs are checked against
        (types.parse_date) are UTC's; under another zone an instant near either end reads back
        as a year Python cannot hold. Then the application's role, when it has one."""
        with dbapi_conn.cursor() as cur:
            cur.execute("SET TIME ZONE 'UTC'")
            if set_role is not None:
                cur.execute(f"SET ROLE {set_role}")
        dbapi_conn.commit()

    return engine


# CREATE DATABASE of a name that exists: 42P04 once it has committed, 23505 on the catalog's
# unique index while another session's is committing
_DATABASE_EXISTS = ("42P04", "23505")


def _ensure_database(maintenance_url: str, name: str) -> None:
    """Create the database on first use, with the embedded server's settings (WAL kept small:
    the default lets the data directory grow to about 1 GiB of WAL during a large ingest).

    One that exists by the time it is created is the goal reached: a process killed while it
    created the database leaves that CREATE running in the server, which commits it after
    the next start found no database (seen in the first-start kill test)."""
    engine = create_engine(maintenance_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            try:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
            except DBAPIError as exc:
                if getattr(exc.orig, "sqlstate", None) not in _DATABASE_EXISTS:
                    raise
            conn.execute(text("ALTER SYSTEM SET max_wal_size = '256MB'"))
            conn.execute(text("ALTER SYSTEM SET min_wal_size = '64MB'"))
            conn.execute(select(func.pg_reload_conf()))
    finally:
        engine.dispose()


def _reachable(engine: Engine) -> bool:
    """False when the database does not exist yet (SQLSTATE 3D000)."""
    try:
        with engine.connect():
            return True
    except OperationalError as exc:
        # psycopg reports a refused connection without a SQLSTATE; the server's text is stable.
        if getattr(exc.orig, "sqlstate", None) == "3D000" or "does not exist" in str(exc.orig):
            engine.dispose()
            return False
        raise StoreUnavailable(f"cannot connect to the embedded PostgreSQL: {exc.orig}") from exc


def _check_server(owner: Engine) -> None:
    """An external server must be PostgreSQL 15 or newer and offer pgvector."""
    try:
        with owner.connect() as conn:
            version = int(conn.execute(text("SHOW server_version_num")).scalar_one())
            vector = conn.execute(
                text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
            ).first()
    except OperationalError as exc:
        raise StoreUnavailable(f"cannot connect to PostgreSQL: {exc.orig}") from exc
    if version < 150000:
        raise StoreUnavailable(f"PostgreSQL 15 or newer is needed; this server is {version}")
    if vector is None:
        raise StoreUnavailable("the pgvector extension (`vector`) is not available on this server")


def _check_app_role(app: Engine) -> None:
    """Refuse to run if the application role could see past row-level security."""
    try:
        with app.connect() as conn:
            row = conn.execute(
                text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
            ).one()
    except OperationalError as exc:
        raise StoreUnavailable(f"cannot connect to PostgreSQL: {exc.orig}") from exc
    if row.rolsuper or row.rolbypassrls:
        raise StoreUnavailable(
            "the application role can bypass row-level security; set TABANE_APP_DATABASE_URL "
            f"to a role without SUPERUSER or BYPASSRLS (for example a member of {APP_ROLE})"
        )
