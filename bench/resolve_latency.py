"""resolve latency at ~100k concepts: typo cues (the fuzzy tier) against an exact-key baseline
measured in the same run.

The vocabulary is synthetic and deterministic (seeded): half English-like identifiers built from
a word list (camelCase, two or three words: their Latin bigrams are common, so stop-grams
matter), half Japanese names of three to six characters drawn from ~300 kanji and kana. Concepts
are written through the service (`add_claims`, 10,000 claims a batch, two new concepts a claim),
so the gram index is the one production builds. Cues: a stored name with one character replaced
(typo) or the stored name itself (exact baseline). Timed: the whole `Tabane.resolve` call with
usage counting off (a session with SET LOCAL, the statements, glosses of the top 5), no embedder;
typo cues also apart by script: a Latin typo has ~1,000 identifiers above the default dice floor
(they share a word), of which resolve ranks only the top `limit` exactly (its `total` is then a
lower bound: `total_exact` false), a Japanese one a handful (all scored).

    .venv/bin/python bench/resolve_latency.py --concepts 100000

`--home DIR` keeps the store there and reuses it when a previous run built the same size;
without it the store is built in a temporary folder that is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import _env

_WORDS = (
    "fetch block read write open close parse build frame buffer index cache store load save "
    "query result plan node edge graph path token term score rank limit page user scope role "
    "context source paragraph section claim label concept alias weight vector model embed job "
    "queue worker lease retry error issue value field record table column row batch stream file "
    "folder sync hash digest render template prompt budget lane filter window time date stamp"
)
WORDS = _WORDS.split()
KANJI = (
    "東京都大阪府京都市北海道青嶺酒造蔵株式会社山川田中村本日月火水木金土人口所在地首都製品販売"
    "開発研究技術情報管理部長課係営業企画総務経理法務広報設計試験品質保証生産物流購買調達"
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわを"
    "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン"
)


def vocabulary(n: int, rng: random.Random) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        if len(out) % 2:
            parts = rng.sample(WORDS, rng.choice((2, 3)))
            out.add(parts[0] + "".join(p.capitalize() for p in parts[1:]) + str(rng.randrange(100)))
        else:
            out.add("".join(rng.choice(KANJI) for _ in range(rng.randint(3, 6))))
    return sorted(out)


def typo(name: str, rng: random.Random) -> str:
    i = rng.randrange(len(name))
    pool = KANJI if ord(name[i]) > 0x7F else "abcdefghijklmnopqrstuvwxyz"
    return name[:i] + rng.choice(pool) + name[i + 1 :]


def timed(fn, cues: list[str]) -> dict[str, float]:
    ms = []
    for cue in cues:
        t0 = time.perf_counter()
        fn(cue)
        ms.append((time.perf_counter() - t0) * 1000)
    ms.sort()
    return {"p50_ms": statistics.median(ms), "p95_ms": ms[int(0.95 * (len(ms) - 1))]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concepts", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json")
    ap.add_argument("--home", help="keep the store here; reuse it when already built")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.graph.claims.parse import ClaimInput
    from tabane.service import Tabane
    from tabane.storage import embedded

    info = _env.describe()
    rng = random.Random(7)
    names = vocabulary(args.concepts, rng)
    keep = args.home is not None
    home = Path(args.home) if keep else Path(tempfile.mkdtemp(prefix="tabane-bench-resolve-"))
    home.mkdir(parents=True, exist_ok=True)
    marker = home / f"built-{args.concepts}"
    reuse = marker.exists()
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"), embedder=None)
    try:
        user = svc.local_user()
        t0 = time.perf_counter()
        if not reuse:
            svc.create_context(user, "bench")
            pairs = [(names[i], names[i + 1]) for i in range(0, len(names) - 1, 2)]
            for i in range(0, len(pairs), 10_000):
                batch = [ClaimInput(s, "related", o, 1.0) for s, o in pairs[i : i + 10_000]]
                svc.add_claims(user, "bench", batch)
        build_s = time.perf_counter() - t0
        # Outside a transaction: an ANALYZE in one that is never committed leaves the planner
        # without column statistics (pg_class.reltuples is updated in place, pg_statistic is not).
        with svc.store.owner.connect() as conn:
            from sqlalchemy import text

            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM ANALYZE"))
        picked = rng.sample(names, args.queries)
        typos = [typo(n, rng) for n in picked]

        def run(cue: str) -> object:
            return svc.resolve(user, "bench", cue, count_usage=False)

        for cue in typos[:20]:  # warm caches
            run(cue)
        found = sum(
            any(c.name == want for c in run(cue).candidates)  # type: ignore[attr-defined]
            for cue, want in zip(typos, picked, strict=True)
        )
        exact_totals = sum(run(cue).total_exact for cue in typos)  # type: ignore[attr-defined]
        latin = [c for c in typos if c.isascii()]
        japanese = [c for c in typos if not c.isascii()]
        rows = {
            "exact (baseline)": timed(run, picked),
            "typo (fuzzy)": timed(run, typos),
            "typo, Latin identifiers": timed(run, latin),
            "typo, Japanese names": timed(run, japanese),
        }
        if not reuse:
            marker.write_text("built\n")
    finally:
        svc.close()
        embedded.stop(home)
        if not keep:
            shutil.rmtree(home, ignore_errors=True)
    print(_env.header(info))
    built = "reused" if reuse else f"built in {build_s:.1f} s"
    print(f"- concepts: {len(names)} ({built}); queries: {args.queries}")
    print(f"- typo cues whose intended name is among the candidates: {found}/{len(typos)}")
    print(
        f"- typo cues with an exact `total` (every candidate scored): {exact_totals}/{len(typos)}"
    )
    print("\n| cue | p50 ms | p95 ms |\n|---|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {v['p50_ms']:.2f} | {v['p95_ms']:.2f} |")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"env": info, "rows": rows, "found": found, "exact_totals": exact_totals})
        )


if __name__ == "__main__":
    main()
