"""The paragraph vectors' HNSW indexes, set aside for a bulk load and built again after it.

Inserting a vector into an HNSW index (`ef_construction` 200) costs 10–25× writing its row;
building the index over the same vectors costs 3–4× less per vector than inserting them one by
one (decision 0033, bench/vector_ab.py). So a bulk load drops the width's index, writes the
vectors with no graph to update, and builds the index again once the embedding jobs are done.

Correctness meanwhile: the index is an access path, never an answer. With it gone (or while it
is built, or left invalid by a crash) the vector lane and recall read the same rows by an exact
scan (through the `context_id` index, then every vector of the context): slower, the same
policies, the same results or better. Both DDL statements are `CONCURRENTLY` (no reader or writer
is blocked), made outside a transaction by the owner, and one process at a time (an advisory lock
held by the session that runs them); a build killed part-way leaves an invalid index, which the
next `rebuild` drops and builds again.

The definitions are the baseline migration's (0036): m 16, ef_construction 200, one partial
index per width.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

from sqlalchemy import Connection, Engine, text

log = logging.getLogger("tabane.hnsw")

WIDTHS = (384, 512, 768, 1024, 1536)  # the widths the baseline indexes (per-width partial)
LOCK = 0x74616261686E7377  # the advisory lock of index maintenance ("tabahnsw")
# The build's memory: pgvector builds the graph in memory while it fits (then ~5x slower on
# disk); ~2.5 KiB a 512-d vector. At most an eighth of the machine's memory, at least the default.
BUILD_MEMORY_MB = 1024


def name(dim: int) -> str:
    return f"ix_paragraph_vectors_hnsw_{dim}"


def definition(dim: int) -> str:
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name(dim)} ON paragraph_vectors "
        f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) "
        f"WITH (m = 16, ef_construction = 200) WHERE dim = {dim}"
    )


def states(conn: Connection) -> dict[int, str]:
    """Width → `valid`, `invalid` (a build in progress, or one killed part-way) or `missing`."""
    rows = conn.execute(
        text(
            "SELECT c.relname, i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid"
            " WHERE c.relname LIKE 'ix_paragraph_vectors_hnsw_%'"
        )
    )
    found = {str(n): bool(v) for n, v in rows}
    return {
        d: ("missing" if name(d) not in found else "valid" if found[name(d)] else "invalid")
        for d in WIDTHS
    }


def suspend(owner: Engine, dim: int) -> bool:
    """Drop the width's index for a bulk load (readers scan exactly meanwhile); False when
    another process maintains the indexes now, or the width has none to drop."""
    if dim not in WIDTHS:
        return False
    with _locked(owner) as conn:
        if conn is None or states(conn)[dim] == "missing":
            return False
        conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name(dim)}"))
        log.info("HNSW index of width %d set aside for a bulk load", dim)
        return True


def rebuild(owner: Engine, noted: Callable[[int], None] | None = None) -> list[int]:
    """Build every width's index that is missing or invalid (an invalid one is dropped first);
    the widths built. Nothing when another process maintains the indexes now. `noted` is told
    the building session's backend pid first (so another thread can cancel the build)."""
    built: list[int] = []
    with _locked(owner) as conn:
        if conn is None:
            return built
        if noted is not None:
            noted(int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one()))
        for dim, state in states(conn).items():
            if state == "valid":
                continue
            if state == "invalid":
                conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name(dim)}"))
            started = time.monotonic()
            conn.execute(text(definition(dim)))
            log.info("HNSW index of width %d built in %.1f s", dim, time.monotonic() - started)
            built.append(dim)
    return built


class _locked:
    """An AUTOCOMMIT owner connection holding the maintenance lock, or None when another
    session holds it (the lock goes with the session, so a killed process frees it)."""

    def __init__(self, owner: Engine) -> None:
        self.owner = owner
        self.conn: Connection | None = None

    def __enter__(self) -> Connection | None:
        conn = self.owner.connect().execution_options(isolation_level="AUTOCOMMIT")
        if not conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK}).scalar():
            conn.close()
            return None
        memory = min(BUILD_MEMORY_MB, _machine_mb() // 8)
        conn.execute(text(f"SET maintenance_work_mem = '{max(64, memory)}MB'"))
        self.conn = conn
        return conn

    def __exit__(self, *exc: object) -> None:
        if self.conn is None:
            return
        try:
            self.conn.execute(text("RESET maintenance_work_mem"))
            self.conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK})
        except Exception:  # a pooled session must not keep the lock: end it instead
            self.conn.invalidate()
        finally:
            self.conn.close()


def _machine_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError):
        return 512


def cancel(owner: Engine, pid: int) -> bool:
    """Cancel the statement of the building session `pid` (its index is left invalid: readers
    scan exactly, the next `rebuild` drops it and builds again); True when one was signalled."""
    held = "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"  # still building
    with owner.connect() as conn:
        return bool(
            conn.execute(
                text(f"SELECT pg_cancel_backend(:p) WHERE :p IN ({held})"), {"p": pid}
            ).scalar()
        )
