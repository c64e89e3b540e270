"""What a fair claim costs: `queue.claim` with parties and contexts taking turns (`after=Turns`,
the worker's way since issue 32) against the oldest-first claim (`after=None`, the baseline), in
the same run.

One fresh embedded store (temporary TABANE_HOME, worker off) with `--jobs` queued embedding jobs:
a bulk context of one user holding all but `--small` of them, queued first, and a small context
of another user after it.
Each timed claim runs in its own transaction, rolled back, so every claim sees the same queue.
Prints the median and p95 of each, their ratios, and which context each way claims first:
oldest first (the bulk), turns after the bulk (the small one), turns after the small one (the
bulk, the costlier turn: its oldest job is found among most of the queue).

    .venv/bin/python bench/claim_order.py [--jobs 100000] [--small 10] [--claims 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import _env  # bench/_env.py (the script's folder is on sys.path)
import _store


def _after(scopes: list[str], context: int) -> object:
    """The worker's record of having just run a job of `context`, written with `scopes`."""
    from tabane.jobs import turns

    owner = tuple(scopes)
    return turns.Turns(owner, {owner: context})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--claims", type=int, default=200)
    args = parser.parse_args()
    from sqlalchemy import insert, select, text

    from tabane.jobs import queue
    from tabane.storage.schema import Context, Job

    with _store.fresh_store("claims") as svc:
        user = svc.local_user()
        svc.add_user("other")
        other = svc.principal("other")
        svc.create_context(user, "bulk")
        svc.create_context(other, "small")
        with svc.store.admin() as session:
            ids = {name: pk for name, pk in session.execute(select(Context.name, Context.id))}
            owner = {"bulk": list(user.default_scopes), "small": list(other.default_scopes)}
            rows = []
            for i in range(args.jobs):
                name = "bulk" if i < args.jobs - args.small else "small"
                scopes = owner[name]
                rows.append(
                    {
                        "kind": queue.EMBED_SOURCE,
                        "context_id": ids[name],
                        "scopes": scopes,
                        "read_scopes": scopes,
                    }
                )
            session.execute(insert(Job), rows)
        with svc.store.admin() as session:  # as autovacuum would have, long before 100k jobs
            session.execute(text("ANALYZE jobs"))
        ways = (
            ("oldest first", None),
            ("turns, to small", _after(owner["bulk"], ids["bulk"])),
            ("turns, to bulk", _after(owner["small"], ids["small"])),
        )
        times: dict[str, list[float]] = {way: [] for way, _ in ways}
        first: dict[str, str] = {}
        names = {v: k for k, v in ids.items()}
        for _ in range(args.claims):
            for way, after in ways:
                with svc.store.admin() as session:
                    start = time.perf_counter()
                    job = queue.claim(
                        session,
                        [queue.EMBED_SOURCE],
                        list(ids.values()),
                        after,  # type: ignore[arg-type]
                    )
                    times[way].append(time.perf_counter() - start)
                    assert job is not None
                    first[way] = names[job.context_id or 0]
                    session.rollback()  # every claim sees the same queue
        report = {
            way: {
                "median_ms": round(statistics.median(t) * 1000, 2),
                "p95_ms": round(sorted(t)[int(0.95 * len(t))] * 1000, 2),
                "claims_first": first[way],
            }
            for way, t in times.items()
        }
        print(json.dumps({"env": _env.describe(), "jobs": args.jobs, **report}, indent=2))
        base = report["oldest first"]["median_ms"]
        for way in ("turns, to small", "turns, to bulk"):
            print(f"{way} / oldest first (median): {report[way]['median_ms'] / base:.2f}")


if __name__ == "__main__":
    main()
