"""A probe, not a feature: resolve's fuzzy top 10 from per-gram arrays of entry ids counted in
numpy, against today's lexical tier (`resolve_lexical.lexical`, top mode) in the same run, on
`resolve_latency.py`'s store and its Latin identifier typo cues.

Why: a Latin typo's candidates statement counts ~12.5k postings inside PostgreSQL (index-only
scan, hash aggregate, `strpos` checks: ~8 ms), and no bound on the 10th-best score reads fewer
than ~8k (docs/journal/benchmarks.md, "Resolve at 100k concepts"). Here each gram's postings are one
row (`int8send(entry_id) || int4send(size)` records, built into a scratch table by the owner).
The cue's informative grams are read in one binary round trip; every entry's shared-gram count
s is exact (`np.unique`); Dice's upper bound
2s/(a + max(s, size - |stop|)) orders the entries; keys are fetched and scored (`score_key`) 48
at a time until the 10th best reaches the next bound. The scratch table has no scopes, no merge
and no fresh postings: it measures the read, not a design.

    cd bench && ../.venv/bin/python resolve_latency.py --concepts 100000 --home /tmp/rs-100k
    cd bench && ../.venv/bin/python resolve_arrays_probe.py --home /tmp/rs-100k
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

import _env
import numpy as np
from resolve_latency import typo, vocabulary

RECORD = np.dtype([("id", ">i8"), ("size", ">i4")])
BATCH = 48  # keys fetched and scored per round


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True, help="resolve_latency.py's store (--home)")
    ap.add_argument("--concepts", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()

    from sqlalchemy import Integer, bindparam, select, text

    from tabane.config import Settings
    from tabane.graph.resolve import tiers as lexical
    from tabane.graph.resolve.cue import Scored, best_per_canonical, score_key
    from tabane.graph.vocabulary_stats import GRAMS
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.binary import binary_rows
    from tabane.storage.schema import Context

    info = _env.describe()
    rng = random.Random(7)  # the cues of resolve_latency.py: same seed, same draws
    names = vocabulary(args.concepts, rng)
    picked = rng.sample(names, args.queries)
    latin = [c for c in (typo(n, rng) for n in picked) if c.isascii()]
    home = Path(args.home)
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"), embedder=None)
    packs = text(
        "SELECT gram, recs FROM probe_gram_arrays "
        "WHERE context_id = :c AND kind = 'concept' AND gram = ANY(:g)"
    ).bindparams(bindparam("c", type_=Integer), bindparam("g", type_=GRAMS))
    keys = text("SELECT name, alias_of, key FROM vocabulary WHERE id = ANY(:ids)")
    times: dict[str, list[float]] = {k: [] for k in ("today", "probe", "read", "count", "check")}
    same = 0
    try:
        with svc.store.owner.connect() as conn:
            started = time.perf_counter()
            conn.execute(text("DROP TABLE IF EXISTS probe_gram_arrays"))
            conn.execute(
                text(
                    "CREATE TABLE probe_gram_arrays AS SELECT context_id, kind, gram, "
                    "string_agg(int8send(entry_id) || int4send(size), ''::bytea "
                    "ORDER BY entry_id) AS recs FROM vocabulary_grams GROUP BY 1, 2, 3"
                )
            )
            conn.execute(text("CREATE UNIQUE INDEX ON probe_gram_arrays (context_id, kind, gram)"))
            conn.execute(text("GRANT SELECT ON probe_gram_arrays TO PUBLIC"))
            conn.commit()
            build_s = time.perf_counter() - started
        user = svc.local_user()
        with svc.store.session(user) as s:
            ctx = s.scalar(select(Context).where(Context.name == "bench"))
            assert ctx is not None
            for rep in range(2):  # the first round warms the caches
                for cue_text in latin:
                    cue = lexical.look_up(s, ctx.id, "concept", cue_text).cue
                    t0 = time.perf_counter()
                    found = lexical.lexical(s, ctx.id, "concept", cue, 0.3, 60, top=10)
                    t1 = time.perf_counter()
                    grams = sorted(cue.informative)
                    rows = binary_rows(s, packs, {"c": ctx.id, "g": grams})
                    t2 = time.perf_counter()
                    recs = np.concatenate([np.frombuffer(bytes(r[1]), dtype=RECORD) for r in rows])
                    ids, first, shared = np.unique(
                        recs["id"].astype(np.int64), return_index=True, return_counts=True
                    )
                    size = recs["size"][first].astype(np.int64)
                    bound = 2 * shared / (len(grams) + np.maximum(shared, size - len(cue.stop)))
                    order = np.argsort(-bound, kind="stable")
                    t3 = time.perf_counter()
                    scored: list[Scored] = []
                    ranked: list[Scored] = []
                    at = 0
                    while at < len(order):
                        batch = ids[order[at : at + BATCH]].tolist()
                        at += BATCH
                        for r in s.execute(keys, {"ids": batch}):
                            score, how = score_key(cue, r.key)
                            if r.key != cue.key and how == "fuzzy" and score >= 0.3:
                                scored.append(
                                    Scored(r.name, r.alias_of or r.name, r.key, score, how)
                                )
                        ranked = best_per_canonical(scored, cue.text)
                        if (
                            len(ranked) >= 10
                            and at < len(order)
                            and ranked[9].score >= bound[order[at]]
                        ):
                            break
                    t4 = time.perf_counter()
                    if rep:
                        today = [
                            x.name
                            for x in best_per_canonical(found.scored, cue.text)
                            if x.kind == "fuzzy"
                        ]
                        same += today[:10] == [x.name for x in ranked[:10]]
                        for name, ms in zip(
                            ("today", "probe", "read", "count", "check"),
                            (t1 - t0, t4 - t1, t2 - t1, t3 - t2, t4 - t3),
                            strict=True,
                        ):
                            times[name].append(ms * 1000)
    finally:
        with svc.store.owner.connect() as conn:
            conn.execute(text("DROP TABLE IF EXISTS probe_gram_arrays"))
            conn.commit()
        svc.close()
        embedded.stop(home)
    print(_env.header(info))
    print(f"- Latin typo cues: {len(latin)}; arrays built in {build_s:.1f} s")
    print(f"- same fuzzy top 10 as today's tier: {same}/{len(latin)}")
    print("\n| measured | p50 ms | p95 ms |\n|---|---:|---:|")
    for name, values in times.items():
        values.sort()
        p95 = values[int(0.95 * (len(values) - 1))]
        print(f"| {name} | {statistics.median(values):.2f} | {p95:.2f} |")


if __name__ == "__main__":
    main()
