"""Rate limits kept in PostgreSQL, so that every API process of one store shares them
(api/ratelimit_shared.py uses these; api/ratelimit.py keeps them per process).

- A token bucket per API key or user is one row of the UNLOGGED table `tabane_limits.buckets`,
  refilled and charged by one atomic upsert per request (the row lock serialises two processes
  charging the same key; the server's clock is the one clock). UNLOGGED: no WAL, nothing
  replicated; a crash of the server empties it, which gives every caller a full bucket.
- A heavy-operation slot is a session-level advisory lock held on a connection of its own for
  the length of the request: one of `cap` locks per key, one of `total` for the whole store.
  A process that dies closes its connections, and PostgreSQL frees their locks at once — no
  lease to expire, nothing to sweep.

The table is made on first use by the owner (its own schema, so nothing that reflects the
public schema sees it); it is defined here so that a migration can create it instead (the same
`BUCKETS` table: `BUCKETS.create(conn)`), numbered at merge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Engine,
    Float,
    MetaData,
    Table,
    Text,
    case,
    cast,
    column,
    create_engine,
    func,
    select,
    table,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.schema import CreateSchema
from sqlalchemy.sql.selectable import ScalarSelect

from tabane.errors import Issue, Overloaded, StoreUnavailable

SCHEMA = "tabane_limits"
LIMITS = MetaData(schema=SCHEMA)
BUCKETS = Table(
    "buckets",
    LIMITS,
    Column("key", Text, primary_key=True),  # `key:<prefix>` or `user:<id>` (principal_key)
    Column("tokens", Float, nullable=False),
    Column("stamp", DateTime(timezone=True), nullable=False),  # when `tokens` was counted
    Column("ok", Boolean, nullable=False),  # whether the last charge took a token
    prefixes=["UNLOGGED"],
)
# Advisory lock keys (the one-bigint form): "rl" in the top 16 bits, a hash of the key in the
# next 32, the slot in the low 16. tabane's other locks use other top bits (storage/guard.py,
# contexts/groups.py, migrate.py) or the two-int form, whose key space is separate.
_NAMESPACE = 0x726C << 48
MAX_SLOTS = 0xFFFF
TOTAL_KEY = "tabane:heavy-total"  # the store-wide slots' "key"
_MADE_LOCK = 0x726C_0000_0000_FFFF  # serialises making the table (two processes at once)
_SLACK = 1e-9  # float slack: a whole token earned is a token


def ensure_table(owner: Engine) -> None:
    """Make the schema and the UNLOGGED table once (idempotent; safe from many processes)."""
    # one transaction (not the limiter's autocommit), so that the lock holds until the commit
    with owner.execution_options(isolation_level="READ COMMITTED").begin() as conn:
        conn.execute(select(func.pg_advisory_xact_lock(_MADE_LOCK)))
        conn.execute(CreateSchema(SCHEMA, if_not_exists=True))
        BUCKETS.create(conn, checkfirst=True)


def take_token(conn: Connection, key: str, rps: float, burst: int) -> tuple[bool, float]:
    """Refill `key`'s bucket to now and take one token when a whole one is there, in one
    statement; (taken, tokens left). A new key starts with a full bucket."""
    b = BUCKETS.c
    now = func.now()
    elapsed = cast(func.extract("epoch", now - b.stamp), Float)
    refilled = func.least(float(burst), b.tokens + func.greatest(0.0, elapsed) * rps)
    whole = refilled >= 1 - _SLACK
    new = insert(BUCKETS).values(key=key, tokens=float(burst) - 1, stamp=now, ok=True)
    upsert = new.on_conflict_do_update(
        index_elements=[b.key],
        set_={
            "tokens": case((whole, func.greatest(0.0, refilled - 1)), else_=refilled),
            "stamp": now,
            "ok": whole,
        },
    ).returning(b.ok, b.tokens)
    row = conn.execute(upsert).one()
    return bool(row.ok), float(row.tokens)


def forget_full(conn: Connection, rps: float, burst: int) -> int:
    """Delete the buckets that would be full by now (a new one is the same); how many."""
    b = BUCKETS.c
    full_after = float(burst) / rps if rps > 0 else 0.0
    age = cast(func.extract("epoch", func.now() - b.stamp), Float)
    done = conn.execute(BUCKETS.delete().where(age >= full_after))
    return int(done.rowcount or 0)


def lock_base(key: str) -> int:
    """The first advisory lock key of `key`'s slots."""
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big")
    return _NAMESPACE | digest << 16


def _first_free(key: str, slots: int) -> ScalarSelect[int]:
    """The first of `key`'s `slots` advisory locks this statement could take (None: all held)."""
    base = lock_base(key)
    last = base + min(slots, MAX_SLOTS) - 1
    series = func.generate_series(base, last).table_valued("n").render_derived(name="slot")
    return (
        select(series.c.n).where(func.pg_try_advisory_lock(series.c.n)).limit(1).scalar_subquery()
    )


def try_slots(conn: Connection, wanted: list[tuple[str, int]]) -> list[int | None]:
    """For each (key, slots) of `wanted`, take the first free one of the key's advisory locks on
    `conn` — all in one statement; each lock key taken, or None where all were held (by any
    session of any process)."""
    row = conn.execute(select(*(_first_free(key, slots) for key, slots in wanted))).one()
    return list(row)


def free_slots(conn: Connection, locks: list[int]) -> None:
    if locks:
        conn.execute(select(*(func.pg_advisory_unlock(lock) for lock in locks)))


def held(conn: Connection, key: str, slots: int) -> int:
    """How many of `key`'s slots are held now, by every session of the store (pg_locks shows a
    one-bigint advisory lock as its high and low 32 bits, objsubid 1)."""
    base = lock_base(key)
    locks = table("pg_locks", column("locktype"), column("classid"), column("objid"),
                  column("objsubid"), column("granted"))  # fmt: skip
    low = base & 0xFFFF_FFFF  # the slots share the high 32 bits (a slot is the low 16)
    query = select(func.count()).where(
        locks.c.locktype == "advisory",
        locks.c.objsubid == 1,
        locks.c.granted,
        cast(locks.c.classid, BigInteger) == base >> 32,
        cast(locks.c.objid, BigInteger).between(low, low + min(slots, MAX_SLOTS) - 1),
    )
    return int(conn.execute(query).scalar_one())


@dataclass
class Hold:
    """The advisory locks one heavy request holds, and the connection that holds them."""

    conn: Connection
    locks: list[int] = field(default_factory=list)

    def release(self) -> None:
        """Unlock and give the connection back; a connection that broke is dropped (its
        session ended, and its locks with it)."""
        try:
            free_slots(self.conn, self.locks)
        except DBAPIError:
            self.conn.invalidate()
        finally:
            self.conn.close()


# Connections of a limiter's pool kept open, and more opened at need: one per heavy request in
# flight (uvicorn runs up to 40 requests at once) plus the short charges.
POOL_SIZE, POOL_OVERFLOW = 4, 44


class LimitsPool:
    """A limiter's own connections to the store's server: autocommit (no transaction left
    open) and no pre-ping (it would double each charge's round trips). Every call maps the
    database's failures to tabane's errors: no connection free within `wait` seconds →
    `overloaded`; the database away → `store_unavailable`."""

    def __init__(self, owner: Engine, wait: float) -> None:
        self.wait = wait
        self._engine = create_engine(
            owner.url,
            isolation_level="AUTOCOMMIT",
            pool_size=POOL_SIZE,
            max_overflow=POOL_OVERFLOW,
            pool_timeout=wait,
        )

    def ensure_table(self) -> None:
        with self.guarded():
            ensure_table(self._engine)

    def charge(self, key: str, rps: float, burst: int, *, sweep: bool) -> tuple[bool, float]:
        """`take_token` (after `forget_full` when `sweep`)."""
        with self.guarded(), self._engine.connect() as conn:
            if sweep:
                forget_full(conn, rps, burst)
            return take_token(conn, key, rps, burst)

    def hold(self) -> Hold:
        """A connection of its own, to hold slots on."""
        with self.guarded():
            return Hold(self._engine.connect())

    def take(self, hold: Hold, wanted: list[tuple[str, int]]) -> list[int | None]:
        with self.guarded():
            return try_slots(hold.conn, wanted)

    def held(self, key: str, slots: int) -> int:
        with self.guarded(), self._engine.connect() as conn:
            return held(conn, key, slots)

    def close(self) -> None:
        self._engine.dispose()

    @contextmanager
    def guarded(self) -> Iterator[None]:
        try:
            yield
        except PoolTimeout:
            raise Overloaded(
                f"no connection of the rate limiter came free within {self.wait:g} s",
                retry_after=1,
                issues=[Issue("TABANE_RATE_SHARED", "the limiter's connections are all in use")],
            ) from None
        except DBAPIError as exc:
            raise StoreUnavailable(
                f"the rate limits kept in PostgreSQL could not be read: {exc.orig}",
                issues=[Issue("TABANE_RATE_SHARED", "the database did not answer the limiter")],
            ) from None
