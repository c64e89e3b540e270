"""Open the store: start or reach PostgreSQL, migrate, check the application role, and build the
two engines (storage/store.py: the owner's for migrations and the reference tables, the
application's under row-level security)."""

from __future__ import annotations

import time

from sqlalchemy import Engine, create_engine, event, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from tabane.config import Settings
from tabane.errors import Issue, StoreUnavailable
from tabane.storage import embedded, keeper, migrate
from tabane.storage.holders import Hold
from tabane.storage.rls import APP_ROLE
from tabane.storage.store import POOL_OVERFLOW, POOL_SIZE, POOL_WAIT, Store


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
    store = Store(owner, app, home, settings.pg_shared_buffers_mb, settings.pg_idle_seconds, hold)
    if settings.read_database_url:
        try:
            store.read = _replica(settings)
        except StoreUnavailable:
            store.close()
            raise
    return store


REPLICA_CATCH_UP = 15.0  # seconds a replica may take to replay the role the primary just made


def _replica(settings: Settings) -> Engine:
    """The read replica's engine (TABANE_READ_DATABASE_URL): its own role when the application
    has one (TABANE_APP_DATABASE_URL), else `tabane_app` by SET ROLE, as the primary's; refused
    when it could bypass row-level security. A replica that cannot be reached stops the start."""
    assert settings.read_database_url is not None
    own_role = settings.app_database_url is not None
    read = _engine(settings.read_database_url, set_role=None if own_role else APP_ROLE)
    deadline = time.monotonic() + REPLICA_CATCH_UP
    while True:
        try:
            _check_app_role(read)
            return read
        except (StoreUnavailable, DBAPIError) as exc:
            # A standby made a moment ago may not have replayed the migrations yet (no
            # tabane_app role there): it catches up within seconds.
            read.dispose()
            if time.monotonic() > deadline:
                cause = exc.orig if isinstance(exc, DBAPIError) else exc
                raise StoreUnavailable(
                    f"the read replica (TABANE_READ_DATABASE_URL) cannot be used: {cause}",
                    issues=[Issue("TABANE_READ_DATABASE_URL", "unreachable or not caught up")],
                ) from None
            time.sleep(0.2)


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
    engine = create_engine(
        parsed,
        pool_pre_ping=True,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        pool_timeout=POOL_WAIT,
    )

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
