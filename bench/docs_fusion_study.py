"""The fusion study of docs/decisions/0005: the docs dev sets' lanes recomputed offline from a dump
of an eval store (bench/docs_study_dump.py), every method on the same lanes in one run.

BM25 is tabane's formula over the same index terms (text + title + section path + questions, one
length normalisation); the vector lane is the exact cosine over the stored vectors (the store's
HNSW gives the same top 10s up to ties). It checks itself: the `rrf-surface` row must reproduce
`tabane eval docs`'s fused row of the code before the change (0.756 / 0.542 / 0.604 / 0.855 /
0.864 on the store of docs/journal/eval.md; HNSW moves gitdocs by 0.002).

    python bench/docs_study_dump.py "$TABANE_HOME" /tmp/rankstudy ../shared/eval/dev
    python bench/docs_fusion_study.py /tmp/rankstudy [--grid]

Prints document-level nDCG@10 (section-level too for the sets that name sections) per set and
method, paired wins/losses with a sign-flip randomisation p against the chosen method, and with
--grid the lane weight × heading weight grid with a 2-fold cross-validation on the older sets.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tabane.search.fuse import share
from tabane.text.analyze import index_terms
from tabane.text.tokenize import tokenize

SETS = ["pydocs", "gitdocs", "manpages-ja", "handbook", "maintguide-ja"]
OLD = SETS[:3]  # developed on; the DocBook sets confirm
POOL = 400
Analyzer = Callable[[str], list[str]]


class Corpus:
    def __init__(self, root: Path, name: str) -> None:
        dump = json.loads((root / f"{name}.json").read_text())
        arrays = np.load(root / f"{name}.npz")
        self.paras, self.questions = dump["paragraphs"], dump["questions"]
        vecs, qv = arrays["vecs"], arrays["qv"]
        self.vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)
        self.qv = qv / np.linalg.norm(qv, axis=1, keepdims=True)
        self.doc = [p["source"] for p in self.paras]
        self.sect = [
            f"{p['source']}#{(p['locator'] or {}).get('value', '')}"
            if (p["locator"] or {}).get("kind") == "anchor"
            else f"{p['source']}#"
            for p in self.paras
        ]


class BM25:
    def __init__(self, c: Corpus, analyze: Analyzer, heading: float = 1.0, headings: bool = True):
        self.analyze = analyze
        post: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self.dl = np.zeros(len(c.paras))
        for i, p in enumerate(c.paras):
            tf: Counter[str] = Counter(analyze(p["text"]))
            for q in p["questions"]:
                tf.update(analyze(q))
            if headings:
                for h in ([p["title"]] if p["title"] else []) + p["section"]:
                    for t in analyze(h):
                        tf[t] += heading
            self.dl[i] = sum(tf.values())
            for t, n in tf.items():
                post[t].append((i, n))
        self.post = {
            t: (np.array([i for i, _ in v]), np.array([n for _, n in v])) for t, v in post.items()
        }
        self.n, self.avgdl = len(c.paras), float(self.dl.mean())

    def scores(self, query: str) -> np.ndarray:
        s = np.zeros(self.n)
        for t in dict.fromkeys(self.analyze(query)):
            if t in self.post:
                ids, tf = self.post[t]
                idf = math.log(1 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
                s[ids] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * self.dl[ids] / self.avgdl))
        return s


def top(scores: np.ndarray, n: int, positive: bool = True) -> list[int]:
    idx = np.flatnonzero(scores > 0) if positive else np.arange(len(scores))
    if len(idx) > n:
        idx = idx[np.argpartition(-scores[idx], n - 1)[:n]]
    return [int(i) for i in idx[np.lexsort((idx, -scores[idx]))]]


def rrf(lists: list[list[int]], k: int = 60) -> list[int]:
    acc: dict[int, float] = defaultdict(float)
    best: dict[int, int] = {}
    for lst in lists:
        for r, x in enumerate(lst, start=1):
            acc[x] += 1 / (k + r)
            best[x] = min(best.get(x, r), r)
    return sorted(acc, key=lambda x: (-acc[x], best[x], x))


def score_share(
    b: list[int], bs: np.ndarray, v: list[int], vs: np.ndarray, alpha: float = 0.5
) -> list[int]:
    """search/fuse.py `combine` (alpha 0.5 = the average), on the lanes' pools."""
    acc: dict[int, float] = defaultdict(float)
    best: dict[int, int] = {}
    for w, lst, sc in ((alpha, b, bs), (1 - alpha, v, vs)):
        top_score = float(sc[lst[0]]) if lst else 0.0
        for r, i in enumerate(lst, start=1):
            acc[i] += w * share(float(sc[i]), top_score)
            best[i] = min(best.get(i, r), r)
    return sorted(acc, key=lambda x: (-acc[x], best[x], x))


def firsts(keys: object) -> list[str]:
    return list(dict.fromkeys(keys))  # type: ignore[call-overload]


def ndcg(ranking: list[str], rel: dict[str, int]) -> float:
    dcg = lambda gs: sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(gs[:10]))  # noqa: E731
    return dcg([rel.get(d, 0) for d in ranking]) / dcg(sorted(rel.values(), reverse=True))


def section_ndcg(ranking: list[str], gold: str) -> float:
    return next((1 / math.log2(i + 2) for i, s in enumerate(ranking[:10]) if s == gold), 0.0)


def paired(a: list[float], b: list[float], draws: int = 20000) -> str:
    d = np.asarray(a) - np.asarray(b)
    signs = np.random.default_rng(1).choice([-1, 1], size=(draws, len(d)))
    p = float((np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-12).mean())
    return f"{int((d > 1e-9).sum())}/{int((d < -1e-9).sum())} Δ{d.mean():+.3f} p{p:.3f}"


def methods(c: Corpus) -> dict[str, tuple[list[float], list[float]]]:
    stemmed, surface = BM25(c, index_terms), BM25(c, tokenize)
    naive = BM25(c, tokenize, headings=False)
    out: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for qi, q in enumerate(c.questions):
        vs = c.vecs @ c.qv[qi]
        v = top(vs, POOL, positive=False)
        sb, ob, nb = (m.scores(q["question"]) for m in (stemmed, surface, naive))
        ranks = {
            "score-share (chosen)": score_share(top(sb, POOL), sb, v, vs),
            "rrf-surface (before)": rrf([top(ob, POOL), v]),
            "rrf-stems": rrf([top(sb, POOL), v]),
            "score-share-surface": score_share(top(ob, POOL), ob, v, vs),
            "bm25 stems": top(sb, POOL),
            "bm25 surface": top(ob, POOL),
            "vector": v,
            "naive rrf": rrf([top(nb, POOL), v]),
        }
        for name, r in ranks.items():
            out[name][0].append(ndcg(firsts(c.doc[i] for i in r), q["relevant"]))
            if "section" in q:
                out[name][1].append(section_ndcg(firsts(c.sect[i] for i in r), q["section"]))
    return out


def grid(root: Path) -> None:
    """Lane weight alpha (BM25's) × heading weight, per set; then a 2-fold cross-validation over
    the older sets' questions (20 random halvings): the cell chosen on one half, scored on the
    other, against the untuned cell (alpha 0.5, heading 1)."""
    cells = [(a, h) for a in (0.3, 0.4, 0.5, 0.6, 0.7) for h in (0.5, 1.0, 2.0)]
    per: dict[tuple[str, float, float], np.ndarray] = {}
    for name in SETS:
        c = Corpus(root, name)
        for h in (0.5, 1.0, 2.0):
            bm = BM25(c, index_terms, heading=h)
            lanes = []
            for qi, q in enumerate(c.questions):
                vs, bs = c.vecs @ c.qv[qi], bm.scores(q["question"])
                lanes.append((top(bs, POOL), bs, top(vs, POOL, positive=False), vs))
            for a in (0.3, 0.4, 0.5, 0.6, 0.7):
                per[(name, a, h)] = np.array(
                    [
                        ndcg(firsts(c.doc[i] for i in score_share(b, bs, v, vs, a)), q["relevant"])
                        for q, (b, bs, v, vs) in zip(c.questions, lanes, strict=True)
                    ]
                )
    for a, h in cells:
        print(f"alpha {a} heading {h}: " + " ".join(f"{per[(n, a, h)].mean():.3f}" for n in SETS))
    rng = np.random.default_rng(7)
    held: dict[str, list[float]] = {n: [] for n in OLD}
    for _ in range(20):
        halves = {n: np.array_split(rng.permutation(len(per[(n, 0.5, 1.0)])), 2) for n in OLD}
        for tune, test in ((0, 1), (1, 0)):
            best = max(
                cells, key=lambda ah: np.mean([per[(n, *ah)][halves[n][tune]].mean() for n in OLD])
            )
            for n in OLD:
                held[n].append(float(per[(n, *best)][halves[n][test]].mean()))
    for n in OLD:
        print(
            f"{n}: cross-validated {np.mean(held[n]):.3f}, untuned {per[(n, 0.5, 1.0)].mean():.3f}"
        )


def main(root: Path) -> None:
    for name in SETS:
        rows = methods(Corpus(root, name))
        chosen = rows["score-share (chosen)"]
        print(f"\n{name}")
        for method, (doc, sec) in rows.items():
            line = f"  {method:22s} nDCG@10 {np.mean(doc):.3f}"
            if sec:
                line += f"  section {np.mean(sec):.3f}"
            if method != "score-share (chosen)":
                line += f"   chosen vs it: {paired(chosen[0], doc)}"
                if sec:
                    line += f"  section {paired(chosen[1], sec)}"
            print(line, flush=True)


if __name__ == "__main__":
    (grid if "--grid" in sys.argv[2:] else main)(Path(sys.argv[1]))
