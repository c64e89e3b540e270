"""Embedding throughput through tabane's jobs, against the bare model in the same run.

The same real paragraphs (from the Python docs) are embedded with the default model (USE
multilingual v3, one thread):
  bare     `UseEmbedder.embed_documents` over every paragraph in corpus order, in batches of the
           worker's size, nothing else (the baseline);
  jobs     ingest with the embedder on (jobs queued in the ingest's transaction, `--source-size`
           paragraphs a source), then a worker with the embedder and no summarizer claims each
           embedding job, reads the paragraphs under the job's scopes, embeds, and writes the
           vectors — measured from the first claim to the last job's finish.
The ratio jobs/bare is the share of the model's speed that survives tabane's pipeline; the two
alternate `--rounds` times (a fresh store each round) and the median ratio is reported. Two more
bare rows explain it: the same texts sorted by length (the model streams tokens in flat
micro-batches, so sorting should not matter), and each distinct text once (what a job embeds).

    .venv/bin/python bench/embed_throughput.py --paragraphs 2000 [--rounds 3] [--source-size 500]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import _env
import _store
from search_latency import paragraphs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=2000)
    ap.add_argument("--source-size", type=int, default=500, help="paragraphs per source (job)")
    ap.add_argument("--rounds", type=int, default=3, help="bare and jobs alternate this often")
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.models.local import UseEmbedder
    from tabane.search.vectors import BATCH

    texts = paragraphs(args.paragraphs)
    model = UseEmbedder()
    model.embed_documents(["warm up"])  # load outside every timing

    def bare_run(xs: list[str]) -> float:
        t = time.perf_counter()
        for i in range(0, len(xs), BATCH):
            model.embed_documents(xs[i : i + BATCH])
        return time.perf_counter() - t

    # The two paths alternate, so a change in the machine's load falls on both; each round gives
    # a ratio, and the median of those is the result.
    bare: list[float] = []
    jobs: list[float] = []
    for _ in range(args.rounds):
        bare.append(bare_run(texts))
        jobs.append(jobs_run(model, texts, args.source_size))
    by_length = bare_run(sorted(texts, key=len))
    distinct = list(dict.fromkeys(texts))
    once = bare_run(distinct)

    n = len(texts)
    ratios = [b / j for b, j in zip(bare, jobs, strict=True)]
    result = {
        "env": _env.describe(),
        "paragraphs": n,
        "source_size": args.source_size,
        "distinct_texts": len(distinct),
        "bare_per_s": [n / b for b in bare],
        "jobs_per_s": [n / j for j in jobs],
        "ratios": ratios,
        "ratio": statistics.median(ratios),
        "bare_by_length_per_s": n / by_length,
        "bare_distinct_per_s": n / once,
    }
    print("| path | paragraphs/s (each round) |\n|---|---|")
    print(f"| bare model, corpus order (baseline) | {_each(result['bare_per_s'])} |")
    print(f"| tabane jobs ({args.source_size} paragraphs a job) | {_each(result['jobs_per_s'])} |")
    print(f"| bare model, sorted by length | {n / by_length:.1f} |")
    print(f"| bare model, {len(distinct)} distinct texts once | {n / once:.1f} |")
    print(
        f"\nratio jobs/bare: {_each(ratios, 2)}; median {result['ratio']:.2f} over {n} paragraphs"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


def jobs_run(model: Any, texts: list[str], size: int) -> float:
    """Ingest `texts` into a fresh store, `size` paragraphs a source, then time the embedding
    jobs: a worker with the embedder and no summarizer, from the first claim to the last finish.
    (The facade's `wait_for_jobs` would also run the debounced RAPTOR rebuild the stored leaves
    queue: a derived build, not embedding throughput.)"""
    from sqlalchemy import func, select

    from tabane.ingest.documents import DocumentInput, block
    from tabane.jobs.worker import Worker
    from tabane.storage.schema import ParagraphVector

    with _store.fresh_store("embed", model) as svc:
        user = svc.local_user()
        svc.create_context(user, "bench")
        for i in range(0, len(texts), size):
            chunk = [block(x) for x in texts[i : i + size]]
            svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        worker = Worker(svc.store, model)
        t = time.perf_counter()
        ran = worker.drain()
        took = time.perf_counter() - t
        with svc.store.admin() as session:
            stored = session.scalar(select(func.count()).select_from(ParagraphVector))
        # One embedding job a source, plus the BM25 merge job the ingest queues (a few ms).
        assert ran >= -(-len(texts) // size) and stored == len(texts), (ran, stored)
        return took


def _each(xs: list[float], digits: int = 1) -> str:
    return " / ".join(f"{x:.{digits}f}" for x in xs)


if __name__ == "__main__":
    main()
