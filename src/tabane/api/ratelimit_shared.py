"""Rate limits shared by every API process of one store, kept in PostgreSQL
(storage/shared_limits.py): the same limits and refusals as api/ratelimit.py's `RateLimiter`,
counted once for the whole service instead of once per process.

Which one an app gets is TABANE_RATE_SHARED's choice (`limiter_for`): `auto` shares them when
tabane runs against TABANE_DATABASE_URL (a service, where several processes are expected) and
keeps them per process on the embedded store (a laptop's one server process). What sharing costs
per request is measured by bench/shared_limits.py (docs/deploy.md).

A charge is one upsert on a connection of the limiter's own pool (storage/shared_limits.py's
`LimitsPool`); a heavy slot holds a connection of that pool for the length of the request,
because its advisory lock lives as long as the session that took it.
"""

from __future__ import annotations

import threading
import time

from tabane.api.ratelimit import (
    HEAVY_WAIT,
    RateLimiter,
    RateLimits,
    key_full,
    rate_refused,
    server_full,
)
from tabane.config import Settings
from tabane.storage.shared_limits import TOTAL_KEY, Hold, LimitsPool
from tabane.storage.store import Store

FORGET_EVERY = 10_000  # charges between two sweeps of the buckets that are full again
_POLL = (0.005, 0.05)  # first and longest pause between two tries for a store-wide slot


class SharedRateLimiter(RateLimiter):
    """`RateLimiter`'s limits over `store`'s PostgreSQL. `in_flight(key)` counts the key's heavy
    operations in every process of the store."""

    def __init__(self, limits: RateLimits, store: Store) -> None:
        super().__init__(limits)
        self._pool = LimitsPool(store.owner, HEAVY_WAIT)
        self._holds: dict[str, list[Hold]] = {}
        self._holds_lock = threading.Lock()
        self._charges = 0
        if limits.rps > 0:
            self._pool.ensure_table()

    def admit(self, key: str) -> None:
        rps, burst = self.limits.rps, self.limits.burst
        if rps <= 0:
            return
        self._charges += 1  # a lost increment only delays a sweep
        sweep = self._charges % FORGET_EVERY == 0
        taken, tokens = self._pool.charge(key, rps, burst, sweep=sweep)
        if not taken:
            raise rate_refused(self.limits, (1 - tokens) / rps)

    def acquire_heavy(self, key: str) -> bool:
        cap, total = self.limits.heavy, self.limits.total
        if cap <= 0 and total <= 0:
            return False
        hold = self._pool.hold()
        try:
            self._take(hold, key, cap, total)
        except BaseException:
            hold.release()
            raise
        with self._holds_lock:
            self._holds.setdefault(key, []).append(hold)
        return True

    def _take(self, hold: Hold, key: str, cap: int, total: int) -> None:
        """One of `key`'s `cap` slots and one of the store's `total`, in one statement a try;
        the store's waited for up to HEAVY_WAIT seconds (others' work fills them)."""
        wanted = [(key, cap)] if cap > 0 else []
        wanted += [(TOTAL_KEY, total)] if total > 0 else []
        deadline = time.monotonic() + HEAVY_WAIT
        pause = _POLL[0]
        while True:
            got = self._pool.take(hold, wanted)
            hold.locks.extend(lock for lock in got if lock is not None)
            if wanted[0][0] == key and cap > 0:
                if got[0] is None:
                    raise key_full(cap)  # the caller's release frees a store slot taken too
                wanted, got = wanted[1:], got[1:]
            if not wanted or got[0] is not None:
                return
            if time.monotonic() + pause > deadline:
                raise server_full(total)
            time.sleep(pause)
            pause = min(_POLL[1], pause * 2)

    def release_heavy(self, key: str) -> None:
        """Give back one of `key`'s slots held by this process (they are interchangeable)."""
        with self._holds_lock:
            holds = self._holds.get(key)
            if not holds:
                return
            hold = holds.pop()
            if not holds:
                del self._holds[key]
        hold.release()

    def in_flight(self, key: str) -> int:
        cap = self.limits.heavy
        return self._pool.held(key, cap) if cap > 0 else 0

    def close(self) -> None:
        """Give back every slot this process holds and close the limiter's connections."""
        with self._holds_lock:
            holds = [h for held in self._holds.values() for h in held]
            self._holds.clear()
        for hold in holds:
            hold.release()
        self._pool.close()


def shares(settings: Settings) -> bool:
    """Whether TABANE_RATE_SHARED keeps the limits in PostgreSQL for these settings."""
    if settings.rate_shared == "auto":
        return not settings.embedded
    return settings.rate_shared == "database"


def limiter_for(settings: Settings, store: Store) -> RateLimiter:
    """The limiter TABANE_RATE_SHARED chooses: per process, or shared through `store`'s server
    (closed with the store)."""
    limits = RateLimits.from_settings(settings)
    if not shares(settings):
        return RateLimiter(limits)
    shared = SharedRateLimiter(limits, store)
    store.closers.append(shared.close)
    return shared


__all__ = ["SharedRateLimiter", "limiter_for", "shares"]
