"""A probe, not a feature: would block-max postings with an exact top-k (bench/_blockmax.py,
MaxScore over blocks) let the BM25 lane read a bounded part of the merged rows? Measured on
search_latency.py's paragraphs in one store, beside main's lane, tantivy and bm25s in the same
run (decision 0034). Also timed: the question's merged rows shipped whole (binary) and cut to the
first 2/5 of their bytes (8 of each record's 20), to show how the read follows the bytes sent.

For each dev question (shuffled as search_latency.py does) the probe reads the question's
postings once as the lane does (`merged_read.read_merged`), times main's lane (`bm25.ranked`:
read and score), builds each long row's block directory in memory, and runs the block-max top-k
over those records with a fetch that slices them, counting the share of the question's records
it would read (the short rows, the long rows it reads whole, every block it fetches; not the
directories, 16 bytes per block) and its rounds of block reads, each one more round trip. Its
top-k is checked against the exhaustive scoring: every question must give the same paragraphs
and the same scores (`mismatches` must be 0). Two query kinds: `question`
(the dev question's terms) and `keywords` (its four terms of lowest idf with a document frequency
of at least 2 %: a short query of common words, block-max's best case). Peers over the same
texts and tokens, top 50: tantivy (Rust, a block-max WAND index), bm25s (numpy).

    .venv/bin/python bench/blockmax_probe.py --paragraphs 100000 --home /tmp/bm/home100k
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _blockmax as bmx
import _env
import numpy as np
from search_latency import paragraphs, pct, questions


def build(home: Path, texts: list[str]) -> None:
    """A fresh store of `texts` (1,000 a source), merged and vacuumed, at `home`."""
    from sqlalchemy import select, text

    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.search import merge
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context, CorpusStats

    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    try:
        user = svc.local_user()
        svc.create_context(user, "bench")
        for i in range(0, len(texts), 1000):
            chunk = [block(t) for t in texts[i : i + 1000]]
            svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        with svc.store.session(user) as session:
            ctx = session.scalar(select(Context).where(Context.name == "bench"))
            assert ctx is not None
            sets = session.scalars(
                select(CorpusStats.scopes).where(CorpusStats.context_id == ctx.id)
            ).all()
        for scopes in sets:
            merge.merge_in_steps(lambda: svc.store.session(user), ctx.id, list(scopes), force=True)
        with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
    finally:
        svc.close()
        embedded.stop(home)


def probe(
    packs: dict[str, Any], stats: Any, k: int, block: int
) -> tuple[bool, float, int, float, float]:
    """Whether the block-max top-k equals the exhaustive one, the share of the records it reads,
    its rounds of block reads, and the CPU seconds of both in numpy (reads excluded)."""
    from tabane.search import bm25

    t0 = time.perf_counter()
    want = bm25.score(packs, stats).best(k)
    exhaustive_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    terms = [t for t in packs if stats.df.get(t) and len(packs[t])]
    full, blocked = {}, []
    for t in terms:
        raw = bmx.directory(packs[t], block)
        if not raw:
            full[t] = packs[t]
            continue
        blocks = np.frombuffer(raw, bmx.DIRECTORY)
        bound = bmx.bounds(blocks, stats.idf(t), stats.avgdl, bm25.K1, bm25.B)
        blocked.append(bmx.Blocked(t, (), blocks, bound))

    def weigh(recs: Any, term: str) -> Any:
        return bm25._weights(recs, stats.idf(term), stats)

    def fetch(ranges: Any) -> list[Any]:
        return [packs[row.term][f * block : (f + n) * block] for row, f, n in ranges]

    got_packs, reads = bmx.top_k(full, blocked, terms, k, weigh, fetch)
    got = bm25.score(got_packs, stats).best(k)
    blockmax_s = time.perf_counter() - t0
    total = sum(len(packs[t]) for t in terms)
    read = sum(len(r) for r in full.values()) + reads.records
    return got == want, read / max(1, total), reads.rounds, exhaustive_s, blockmax_s


def peers(texts: list[str], queries: list[list[str]], k: int) -> dict[str, list[float]]:
    """tantivy and bm25s, top `k` of each query, over the same tokens."""
    import bm25s
    import tantivy

    from tabane.search import bm25
    from tabane.text.tokenize import tokenize

    tokens = [tokenize(t) for t in texts]
    schema_builder = tantivy.SchemaBuilder()
    schema_builder.add_text_field("body", stored=False, tokenizer_name="whitespace")
    schema = schema_builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for toks in tokens:
        writer.add_document(tantivy.Document(body=" ".join(toks)))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    retriever = bm25s.BM25(k1=bm25.K1, b=bm25.B, method="lucene")
    retriever.index(tokens, show_progress=False)
    out: dict[str, list[float]] = {"tantivy": [], "bm25s": []}
    for terms in queries:
        should = [
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", t)) for t in terms
        ]
        t0 = time.perf_counter()
        searcher.search(tantivy.Query.boolean_query(should), k)
        out["tantivy"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        retriever.retrieve([terms], k=k, show_progress=False)
        out["bm25s"].append(time.perf_counter() - t0)
    return out


# The question's merged rows shipped whole, or the first 8 bytes of each 20-byte record's worth
# (a compact record's size): how the read's time follows the bytes sent.
SHIP = (
    "SELECT {what} FROM bm25_merged WHERE context_id = %(ctx)s AND term = ANY(%(terms)s)",
    {
        "whole": "postings",
        "8 of 20 bytes": "substring(postings FROM 1 FOR length(postings) * 2 / 5)",
    },
)


def shipped(session: Any, context_id: int, terms: list[str], out: dict[str, list[float]]) -> None:
    """Time the binary read of the question's merged rows, whole and cut to 2/5."""
    sql, kinds = SHIP
    driver = session.connection().connection.driver_connection
    with driver.cursor(binary=True) as cursor:
        for name, what in kinds.items():
            t0 = time.perf_counter()
            cursor.execute(sql.format(what=what), {"ctx": context_id, "terms": terms})
            cursor.fetchall()
            out.setdefault(name, []).append(time.perf_counter() - t0)


def keywords(terms: list[str], df: dict[str, int], n: int) -> list[str]:
    common = [t for t in terms if df.get(t, 0) >= 0.02 * n]
    return sorted(common, key=lambda t: -df[t])[:4]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--home", type=Path, help="reuse (or build) the store here")
    ap.add_argument("--json")
    args = ap.parse_args()

    from sqlalchemy import select

    from tabane.config import Settings
    from tabane.search import bm25
    from tabane.search.merged_read import read_merged
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context
    from tabane.text.tokenize import tokenize

    texts = paragraphs(args.paragraphs)
    home = args.home or Path(tempfile.mkdtemp(prefix="tabane-bench-blockmax-"))
    if not (home / "pgdata").exists() and not any(home.glob("*")):
        build(home, texts)
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    lane: dict[str, list[float]] = {"question": [], "keywords": []}
    shares: dict[tuple[str, int, int], list[float]] = {}
    rounds: dict[tuple[str, int, int], list[int]] = {}
    cpu: dict[tuple[str, int, int], list[tuple[float, float]]] = {}
    mismatches = 0
    ship: dict[str, list[float]] = {}
    queries: dict[str, list[list[str]]] = {"question": [], "keywords": []}
    try:
        user = svc.local_user()
        with svc.store.session(user) as session:
            ctx = session.scalar(select(Context).where(Context.name == "bench"))
            assert ctx is not None
            for q in questions(args.queries):
                terms = bm25.unique_terms(tokenize(q))
                packs, (n, total) = read_merged(session, ctx.id, terms)
                df = {t: len(p) for t, p in packs.items() if len(p)}
                shipped(session, ctx.id, terms, ship)
                for kind, query in (("question", terms), ("keywords", keywords(terms, df, n))):
                    if not query:
                        continue
                    queries[kind].append(query)
                    t0 = time.perf_counter()
                    bm25.ranked(session, ctx.id, query, pool=50)
                    lane[kind].append(time.perf_counter() - t0)
                    mine = {t: packs[t] for t in query if t in packs}
                    stats = bm25.Statistics.of(n, total, {t: df[t] for t in mine})
                    for k in (10, 50):
                        for block in (32, 128):
                            same, share, r, cpu_all, cpu_bm = probe(mine, stats, k, block)
                            cpu.setdefault((kind, k, block), []).append((cpu_all, cpu_bm))
                            mismatches += not same
                            shares.setdefault((kind, k, block), []).append(share)
                            rounds.setdefault((kind, k, block), []).append(r)
    finally:
        svc.close()
        if args.home is None:
            embedded.stop(home)
            shutil.rmtree(home, ignore_errors=True)
        else:
            embedded.stop(home)
    peer = {kind: peers(texts, qs, 50) for kind, qs in queries.items()}
    result = {
        "env": _env.describe(),
        "paragraphs": len(texts),
        "mismatches": mismatches,
        "lane_ms": {k: [pct(v, 0.5) * 1e3, pct(v, 0.95) * 1e3] for k, v in lane.items()},
        "peers_ms": {
            kind: {p: [pct(v, 0.5) * 1e3, pct(v, 0.95) * 1e3] for p, v in got.items()}
            for kind, got in peer.items()
        },
        "ship_ms": {k: [pct(v, 0.5) * 1e3, pct(v, 0.95) * 1e3] for k, v in ship.items()},
        "read_share": {
            f"{kind} k={k} block={b}": {
                "p50": pct(v, 0.5),
                "p95": pct(v, 0.95),
                "mean": statistics.mean(v),
                "rounds_p50": pct(rounds[(kind, k, b)], 0.5),
                "rounds_max": max(rounds[(kind, k, b)]),
                "cpu_exhaustive_ms_p50": pct([a for a, _ in cpu[(kind, k, b)]], 0.5) * 1e3,
                "cpu_blockmax_ms_p50": pct([z for _, z in cpu[(kind, k, b)]], 0.5) * 1e3,
            }
            for (kind, k, b), v in shares.items()
        },
    }
    print(f"mismatches against the exhaustive top-k: {mismatches}")
    print("| query | main lane p50/p95 ms | tantivy | bm25s |\n|---|---|---|---|")
    for kind in lane:
        a, t, s = result["lane_ms"][kind], peer[kind]["tantivy"], peer[kind]["bm25s"]
        print(
            f"| {kind} | {a[0]:.1f} / {a[1]:.1f} | {pct(t, 0.5) * 1e3:.2f} / "
            f"{pct(t, 0.95) * 1e3:.2f} | {pct(s, 0.5) * 1e3:.2f} / {pct(s, 0.95) * 1e3:.2f} |"
        )
    print(
        "\n| query, k, block | records read p50 / p95 / mean | block rounds p50 / max "
        "| numpy ms p50: exhaustive / block-max |"
    )
    print("|---|---|---|---|")
    for name, v in result["read_share"].items():
        print(
            f"| {name} | {v['p50']:.2f} / {v['p95']:.2f} / {v['mean']:.2f} | "
            f"{v['rounds_p50']} / {v['rounds_max']} | {v['cpu_exhaustive_ms_p50']:.2f} / "
            f"{v['cpu_blockmax_ms_p50']:.2f} |"
        )
    print("\n| merged rows of the question shipped | p50 / p95 ms |\n|---|---|")
    for name, (p50, p95) in result["ship_ms"].items():
        print(f"| {name} | {p50:.2f} / {p95:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    json.dump(result, sys.stderr, indent=2)


if __name__ == "__main__":
    main()
