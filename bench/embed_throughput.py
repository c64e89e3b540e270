"""Embedding throughput through tabane's jobs, against the bare model in the same run.

The same real paragraphs (from the Python docs) are embedded twice with the default model (USE
multilingual v3, one thread):
  bare     `UseEmbedder.embed_documents` in batches of the worker's size, nothing else;
  jobs     ingest with the embedder on (jobs queued in the ingest's transaction), then the worker
           claims each job, reads the paragraphs under the job's scopes, embeds, and writes the
           vectors — measured from the first claim to the last commit (`wait_for_jobs`).
The ratio jobs/bare is the share of the model's speed that survives tabane's pipeline.

    .venv/bin/python bench/embed_throughput.py --paragraphs 2000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import _env
from search_latency import paragraphs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=2000)
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.models.local import UseEmbedder
    from tabane.search.vectors import BATCH
    from tabane.service import Tabane
    from tabane.storage import embedded

    texts = paragraphs(args.paragraphs)
    model = UseEmbedder()
    model.embed_documents(["warm up"])  # load outside both timings
    t = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        model.embed_documents(texts[i : i + BATCH])
    bare = time.perf_counter() - t

    home = Path(tempfile.mkdtemp(prefix="tabane-bench-embed-"))
    svc = Tabane.open(Settings(home=home, worker="off"), embedder=model)
    try:
        user = svc.local_user()
        svc.create_context(user, "bench")
        for i in range(0, len(texts), 500):
            chunk = [block(x) for x in texts[i : i + 500]]
            svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        t = time.perf_counter()
        left = svc.wait_for_jobs(timeout=7200)
        jobs = time.perf_counter() - t
        assert left == 0, f"{left} jobs left"
    finally:
        svc.close()
        embedded.stop(home)

    result = {
        "env": _env.describe(),
        "paragraphs": len(texts),
        "bare_per_s": len(texts) / bare,
        "jobs_per_s": len(texts) / jobs,
        "ratio": bare / jobs,
    }
    print("| path | paragraphs/s |\n|---|---|")
    print(f"| bare model | {result['bare_per_s']:.1f} |")
    print(f"| tabane jobs | {result['jobs_per_s']:.1f} |")
    print(f"\nratio jobs/bare: {result['ratio']:.2f} over {len(texts)} paragraphs")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
