"""Re-ingesting edited documents: what the embedding jobs redo, against embedding them whole.

A fresh store (worker off, the default model, one thread) gets `--sources` documents of
`--source-size` real paragraphs each (the Python docs), and a worker embeds them: that time is the
baseline, what replacing those documents cost before a replaced source kept the vectors of its
unchanged paragraphs (every paragraph of a replaced version was embedded again). Then one
paragraph of each document is edited (a sentence appended), every document is ingested again
(outcome `replaced`), and the worker runs again. Reported: ingest seconds of both passes (the
second holds and restores the unchanged paragraphs' vectors), embedding seconds, texts the model
embedded (counted by a wrapper around the real model), and the ratio baseline / edit.

    .venv/bin/python bench/reingest_edit.py [--sources 10] [--source-size 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _env
import _store
from search_latency import paragraphs


class Counting:
    """The real model, counting the texts it embeds."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim, self.texts = inner, inner.name, inner.dim, 0

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", type=int, default=10)
    ap.add_argument("--source-size", type=int, default=200)
    ap.add_argument("--json")
    args = ap.parse_args()

    from sqlalchemy import func, select

    from tabane.ingest.documents import DocumentInput, block
    from tabane.jobs.worker import Worker
    from tabane.models.local import UseEmbedder
    from tabane.storage.schema import ParagraphVector

    size = args.source_size
    texts = paragraphs(args.sources * size)
    docs = [texts[i : i + size] for i in range(0, len(texts), size)]
    model = Counting(UseEmbedder())
    model.inner.embed_documents(["warm up"])  # load outside every timing
    with _store.fresh_store("reingest", model) as svc:
        user = svc.local_user()
        svc.create_context(user, "bench")

        def ingest(versions: list[list[str]]) -> tuple[float, list[str]]:
            t = time.perf_counter()
            outcomes = [
                svc.ingest(
                    user,
                    "bench",
                    DocumentInput(source_id=f"doc{n}", paragraphs=[block(x) for x in doc]),
                ).outcome
                for n, doc in enumerate(versions)
            ]
            return time.perf_counter() - t, outcomes

        def embed() -> tuple[float, int]:
            model.texts = 0
            t = time.perf_counter()
            Worker(svc.store, model).drain()
            return time.perf_counter() - t, model.texts

        first_ingest, created = ingest(docs)
        full, full_texts = embed()
        edited = [[*d[: size // 2], d[size // 2] + " (Edited.)", *d[size // 2 + 1 :]] for d in docs]
        second_ingest, replaced = ingest(edited)
        edit, edit_texts = embed()
        with svc.store.admin() as session:
            stored = session.scalar(select(func.count()).select_from(ParagraphVector))
        assert set(created) == {"created"} and set(replaced) == {"replaced"}
        assert stored == len(texts), stored  # every paragraph has its vector again

    result = {
        "env": _env.describe(),
        "sources": args.sources,
        "source_size": size,
        "first": {"ingest_s": first_ingest, "embed_s": full, "texts_embedded": full_texts},
        "edited": {"ingest_s": second_ingest, "embed_s": edit, "texts_embedded": edit_texts},
        "ratio_embed": full / edit,
        "ratio_total": (first_ingest + full) / (second_ingest + edit),
    }
    print(_env.describe())
    first_row = f"{first_ingest:.2f} | {full:.2f} | {full_texts}"
    edit_row = f"{second_ingest:.2f} | {edit:.2f} | {edit_texts}"
    print("| pass | ingest s | embedding s | texts embedded |\n|---|---:|---:|---:|")
    print(f"| store {len(texts)} paragraphs, embed (baseline) | {first_row} |")
    print(f"| edit one paragraph of each, re-ingest, embed | {edit_row} |")
    ratios = f"{result['ratio_embed']:.1f}x; ingest + embedding {result['ratio_total']:.1f}x"
    print(f"\nembedding: baseline / edit = {ratios}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
