"""Derived-memory build times over the Python docs: the RAPTOR tree against embedding the same
paragraphs, communities and entity profiles against writing their claims (the baselines, each
measured in the same run).

One fresh embedded store; the python3.11-doc HTML files are ingested in path order until
`--paragraphs` are stored and embedded with the default model (the normal jobs). Then, with the
extractive summarizer and the default model:

  first build     the tree built from nothing (every cluster summarized, every summary embedded)
  rebuild         the same corpus again: every node's members unchanged, so every summary and
                  vector is kept (no summarizer or model call)
  baseline        the default model embedding the same paragraphs' texts, timed on `--sample`
                  paragraphs taken evenly across the corpus and scaled to all of them (what
                  ingest already pays)

Each build is split into summarizer time, embedder time and the rest (reading the vectors,
clustering, writing the rows).

The docs corpus carries no claims (nothing extracts them at ingest), so for communities and
profiles `--claims` world claims are written into the same context through `Tabane.add_claims`
between the corpus's most frequent words (recall_latency.py's generator: endpoints skewed to the
frequent words, one claim in ten negative), and then:

  communities     Louvain over the netted graph and the `edges-v1` summaries (no model)
  profiles        the 200 heaviest concepts' profiles, extractive summaries, embedded
  baseline        writing those claims (`add_claims` in batches of 10,000)

    .venv/bin/python bench/derive_build.py --paragraphs 10000 --claims 20000 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _env
from recall_latency import claim_rows
from sqlalchemy import delete, select

from tabane.config import Settings
from tabane.contexts import contexts
from tabane.derive import profiles
from tabane.derive.communities import communities
from tabane.derive.raptor import tree as raptor
from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput
from tabane.models.extractive import ExtractiveSummarizer
from tabane.models.local import UseEmbedder
from tabane.models.summarizer import Member, Summary
from tabane.service import Tabane
from tabane.storage import embedded
from tabane.storage.schema import Paragraph, RaptorNode

ROOT = Path("/usr/share/doc/python3.11/html")
WORD = re.compile(r"[A-Za-z][A-Za-z_]{3,}")
SKIP = ("search.html", "py-modindex.html", "contents.html")


def files() -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*.html")
        if not p.relative_to(ROOT).as_posix().startswith(("_sources/", "_static/"))
        and not p.name.startswith("genindex")
        and p.name not in SKIP
    )


class Timed:
    """Wraps the summarizer or the embedder, adding up the seconds spent in it."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.seconds, self.calls = inner, 0.0, 0
        self.name = inner.name
        self.dim = getattr(inner, "dim", 0)

    def summarize(
        self, members: Sequence[Member], *, budget_chars: int, language_hint: str | None = None
    ) -> Summary:
        started = time.perf_counter()
        out: Summary = self.inner.summarize(members, budget_chars=budget_chars)
        self.seconds += time.perf_counter() - started
        self.calls += 1
        return out

    def embed_documents(self, texts: Sequence[str]) -> Any:
        started = time.perf_counter()
        out = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - started
        self.calls += 1
        return out

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def graph_builds(svc: Any, user: Any, texts: Sequence[str], args: Any, model: Any) -> Any:
    """Communities and profiles over `--claims` claims between the corpus's frequent words,
    against writing those claims."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(w.lower() for w in WORD.findall(text))
    names = [w for w, _ in counts.most_common(args.concepts)]
    rows = claim_rows(names, args.claims)
    started = time.perf_counter()
    for i in range(0, len(rows), 10_000):
        svc.add_claims(user, "py", parse_claims(rows[i : i + 10_000]))
    write_s = time.perf_counter() - started
    out: dict[str, Any] = {"claims": len(rows), "concepts": len(names)}
    out["write_s"] = round(write_s, 2)
    for kind in ("communities", "profiles"):
        with svc.store.session(user) as session:
            ctx = contexts.resolve(session, "py")
            started = time.perf_counter()
            if kind == "communities":
                built: Any = communities.build(session, ctx)
                size = {"levels": list(built.communities), "edges": built.edges}
            else:
                built = profiles.build(session, ctx, ExtractiveSummarizer(), model)
                size = {"profiles": built.concepts}
            total = time.perf_counter() - started
        row = {
            **size,
            "total_s": round(total, 2),
            "per_10k_claims_s": round(total * 10_000 / len(rows), 2),
            "ratio_to_writes": round(total / write_s, 3),
        }
        out[kind] = row
        print(kind, json.dumps(row), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paragraphs", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=1_000)
    ap.add_argument("--claims", type=int, default=20_000)
    ap.add_argument("--concepts", type=int, default=5_000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    report: dict[str, Any] = {"env": _env.describe(), "paragraphs_wanted": args.paragraphs}
    print(json.dumps(report["env"]), flush=True)
    with tempfile.TemporaryDirectory(prefix="derive-bench-") as tmp:
        settings = Settings(home=Path(tmp), local_user="bench", embedder="none", worker="off")
        base = Tabane.open(settings)
        try:
            model = UseEmbedder()
            svc = Tabane.build(base.store, settings, model)
            svc.add_user("bench")
            user = svc.principal("bench")
            svc.create_context(user, "py")
            stored, started = 0, time.perf_counter()
            for path in files():
                if stored >= args.paragraphs:
                    break
                doc = DocumentInput(
                    path.relative_to(ROOT).as_posix(), data=path.read_bytes(), format="html"
                )
                stored += svc.ingest(user, "py", doc).paragraphs
            report["ingest_s"] = round(time.perf_counter() - started, 1)
            started = time.perf_counter()
            svc.wait_for_jobs(timeout=6000)  # the embeddings (and the background tree)
            report["jobs_s"] = round(time.perf_counter() - started, 1)
            report["paragraphs"] = stored
            print(f"stored {stored} paragraphs", flush=True)
            with svc.store.session(user) as session:
                ctx = contexts.resolve(session, "py")
                session.execute(delete(RaptorNode).where(RaptorNode.context_id == ctx.id))
                texts = session.scalars(select(Paragraph.text).order_by(Paragraph.id)).all()
            sample = texts[:: max(1, len(texts) // args.sample)][: args.sample]  # spread out
            started = time.perf_counter()
            for i in range(0, len(sample), 64):
                model.embed_documents(sample[i : i + 64])
            per = (time.perf_counter() - started) / max(len(sample), 1)
            for run in ("first build", "rebuild"):
                summ, emb = Timed(ExtractiveSummarizer()), Timed(model)
                with svc.store.session(user) as session:
                    ctx = contexts.resolve(session, "py")
                    started = time.perf_counter()
                    built = raptor.build(session, ctx, summ, emb)
                    total = time.perf_counter() - started
                baseline = per * built.leaves
                row = {
                    "leaves": built.leaves,
                    "nodes": list(built.nodes),
                    "reused": built.reused,
                    "total_s": round(total, 2),
                    "summarizer_s": round(summ.seconds, 2),
                    "summarizer_calls": summ.calls,
                    "embedder_s": round(emb.seconds, 2),
                    "rest_s": round(total - summ.seconds - emb.seconds, 2),
                    "per_10k_s": round(total * 10_000 / max(built.leaves, 1), 1),
                    "baseline_embed_s": round(baseline, 1),
                    "ratio_to_baseline": round(total / baseline, 3) if baseline else None,
                }
                report[run] = row
                print(run, json.dumps(row), flush=True)
            report["graph"] = graph_builds(svc, user, texts, args, model)
        finally:
            base.close()
            embedded.stop(Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
