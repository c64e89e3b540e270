"""The BM25 lane over compact merged rows (decision 0038) against main's lane over PACK rows,
and tantivy, in one run, on blockmax_probe.py's store (100k paragraphs, context `bench`).

The store is opened with this tree (migration 0040: its merged rows keep format 0, PACK; the
worker is off, so the conversion the migration queues does not run). A second context,
`bench-compact`, gets the same merged rows written by `codec.encode` (format 1) and the same
corpus row, so its paragraphs and statistics are `bench`'s. Per dev question, three lanes
alternate (order rotated): main's code (`git show main:` of search/postings.py, merged_read.py,
bm25.py, loaded beside this tree's) over `bench`'s PACK rows; this tree over the same PACK rows;
this tree over the compact rows. The best 50 of main's lane and of the compact one must be the
same paragraphs with the same scores to 1e-9 on every question (`mismatches` must be 0).
Tantivy (block-max WAND, Rust) and bm25s run after, over the same paragraphs and tokens, top 50.

    .venv/bin/python bench/blockmax_probe.py --paragraphs 100000 --home /tmp/bm/home100k
    cp -a /tmp/bm/home100k /tmp/postfmt-home
    .venv/bin/python bench/postings_format_probe.py --home /tmp/postfmt-home
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import _env
from blockmax_probe import peers
from compact_postings_probe import same
from search_latency import paragraphs, pct, questions

ROOT = Path(__file__).resolve().parent.parent
COMPACT = "bench-compact"


def main_lane() -> Any:
    """main's bm25 module, with its own postings and merged_read modules (not this tree's)."""
    names = {"postings": "_main_postings", "merged_read": "_main_merged_read", "bm25": "_main_bm25"}
    for name, alias in names.items():
        src = subprocess.run(
            ["git", "show", f"main:src/tabane/search/{name}.py"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        src = src.replace("from tabane.search import postings", "import _main_postings as postings")
        src = src.replace("from tabane.search.merged_read import", "from _main_merged_read import")
        module = types.ModuleType(alias)
        module.__file__ = f"main:{name}.py"
        sys.modules[alias] = module
        exec(compile(src, f"main:src/tabane/search/{name}.py", "exec"), module.__dict__)
    return sys.modules["_main_bm25"]


def compact_copy(svc: Any, user: Any, source: int) -> int:
    """The context `bench-compact` holding `source`'s merged rows encoded compact; its id."""
    from sqlalchemy import delete, select

    from tabane.search import merge
    from tabane.search.codec import decode, encode
    from tabane.storage.schema import Context, CorpusStats, MergedPack

    with svc.store.session(user) as session:
        found = session.scalar(select(Context.id).where(Context.name == COMPACT))
    if found is None:
        svc.create_context(user, COMPACT)
    with svc.store.owner.begin() as conn:
        ctx = conn.scalar(select(Context.id).where(Context.name == COMPACT))
        conn.execute(delete(MergedPack).where(MergedPack.context_id == ctx))
        conn.execute(delete(CorpusStats).where(CorpusStats.context_id == ctx))
        rows = conn.execute(
            select(MergedPack.term, MergedPack.scopes, MergedPack.postings).where(
                MergedPack.context_id == source
            )
        ).all()
        conn.execute(
            MergedPack.__table__.insert(),  # type: ignore[attr-defined]
            [
                {"context_id": ctx, "term": t, "scopes": s, "postings": encode(decode(b)),
                 "masked_upto": 0, "format": merge.COMPACT_ROWS}
                for t, s, b in rows
            ],
        )  # fmt: skip
        for scopes, n, total in conn.execute(
            select(CorpusStats.scopes, CorpusStats.paragraphs, CorpusStats.total_length).where(
                CorpusStats.context_id == source
            )
        ).all():
            conn.execute(
                CorpusStats.__table__.insert().values(  # type: ignore[attr-defined]
                    context_id=ctx, scopes=scopes, paragraphs=n, total_length=total
                )
            )
    return int(ctx)


def sizes(svc: Any, ids: dict[str, int]) -> dict[str, int]:
    from sqlalchemy import func, select

    from tabane.storage.schema import MergedPack

    with svc.store.owner.connect() as conn:
        return {
            name: int(
                conn.scalar(
                    select(func.sum(func.length(MergedPack.postings))).where(
                        MergedPack.context_id == ctx
                    )
                )
                or 0
            )
            for name, ctx in ids.items()
        }


def run(svc: Any, user: Any, ids: dict[str, int], qs: list[list[str]]) -> tuple[Any, int]:
    from tabane.search import bm25

    legacy = main_lane()
    lanes = {
        "main, PACK rows": (legacy, ids["pack"]),
        "this tree, PACK rows": (bm25, ids["pack"]),
        "this tree, compact rows": (bm25, ids["compact"]),
    }
    names = list(lanes)
    times: dict[str, list[float]] = {k: [] for k in names}
    mismatches = 0
    with svc.store.session(user) as session:
        for i, terms in enumerate(qs):
            got: dict[str, list[tuple[int, float]]] = {}
            for name in names[i % 3 :] + names[: i % 3]:
                module, ctx = lanes[name]
                t0 = time.perf_counter()
                hits = module.ranked(session, ctx, terms, pool=50)[1]
                times[name].append(time.perf_counter() - t0)
                got[name] = [(h.paragraph_id, h.score) for h in hits]
            mismatches += not same(got[names[0]], got[names[2]])
            mismatches += not same(got[names[0]], got[names[1]])
    return times, mismatches


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True, help="a copy of blockmax_probe.py's store")
    ap.add_argument("--paragraphs", type=int, default=100_000, help="the store's, for tantivy")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--json")
    args = ap.parse_args()

    from sqlalchemy import select

    from tabane.config import Settings
    from tabane.search import bm25
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context
    from tabane.text.tokenize import tokenize

    qs = [bm25.unique_terms(tokenize(q)) for q in questions(args.queries)]
    svc = Tabane.open(Settings(home=args.home, embedder="none", worker="off"))
    try:
        user = svc.local_user()
        with svc.store.session(user) as session:
            pack_ctx = session.scalar(select(Context.id).where(Context.name == "bench"))
        assert pack_ctx is not None
        ids = {"pack": int(pack_ctx), "compact": compact_copy(svc, user, int(pack_ctx))}
        size = sizes(svc, ids)
        run(svc, user, ids, qs[:10])  # warm both contexts' pages
        times, mismatches = run(svc, user, ids, qs)
    finally:
        svc.close()
        embedded.stop(args.home)
    times.update(peers(paragraphs(args.paragraphs), qs, 50))
    rows = {k: [pct(v, 0.5) * 1e3, pct(v, 0.95) * 1e3] for k, v in times.items()}
    result = {"env": _env.describe(), "mismatches": mismatches, "bytes": size, "lane_ms": rows}
    print(f"mismatches (main against compact, main against PACK rows): {mismatches}")
    print(f"merged bytes: PACK {size['pack']:,}, compact {size['compact']:,}")
    print("| lane | p50 / p95 ms | p50 against tantivy |\n|---|---|---|")
    for k, (p50, p95) in rows.items():
        print(f"| {k} | {p50:.2f} / {p95:.2f} | {p50 / rows['tantivy'][0]:.1f}× |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    json.dump(result, sys.stderr, indent=2)


if __name__ == "__main__":
    main()
