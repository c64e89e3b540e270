"""Usage counters off a read's hot path: `Tally` counts the reads and misses of a process per
user and context and writes them (`contexts.bump`) at most once per interval for each pair.

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

from sqlalchemy import ARRAY, BigInteger, Integer, bindparam, func, literal, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.storage.schema import Context, ContextUsage
from tabane.types import Principal


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
            due = [(context_id, pair.reads, pair.misses)]
            pair.reads = pair.misses = 0
            pair.written = now
        _bump(session, due)

    def write(self, session: Session, user_id: int) -> None:
        """Write every count of `user_id` not written yet (in `session`, that user's own)."""
        _bump(session, self._take(user_id))

    def users(self) -> list[Principal]:
        """The users with counts not written yet."""
        with self._lock:
            waiting = {u for (u, _), p in self._pairs.items() if p.reads}
            return [self._users[u] for u in sorted(waiting)]

    def _take(self, user_id: int) -> list[tuple[int, int, int]]:
        with self._lock:
            out = []
            for (u, context_id), pair in self._pairs.items():
                if u == user_id and pair.reads:
                    out.append((context_id, pair.reads, pair.misses))
                    pair.reads = pair.misses = 0
            return out


def _bump(session: Session, counts: list[tuple[int, int, int]]) -> None:
    """Add (context id, reads, misses) to the counters in one statement, for the contexts that
    still exist and the session's user can still see (a count can outlive either)."""
    if not counts:
        return
    rows = (
        func.unnest(
            bindparam("usage_ids", [c for c, _, _ in counts], type_=ARRAY(Integer)),
            bindparam("usage_reads", [r for _, r, _ in counts], type_=ARRAY(BigInteger)),
            bindparam("usage_misses", [m for _, _, m in counts], type_=ARRAY(BigInteger)),
        )
        .table_valued("context_id", "reads", "misses")
        .render_derived(name="counts")
    )
    visible = (
        select(rows.c.context_id, rows.c.reads, rows.c.misses, literal(0), func.now())
        .select_from(rows)
        .join(Context, Context.id == rows.c.context_id)
    )
    stmt = insert(ContextUsage).from_select(
        ["context_id", "reads", "misses", "writes", "last_access"], visible
    )
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=[ContextUsage.context_id],
            set_={
                "reads": ContextUsage.reads + stmt.excluded.reads,
                "misses": ContextUsage.misses + stmt.excluded.misses,
                "last_access": func.now(),
            },
        )
    )
