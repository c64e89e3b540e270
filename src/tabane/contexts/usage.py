"""Usage counters off a read's hot path: `Tally` counts the reads and misses of a process per
user and context and writes them (`contexts.bump_many`) at most once per interval for each pair.

A write turns a read-only transaction into one whose commit waits for the WAL flush: on every
search that was one more statement and a flush (bench/search_overhead.py). The first read
of a pair is written at once and later ones ride on the pair's first read after the interval;
the facade writes a user's own counts before it shows them, and all of them when it closes. So
a reader sees their own reads at once and another user's within the interval
(`TABANE_USAGE_SECONDS`; 0 writes every read).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from tabane.contexts.contexts import bump_many
from tabane.principal import Principal


@dataclass
class _Pending:
    reads: int = 0
    misses: int = 0
    written: float = float("-inf")  # when this pair was last written (the clock's time)


@dataclass
class Tally:
    interval: float
    clock: Callable[[], float] = time.monotonic
    _pairs: dict[tuple[int, int], _Pending] = field(default_factory=dict)
    _users: dict[int, Principal] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, session: Session, user: Principal, context_id: int, *, misses: int = 0) -> None:
        """One read of `context_id` by `user` (a miss when it found nothing), written in
        `session` when the pair is due."""
        now = self.clock()
        with self._lock:
            pair = self._pairs.setdefault((user.user_id, context_id), _Pending())
            pair.reads, pair.misses = pair.reads + 1, pair.misses + misses
            self._users[user.user_id] = user
            if now - pair.written < self.interval:
                return
            due = [(context_id, pair.reads, pair.misses, 0)]
            pair.reads = pair.misses = 0
            pair.written = now
        bump_many(session, due)

    def write(self, session: Session, user_id: int) -> None:
        """Write every count of `user_id` not written yet (in `session`, that user's own)."""
        bump_many(session, self._take(user_id))

    def users(self) -> list[Principal]:
        """The users with counts not written yet."""
        with self._lock:
            waiting = {u for (u, _), p in self._pairs.items() if p.reads}
            return [self._users[u] for u in sorted(waiting)]

    def _take(self, user_id: int) -> list[tuple[int, int, int, int]]:
        with self._lock:
            out = []
            for (u, context_id), pair in self._pairs.items():
                if u == user_id and pair.reads:
                    out.append((context_id, pair.reads, pair.misses, 0))
                    pair.reads = pair.misses = 0
            return out
