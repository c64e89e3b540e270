"""What keeping the rate limits in PostgreSQL adds to one request (TABANE_RATE_SHARED).

Over a fresh embedded store: the per-process limiter (the baseline, same run) against the
shared one — a light request's charge (`admit`: one upsert on the UNLOGGED bucket table) and a
heavy request's charge, slot and release (advisory locks on a pooled connection) — and, for the
choice the shared limiter made, the same slot kept as a counter row of an UNLOGGED table (one
conditional UPDATE to take, one to give back; it would need a lease to free a dead process's
slot). Then a light HTTP route end to end through uvicorn with each limiter. Medians in µs.

    python bench/shared_limits.py --rounds 2000
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)
import httpx
from sqlalchemy import text

from tabane.api.app import create_app
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.api.ratelimit_shared import SharedRateLimiter
from tabane.config import Settings
from tabane.service import Tabane

LIMITS = RateLimits(rps=1e6, burst=1_000_000, heavy=4, total=8)  # never refuses: the cost alone


def _median_us(call: Callable[[], object], rounds: int) -> float:
    took = []
    for _ in range(rounds):
        began = time.perf_counter()
        call()
        took.append(time.perf_counter() - began)
    return 1e6 * statistics.median(took)


def _heavy(limiter: RateLimiter, key: str) -> Callable[[], None]:
    def run() -> None:
        limiter.admit(key)
        limiter.acquire_heavy(key)
        limiter.release_heavy(key)

    return run


def _row_slot(svc: Tabane) -> Callable[[], None]:
    """The alternative: a slot as a counter row, taken and given back by two UPDATEs."""
    engine = svc.store.owner.execution_options(isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("CREATE UNLOGGED TABLE IF NOT EXISTS bench_slots (k text primary key,"
                          " n int not null)"))  # fmt: skip
        conn.execute(text("INSERT INTO bench_slots VALUES ('k', 0) ON CONFLICT DO NOTHING"))

    def run() -> None:
        with engine.connect() as conn:
            took = conn.execute(text("UPDATE bench_slots SET n = n + 1 WHERE k = 'k' AND n < 4"
                                     " RETURNING n")).first()  # fmt: skip
            assert took is not None
        with engine.connect() as conn:
            conn.execute(text("UPDATE bench_slots SET n = n - 1 WHERE k = 'k'"))

    return run


def _http_us(svc: Tabane, limiter: RateLimiter, rounds: int) -> float:
    import sys

    sys.path.insert(0, str(_env.REPO / "tests"))
    from helpers import serve  # tests/helpers.py: uvicorn in a thread on a free port

    local = svc.local_user()
    with serve(create_app(svc, lambda r: local, limiter=limiter)) as url, httpx.Client() as http:
        return _median_us(lambda: http.get(f"{url}/contexts").raise_for_status(), rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    opts = parser.parse_args()
    info = _env.describe()
    with tempfile.TemporaryDirectory(prefix="tabane-limits-") as tmp:
        settings = Settings(home=Path(tmp), embedder="none", worker="off", pg_idle_seconds=0)
        with Tabane.open(settings) as svc:
            local, shared = RateLimiter(LIMITS), SharedRateLimiter(LIMITS, svc.store)
            rows: list[tuple[str, float, float]] = []
            steps: list[tuple[str, Callable[[RateLimiter], Callable[[], object]]]] = [
                ("light: admit", lambda lim: lambda: lim.admit("key:a")),
                ("heavy: admit + slot + release", lambda lim: _heavy(lim, "key:b")),
            ]
            for name, make in steps:
                base = _median_us(make(local), opts.rounds)
                rows.append((name, base, _median_us(make(shared), opts.rounds)))
            row_slot = _median_us(_row_slot(svc), opts.rounds)
            slot_only = _median_us(
                lambda: (shared.acquire_heavy("key:c"), shared.release_heavy("key:c")),
                opts.rounds,
            )
            http = [_http_us(svc, lim, opts.rounds // 4) for lim in (local, shared)]
            shared.close()
    print(_env.header(info))
    print(f"{opts.rounds} rounds each; medians")
    print("| step | per process µs | shared µs | added µs |")
    print("|---|---|---|---|")
    for name, base, value in rows:
        print(f"| {name} | {base:.0f} | {value:.0f} | {value - base:.0f} |")
    print(f"| GET /contexts over HTTP | {http[0]:.0f} | {http[1]:.0f} | {http[1] - http[0]:.0f} |")
    print(f"\nheavy slot, take + give back: advisory locks {slot_only:.0f} µs, "
          f"counter row of an UNLOGGED table {row_slot:.0f} µs")  # fmt: skip


if __name__ == "__main__":
    main()
