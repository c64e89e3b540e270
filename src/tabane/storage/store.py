"""The open store: transactions under RLS, for a caller, a job or the owner (storage/opening.py
opens it).

Two engines: the owner's (migrations and the reference tables: users, scopes, grants) and the
application's, which connects as a role that cannot bypass row-level security. Every application
transaction sets the caller's read and write scope sets with `SET LOCAL` first, so a pooled
connection never carries one caller's authority into another's transaction. Under an HTTP
request's deadline, each transaction also sets its statement and lock timeouts to what is left of
it; a transaction that cannot get a pooled connection within a few seconds is refused as
`overloaded` rather than queued.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Connection, Engine, Table, func, select, text
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import (
    Session as Session,  # re-exported: the session's type, for layers without SQL
)

from tabane.errors import InvalidInput, Issue, Overloaded, StoreBusy, StoreUnavailable
from tabane.principal import Principal
from tabane.storage import embedded, guard, keeper
from tabane.storage.holders import Hold
from tabane.storage.interrupts import interrupt_under, invalidate
from tabane.storage.replica import READ_REPLICA, ReplicaSession

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


def _deadline() -> list[ColumnElement[Any]]:
    """The statement and lock timeouts of a transaction under a request's deadline: what is
    left of it (at least 1 ms; a deadline already past is refused before any statement)."""
    deadline = DEADLINE.get()
    if deadline is None:
        return []
    left = deadline - time.monotonic()
    if left <= 0:
        raise Overloaded(
            "the request ran past its deadline; nothing written",
            issues=[Issue("TABANE_REQUEST_SECONDS", "the deadline of one request ran out")],
        )
    ms = f"{max(1, int(left * 1000))}ms"
    return [
        func.set_config("statement_timeout", ms, True),
        func.set_config("lock_timeout", ms, True),
    ]


def _named() -> dict[str, str]:
    """The transaction's `application_name` when it runs for an HTTP request: `tabane
    req=<id>` (the id is checked by the surface: letters, digits and `._-`, at most 64)."""
    request = REQUEST_ID.get()
    return {} if request is None else {"application_name": f"{APP_NAME} req={request}"}


class Waiting:
    """How many transactions wait for a pooled connection now (the `/metrics` pool gauge)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def __enter__(self) -> None:
        with self._lock:
            self.count += 1

    def __exit__(self, *_: object) -> None:
        with self._lock:
            self.count -= 1


def _no_connection() -> Overloaded:
    return Overloaded(
        f"no database connection came free within {POOL_WAIT:g} s: the server is at capacity",
        issues=[Issue("store", f"all {POOL_SIZE + POOL_OVERFLOW} pooled connections in use")],
    )


def now(session: Session) -> datetime:
    """The server's clock as the transaction began (`now()`: one value for the whole snapshot)."""
    return session.execute(select(func.now())).scalar_one()


def array_literal(values: frozenset[str] | tuple[str, ...]) -> str:
    """A PostgreSQL text[] literal with every element quoted."""
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in sorted(values))
    return "{" + ",".join(quoted) + "}"


def _set(session: Session, settings: Mapping[str, str]) -> list[ColumnElement[Any]]:
    """`set_config` calls (local to the transaction) for the settings not yet in force in
    `session`'s transaction, which records them as in force."""
    done: dict[str, str] = session.info.setdefault(SETTINGS, {})
    todo = {k: v for k, v in settings.items() if done.get(k) != v}
    done.update(todo)
    return [func.set_config(k, v, True) for k, v in todo.items()]


def configure(session: Session, settings: Mapping[str, str]) -> None:
    """Set `settings` for the rest of the transaction — in no round trip at all when it opened
    with them (`Store.session(settings=...)`): one round trip per transaction, not one more per
    read that needs them (a search sent three, ~2.2 ms of 22; bench/search_overhead.py). Not
    inside a savepoint that may roll back: its settings would go with it."""
    calls = _set(session, settings)
    if calls:
        session.execute(select(*calls))


T = TypeVar("T")
# session.info's key for the transaction settings in force (the info dict lives as long as the
# session, which `Store.session` makes for one transaction)
SETTINGS = "tabane.settings"

# The monotonic time by which the current request's database work must end (set by the HTTP
# surface per request, api/deadline.py); None: no deadline (the CLI, the worker, the library).
DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)
# The current HTTP request's id (api/observe.py), set as PostgreSQL's `application_name` for the
# transactions of that request, so `pg_stat_activity` and the server's log name the request.
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
APP_NAME = "tabane"  # application_name outside a request; `tabane req=<id>` inside one
# Pooled connections per engine, and how long a transaction waits for one before it is refused
# (`overloaded`, 503 with Retry-After) instead of queueing: uvicorn runs up to 40 requests at
# once, a heavy one uses two connections (Beside), and PostgreSQL's default allows 100 in all.
POOL_SIZE, POOL_OVERFLOW, POOL_WAIT = 10, 20, 5.0
CANCELED = "57014"  # query_canceled: statement_timeout (the deadline) ran out

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
        context = contextvars.copy_context()  # the request's deadline holds there too
        return self._store.beside_pool.submit(context.run, self._run, read)

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
    waiting: Waiting = field(default_factory=lambda: Waiting())  # for a pooled connection
    read: Engine | None = None  # a replica's, for read-only routes (storage/replica.py)
    closers: list[Callable[[], None]] = field(default_factory=list)  # run first by close()

    def beside(self, principal: Principal) -> Beside:
        """A runner of reads beside `principal`'s own transaction (see `Beside`)."""
        return Beside(self, principal)

    @contextmanager
    def session(
        self,
        principal: Principal,
        *,
        snapshot: bool = False,
        settings: Mapping[str, str] | None = None,
    ) -> Iterator[Session]:
        """One transaction acting for `principal`; commits on success, rolls back on error. A
        value PostgreSQL cannot take (`unstorable`) rolls it back as bad input, never a 500; a
        deadlock with a concurrent write rolls it back as `store_busy` (retry). With `snapshot`
        every statement of the transaction reads the same snapshot (REPEATABLE READ): a read
        of many statements, as an export, sees no write that committed meanwhile. `settings`
        are set for the transaction in its first round trip, with the scopes (`configure`)."""
        bind = (
            self.app.execution_options(isolation_level="REPEATABLE READ") if snapshot else self.app
        )
        try:
            with self._new_session(bind, principal, snapshot) as session, session.begin():
                with self.waiting:  # the pool's checkout, before the first round trip
                    held = session.connection()  # (a replica's, under a read-only route)
                try:
                    _open(session, principal, _set(session, {**_named(), **(settings or {})}))
                    yield session
                except BaseException as exc:
                    # Ctrl-C or exit, itself or under an error raised while handling it (the
                    # driver's, leaving COPY): maybe mid-statement, where no rollback can be sent
                    stop = exc if not isinstance(exc, Exception) else interrupt_under(exc)
                    if stop is None:
                        raise
                    invalidate(session, held)
                    raise stop from None
        except (DataError, UnicodeEncodeError) as exc:
            problem = unstorable(exc)
            if problem is None:
                raise
            raise InvalidInput(
                f"a value PostgreSQL cannot take: {problem}; nothing written",
                issues=[Issue("value", problem)],
            ) from None
        except OperationalError as exc:
            stop = interrupt_under(exc)
            if stop is not None:  # Ctrl-C mid-commit: the rollback after it failed, not the store
                raise stop from None
            raise self._failed(exc) from None
        except PoolTimeout:
            raise _no_connection() from None

    def _new_session(self, bind: Engine, principal: Principal, snapshot: bool) -> Session:
        """A session on `bind`; under a read-only route with a replica (and no snapshot, which
        needs one server's), one that reads on the replica until it writes."""
        if self.read is None or snapshot or not READ_REPLICA.get():
            return Session(bind, expire_on_commit=False)

        def begin_primary(conn: Connection) -> None:
            # the scopes and settings in force on the replica's connection, here too
            done: dict[str, str] = session.info.get(SETTINGS, {})
            calls = [func.set_config(k, v, True) for k, v in done.items()]
            _open(conn, principal, calls)

        session = ReplicaSession(bind, self.read, begin_primary)
        return session

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
                configure(session, _named())
                yield session
        except OperationalError as exc:
            stop = interrupt_under(exc)
            if stop is not None:  # Ctrl-C mid-commit: the rollback after it failed, not the store
                raise stop from None
            raise self._failed(exc) from None
        except PoolTimeout:
            raise _no_connection() from None

    def _failed(self, exc: OperationalError) -> Exception:
        """A failed transaction's error: `store_busy` for a conflict, `store_unavailable` when
        the database went away (an embedded server that died is started again first, so the
        next call finds it), else the error itself."""
        busy = _conflict(exc)
        if busy is not None:
            return busy
        if getattr(exc.orig, "sqlstate", None) == CANCELED and DEADLINE.get() is not None:
            return Overloaded(
                "the request ran past its deadline and was stopped; nothing written",
                issues=[Issue("TABANE_REQUEST_SECONDS", "the deadline of one request ran out")],
            )
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
        while self.closers:  # what was opened over this store (a shared rate limiter's pool)
            self.closers.pop()()
        self.beside_pool.shutdown(wait=False, cancel_futures=True)
        self.app.dispose()
        self.owner.dispose()
        if self.read is not None:
            self.read.dispose()
        if self.hold is not None:
            self.hold.release()
            self.hold = None
            if self.embedded_home is not None and self.idle_seconds <= 0:
                keeper.stop_if_unheld(self.embedded_home)


def _open(
    on: Session | Connection, principal: Principal, settings: Sequence[ColumnElement[Any]]
) -> None:
    """A transaction's first round trip: the caller's scopes, the request's deadline, other
    `settings`, and the user guard (storage/guard.py)."""
    first: list[ColumnElement[Any]] = [
        func.set_config("tabane.read_scopes", array_literal(principal.read), True),
        func.set_config("tabane.write_scopes", array_literal(principal.write), True),
    ]
    first.extend(_deadline())
    first.extend(settings)
    user = principal.user_id > 0  # a user, not a job (storage/guard.py)
    if user:
        first.append(guard.hold(principal.user_id))
    row = on.execute(select(*first)).one()
    if user:
        guard.check(str(row[-1]), principal.name)


def unstorable(exc: BaseException) -> str | None:
    """What made PostgreSQL (or its driver) refuse a value, when that is the input's fault: a
    NUL character or a lone surrogate in a text, a number out of its column's range. The
    surfaces refuse these with their field first; this is the net under every other caller."""
    if isinstance(exc, UnicodeEncodeError):
        return "a text is not valid Unicode (a lone surrogate)"
    orig = getattr(exc, "orig", None)
    nul_in_copy = getattr(orig, "sqlstate", None) == "22021" and "0x00" in str(orig)
    if "NUL (0x00)" in str(orig) or nul_in_copy:  # the driver's refusal, or the server's (COPY)
        return "a text contains a NUL character"
    if getattr(orig, "sqlstate", None) == "22003":
        return "a number is out of range"
    return None
