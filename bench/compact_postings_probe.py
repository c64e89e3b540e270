"""A probe, not a feature: the BM25 lane over a compact record (decision 0034's next lever),
against main's lane in the same run, on blockmax_probe.py's store.

Each merged row of the `bench` context is written again, by the owner, into a scratch table
`bench_compact_postings` (no scopes, no fresh packs, no masks: it measures the read and the
scoring, not a design) as one bytea, little-endian, column by column: n (int4), the row's first
id (int8), then n id offsets from it (uint32), n tf (uint16), n qtf (uint8), n dl (uint16) —
9 bytes a record against PACK's 20. A question's rows are read in one binary statement, decoded
as numpy views and scored with the same formula and summation as `bm25.score`; its best 50 must
equal main's lane, paragraphs and scores to 1e-9 (`mismatches` must be 0). The two lanes
alternate per question; main's runs under row-level security on the user's session, the compact
one on the owner's connection (the scratch table has no policy).

    .venv/bin/python bench/blockmax_probe.py --paragraphs 100000 --home /tmp/bm/home100k
    .venv/bin/python bench/compact_postings_probe.py --home /tmp/bm/home100k
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import _env
import numpy as np
from search_latency import pct, questions

TABLE = "bench_compact_postings"


def encode(recs: Any) -> bytes:
    ids = recs["id"].astype(np.int64)
    base = int(ids[0])
    offsets, tf, qtf, dl = ids - base, recs["tf"], recs["qtf"], recs["dl"]
    assert offsets.max() < 2**32 and tf.max() < 2**16 and qtf.max() < 2**8 and dl.max() < 2**16
    head = np.array([len(recs)], "<i4").tobytes() + np.array([base], "<i8").tobytes()
    return head + b"".join(
        a.astype(t).tobytes() for a, t in ((offsets, "<u4"), (tf, "<u2"), (qtf, "u1"), (dl, "<u2"))
    )


def decode(blob: bytes) -> tuple[Any, Any, Any]:
    """(ids, tf, dl) of one compact row: ids absolute, the rest views."""
    n = int(np.frombuffer(blob, "<i4", 1, 0)[0])
    base = int(np.frombuffer(blob, "<i8", 1, 4)[0])
    at = 12
    offsets = np.frombuffer(blob, "<u4", n, at)
    tf = np.frombuffer(blob, "<u2", n, at + 4 * n)
    dl = np.frombuffer(blob, "<u2", n, at + 7 * n)
    return offsets.astype(np.int64) + base, tf, dl


def build(conn: Any, context_id: int) -> int:
    """The scratch table from the context's merged rows (once); its bytes."""
    from sqlalchemy import text

    from tabane.search import postings

    exists = conn.execute(text(f"SELECT to_regclass('{TABLE}') IS NOT NULL")).scalar()
    if not exists:
        conn.execute(
            text(
                f'CREATE TABLE {TABLE} (context_id int, term text COLLATE "C", '
                "postings bytea, PRIMARY KEY (context_id, term))"
            )
        )
        conn.execute(text(f"ALTER TABLE {TABLE} ALTER COLUMN postings SET STORAGE EXTERNAL"))
        driver = conn.connection.driver_connection
        with driver.cursor(binary=True) as cursor:
            cursor.execute(
                "SELECT term, postings FROM bm25_merged WHERE context_id = %s", (context_id,)
            )
            rows = [(t, encode(postings.unpack(bytes(b)))) for t, b in cursor.fetchall()]
        sql = f"COPY {TABLE} (context_id, term, postings) FROM STDIN"
        with driver.cursor() as cursor, cursor.copy(sql) as copy:
            for term, blob in rows:
                copy.write_row((context_id, term, blob))
        conn.execute(text(f"ANALYZE {TABLE}"))
    return int(conn.execute(text(f"SELECT sum(length(postings)) FROM {TABLE}")).scalar() or 0)


READ = (
    "SELECT term, postings, (SELECT sum(paragraphs) FROM bm25_corpus WHERE context_id = %(c)s),"
    " (SELECT sum(total_length) FROM bm25_corpus WHERE context_id = %(c)s)"
    f" FROM {TABLE} WHERE context_id = %(c)s AND term = ANY(%(t)s)"
)


def compact_lane(conn: Any, context_id: int, terms: list[str]) -> Any:
    """The best 50 from the compact rows and the corpus sums, read in one statement."""
    from tabane.search import bm25

    driver = conn.connection.driver_connection
    with driver.cursor(binary=True) as cursor:
        cursor.execute(READ, {"c": context_id, "t": terms})
        rows = cursor.fetchall()
    if not rows:
        return []
    n, total = int(rows[0][2]), int(rows[0][3])
    parts = {t: decode(bytes(b)) for t, b, _, _ in rows}
    stats = bm25.Statistics.of(n, total, {t: len(p[0]) for t, p in parts.items()})
    order = [t for t in terms if t in parts]
    if not order:
        return []
    ids = np.concatenate([parts[t][0] for t in order])
    tf = np.concatenate([parts[t][1] for t in order]).astype(np.float64)
    dl = np.concatenate([parts[t][2] for t in order]).astype(np.float64)
    idfs = np.repeat([stats.idf(t) for t in order], [len(parts[t][0]) for t in order])
    avgdl = stats.avgdl or 1.0
    contrib = idfs * tf * (bm25.K1 + 1) / (tf + bm25.K1 * (1 - bm25.B + bm25.B * dl / avgdl))
    lo = int(ids.min())
    sums = np.bincount(ids - lo, weights=contrib)
    held = np.flatnonzero(sums)
    return bm25.Scores(held.astype(np.int64) + lo, sums[held]).best(50)


def same(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> bool:
    """The same paragraphs in the same order, scores equal but for the summation order's last
    bits (main sums the terms in the order its rows arrive)."""
    return [p for p, _ in a] == [p for p, _ in b] and all(
        abs(x - y) <= 1e-9 for (_, x), (_, y) in zip(a, b, strict=True)
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True, help="blockmax_probe.py's store")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--json")
    args = ap.parse_args()

    from sqlalchemy import func, select

    from tabane.config import Settings
    from tabane.search import bm25
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context, MergedPack
    from tabane.text.tokenize import tokenize

    svc = Tabane.open(Settings(home=args.home, embedder="none", worker="off"))
    times: dict[str, list[float]] = {"main": [], "compact": []}
    mismatches = 0
    try:
        user = svc.local_user()
        with svc.store.session(user) as session, svc.store.owner.connect() as owner:
            ctx = session.scalar(select(Context).where(Context.name == "bench"))
            assert ctx is not None
            size = build(owner, ctx.id)
            owner.commit()
            merged = session.scalar(select(func.sum(func.length(MergedPack.postings))))
            for i, q in enumerate(questions(args.queries)):
                terms = bm25.unique_terms(tokenize(q))
                runs = ["main", "compact"] if i % 2 else ["compact", "main"]
                got: dict[str, Any] = {}
                for name in runs:
                    t0 = time.perf_counter()
                    if name == "main":
                        hits = bm25.ranked(session, ctx.id, terms, pool=50)[1]
                        got[name] = [(h.paragraph_id, h.score) for h in hits]
                    else:
                        got[name] = compact_lane(owner, ctx.id, terms)
                    times[name].append(time.perf_counter() - t0)
                mismatches += not same(got["main"], got["compact"])
    finally:
        svc.close()
        embedded.stop(args.home)
    rows = {k: [pct(v, 0.5) * 1e3, pct(v, 0.95) * 1e3] for k, v in times.items()}
    result = {
        "env": _env.describe(),
        "mismatches": mismatches,
        "bytes": {"merged": int(merged or 0), "compact": size},
        "lane_ms": rows,
        "ratio_p50": rows["main"][0] / rows["compact"][0],
    }
    print(f"mismatches against main's lane: {mismatches}")
    print(f"bytes: merged {result['bytes']['merged']:,}, compact {size:,}")
    print("| lane | p50 / p95 ms |\n|---|---|")
    for k, (p50, p95) in rows.items():
        print(f"| {k} | {p50:.2f} / {p95:.2f} |")
    print(f"main / compact p50: {result['ratio_p50']:.2f}×")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    json.dump(result, sys.stderr, indent=2)


if __name__ == "__main__":
    main()
