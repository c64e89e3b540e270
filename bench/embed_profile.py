"""Where the embedding jobs' wall time goes, against the bare model in the same run: wall timers
around the worker's steps (claim, the source's read, the model, the vectors' write, progress,
finish, the bulk-index checks, the lease), split by thread (the worker's, and the writer's where
a job's writes and end run). `--paragraphs` real paragraphs (the Python docs) in sources of
`--source-size`, the default model, a fresh store; the jobs run by `Worker.drain`.

    .venv/bin/python bench/embed_profile.py --paragraphs 1000 --source-size 50
"""

from __future__ import annotations

import argparse
import collections
import threading
import time
from collections.abc import Callable
from typing import Any

import _env
import _store
from search_latency import paragraphs

SPENT: dict[str, float] = collections.defaultdict(float)
CALLS: collections.Counter[str] = collections.Counter()


def timed(owner: Any, name: str, label: str) -> None:
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            main = threading.current_thread() is threading.main_thread()
            SPENT[label + ("" if main else " [writer]")] += time.perf_counter() - t
            CALLS[label] += 1

    setattr(owner, name, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=1000)
    ap.add_argument("--source-size", type=int, default=50)
    a = ap.parse_args()

    from tabane.ingest.documents import DocumentInput, block
    from tabane.jobs import bulk_vectors, embed_source, lease, queue
    from tabane.jobs.worker import Worker
    from tabane.models.local import UseEmbedder
    from tabane.search import vectors
    from tabane.search.vectors import BATCH

    print(_env.header(_env.describe()))
    texts = paragraphs(a.paragraphs)
    model = UseEmbedder()
    model.embed_documents(["warm up"])
    t = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        model.embed_documents(texts[i : i + BATCH])
    bare = time.perf_counter() - t
    for owner, name, label in (
        (queue, "claim", "claim"),
        (queue, "finish", "finish"),
        (queue, "progress", "progress"),
        (vectors, "missing", "read the source"),
        (vectors, "store", "write vectors"),
        (model, "embed_documents", "model"),
        (bulk_vectors.Bulk, "settle", "index check after"),
        (bulk_vectors.Bulk, "before", "index check before"),
        (embed_source, "run", "job (until handed to the writer)"),
        (lease.Heartbeat, "__exit__", "lease end"),
    ):
        timed(owner, name, label)
    with _store.fresh_store("embed-profile", model) as svc:
        user = svc.local_user()
        svc.create_context(user, "bench")
        for i in range(0, len(texts), a.source_size):
            chunk = [block(x) for x in texts[i : i + a.source_size]]
            svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        worker = Worker(svc.store, model)
        SPENT.clear()
        CALLS.clear()
        t = time.perf_counter()
        ran = worker.drain()
        took = time.perf_counter() - t
    n = len(texts)
    print(f"bare {n / bare:.0f}/s ({bare:.2f} s); jobs {n / took:.0f}/s ({took:.2f} s, {ran} jobs)")
    print(f"ratio jobs/bare {bare / took:.2f}\n\n| step | seconds | calls |\n|---|---:|---:|")
    for label, secs in sorted(SPENT.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {secs:.3f} | {CALLS[label.split(' [')[0]]} |")


if __name__ == "__main__":
    main()
