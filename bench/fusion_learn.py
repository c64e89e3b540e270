"""The learned fusion of issue 29 item 4: train a linear pairwise ranker over the two lanes'
features on synthetic questions (bench/fusion_synth.py) and score it on the docs dev sets
(bench/docs_study_dump.py), which are never training data.

Each candidate is a paragraph in either lane's pool of 400 (the lanes of bench/docs_fusion_study.py:
tabane's BM25 over stems with headings, the exact cosine). Its features (`FEATURES`): each lane's
score share and rank, whether both lanes found it, its section's and document's best and summed
shares (fusion at the section level, issue item 1), how much of the question its title and
section path hold, code or text, its length and its page's. The model is w · features; a
pair (a paragraph of the answer section, one that is not) is a logistic loss on the difference.
The L2 strength is chosen by leave-one-corpus-out over the synthetic corpora.

    .venv/bin/python bench/fusion_learn.py /tmp/fusion-synth /tmp/rankstudy [--weights out.json]

Prints the synthetic cross-validation, then per dev set document (and section) nDCG@10 of score
shares (today's fusion) and the learned ranker, with paired wins/losses and a randomisation p.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docs_fusion_study import BM25, POOL, SETS, Corpus, firsts, ndcg, paired, score_share, top

from tabane.text.analyze import index_terms

FEATURES = (
    "bm25_share",
    "vector_share",
    "bm25_rank",
    "vector_rank",
    "both",
    "section_bm25_best",
    "section_vector_best",
    "section_bm25_sum",
    "section_vector_sum",
    "document_bm25_best",
    "document_vector_best",
    "title_hit",
    "section_hit",
    "code",
    "length",
    "page_length",
)
L2S = (0.001, 0.01, 0.1, 1.0, 10.0)
FIXED = False  # --fixed-lanes
GROUPS: tuple[tuple[int, ...], ...] = ()  # --symmetric


@dataclass
class Query:
    x: np.ndarray  # candidates × features
    cand: np.ndarray  # paragraph index of each candidate
    gold: np.ndarray  # bool per candidate: in the answer section (synthetic) — empty for dev
    base: list[int]  # today's score-share order
    kind: str = ""  # a synthetic question's kind: heading or sentence


class Lanes:
    """One corpus's lanes and the per-paragraph data the features need."""

    def __init__(self, c: Corpus) -> None:
        self.c, self.bm = c, BM25(c, index_terms)
        units = [(p["source"], tuple(p["section"])) for p in c.paras]
        self.unit = np.unique(np.array([hash(u) for u in units]), return_inverse=True)[1]
        self.docid = np.unique(np.array(c.doc), return_inverse=True)[1]
        pages = np.bincount(self.docid)
        self.page_len = np.log1p(pages[self.docid]) / 8
        self.length = np.array([math.log1p(len(p["text"])) / 8 for p in c.paras])
        self.code = np.array([p["kind"] == "code" for p in c.paras], dtype=float)
        self.title_terms = [set(index_terms(p["title"] or "")) for p in c.paras]
        self.path_terms = [set(index_terms(" ".join(p["section"]))) for p in c.paras]

    def query(self, qi: int) -> Query:
        c, q = self.c, self.c.questions[qi]
        vs, bs = c.vecs @ c.qv[qi], self.bm.scores(q["question"])
        b, v = top(bs, POOL), top(vs, POOL, positive=False)
        cand = np.array(sorted(set(b) | set(v)))
        pos = {int(i): k for k, i in enumerate(cand)}
        x = np.zeros((len(cand), len(FEATURES)))
        for col, lane, sc in ((0, b, bs), (1, v, vs)):
            best = max(float(sc[lane[0]]), 1e-9) if lane else 1.0
            for r, i in enumerate(lane, start=1):
                x[pos[i], col] = max(float(sc[i]), 0.0) / best
                x[pos[i], col + 2] = 1 / math.log2(1 + r)
        x[:, 4] = (x[:, 2] > 0) & (x[:, 3] > 0)
        for ids, col in ((self.unit[cand], 5), (self.docid[cand], 9)):
            inv = np.unique(ids, return_inverse=True)[1]
            for k in (0, 1):
                best = np.zeros(inv.max() + 1)
                np.maximum.at(best, inv, x[:, k])
                x[:, col + k] = best[inv]
                if col == 5:
                    total = np.zeros(inv.max() + 1)
                    np.add.at(total, inv, x[:, k])
                    x[:, 7 + k] = np.log1p(total[inv]) / 3
        terms = set(index_terms(q["question"]))
        n = max(len(terms), 1)
        x[:, 11] = [len(terms & self.title_terms[i]) / n for i in cand]
        x[:, 12] = [len(terms & self.path_terms[i]) / n for i in cand]
        x[:, 13], x[:, 14], x[:, 15] = self.code[cand], self.length[cand], self.page_len[cand]
        gold = np.zeros(len(cand), dtype=bool)
        if "path" in q:
            want = q["path"]
            gold = np.array([[c.paras[i]["source"], *c.paras[i]["section"]] == want for i in cand])
        return Query(x, cand, gold, score_share(b, bs, v, vs), q.get("kind", ""))


def load(root: Path, name: str) -> list[Query]:
    """The questions' candidates and features, cached beside the dump (`<name>.features.pkl`)."""
    cache = root / f"{name}.features.pkl"
    if cache.exists():
        return pickle.loads(cache.read_bytes())  # type: ignore[no-any-return]
    lanes = Lanes(Corpus(root, name))
    qs = [lanes.query(qi) for qi in range(len(lanes.c.questions))]
    cache.write_bytes(pickle.dumps(qs))
    return qs


def pairs(qs: list[Query], rng: np.random.Generator) -> np.ndarray:
    """x(answer) − x(other) for the answer's best 3 paragraphs by score share against today's
    first 30 others and 20 random others."""
    out = []
    for q in qs:
        if not q.gold.any():
            continue
        where = {int(p): k for k, p in enumerate(q.cand)}
        order = np.array([where[i] for i in q.base])
        good = [k for k in order if q.gold[k]][:3]
        bad = [k for k in order if not q.gold[k]]
        neg = bad[:30] + list(rng.choice(bad[30:], min(20, len(bad[30:])), replace=False))
        out.extend(q.x[g] - q.x[n] for g in good for n in neg)
    return np.array(out)


# --symmetric: the lanes weigh the same in every feature (one weight per pair of lane features),
# the field hits are not learned: what is learned is the section and page level, not lane balance.
SYMMETRIC = ((2, 3), (4,), (5, 6), (7, 8), (9, 10), (13,), (14,), (15,))


def fit(diff: np.ndarray, l2: float, steps: int = 400) -> np.ndarray:
    """Logistic loss of w · diff (all pairs right-ordered), L2 on w − ANCHOR, Newton steps
    (convex, small). With FIXED, the lanes' shares keep today's weights (1, 1: the average) and
    only the other features (GROUPS of them sharing a weight) are learned, shrunk towards today's
    fusion."""
    anchor = np.zeros(diff.shape[1])
    anchor[:2] = 1.0
    groups = GROUPS or tuple((k,) for k in range(2 if FIXED else 0, diff.shape[1]))
    mix = np.zeros((diff.shape[1], len(groups)))
    for g, cols in enumerate(groups):
        mix[list(cols), g] = 1.0
    base = anchor.copy()
    base[[k for cols in groups for k in cols]] = 0.0
    off, d = diff @ base, diff @ mix
    v = mix.T @ anchor / np.maximum(mix.sum(0), 1)
    for _ in range(steps // 20):
        p = 1 / (1 + np.exp(np.clip(off + d @ v, -30, 30)))
        grad = -(d * p[:, None]).mean(0) + l2 * (v - mix.T @ anchor / np.maximum(mix.sum(0), 1))
        hess = (d * (p * (1 - p))[:, None]).T @ d / len(d) + l2 * np.eye(len(groups))
        v -= np.linalg.solve(hess, grad)
    return base + mix @ v


def order(q: Query, w: np.ndarray) -> list[int]:
    s = q.x @ w
    return [int(q.cand[k]) for k in np.lexsort((q.cand, -s))]


def synth_score(qs: list[Query], w: np.ndarray) -> float:
    hits = []
    for q in qs:
        ranked = order(q, w)
        gold = {int(p) for p, g in zip(q.cand, q.gold, strict=True) if g}
        hits.append(next((1 / math.log2(k + 2) for k, p in enumerate(ranked[:10]) if p in gold), 0))
    return float(np.mean(hits))


def folds(synth: dict[str, list[Query]]) -> Iterator[tuple[str, list[Query], list[Query]]]:
    for held in synth:
        if not synth[held]:
            continue
        train = [q for n, qs in synth.items() if n != held for q in qs]
        yield held, train, synth[held]


def cross_validate(synth: dict[str, list[Query]], rng: np.random.Generator) -> float:
    totals = {l2: [] for l2 in L2S}
    base_all = []
    for held, train, test in folds(synth):
        diff = pairs(train, rng)
        base = synth_score(test, np.eye(len(FEATURES))[0] + np.eye(len(FEATURES))[1])
        base_all.append(base)
        line = f"  held out {held:26s} score share {base:.3f}"
        for l2 in L2S:
            s = synth_score(test, fit(diff, l2))
            totals[l2].append(s)
            line += f"  l2 {l2}: {s:.3f}"
        print(line, flush=True)
    print(
        f"  mean: score share {np.mean(base_all):.3f}  "
        + "  ".join(f"l2 {l2}: {np.mean(v):.3f}" for l2, v in totals.items())
    )
    return max(L2S, key=lambda l2: np.mean(totals[l2]))


def evaluate(dev: Path, w: np.ndarray) -> None:
    for name in SETS:
        c = Corpus(dev, name)
        rows: dict[str, tuple[list[float], list[float]]] = {"share": ([], []), "learned": ([], [])}
        for q, query in zip(c.questions, load(dev, name), strict=True):
            for method, ranked in (("share", query.base), ("learned", order(query, w))):
                rows[method][0].append(ndcg(firsts(c.doc[i] for i in ranked), q["relevant"]))
                if "section" in q:
                    secs = firsts(c.sect[i] for i in ranked)
                    hit = next((k for k, s in enumerate(secs[:10]) if s == q["section"]), None)
                    rows[method][1].append(0.0 if hit is None else 1 / math.log2(hit + 2))
        (sd, ss), (ld, ls) = rows["share"], rows["learned"]
        line = f"{name:14s} doc share {np.mean(sd):.3f} learned {np.mean(ld):.3f} {paired(ld, sd)}"
        if ss:
            line += f" | section share {np.mean(ss):.3f} learned {np.mean(ls):.3f} {paired(ls, ss)}"
        print(line, flush=True)


def lanes_alone(synth: dict[str, list[Query]]) -> None:
    """Why a ranker fit to synthetic questions may not carry: how each lane alone does on them."""
    e = np.eye(len(FEATURES))
    for kind in ("heading", "sentence"):
        qs = [q for v in synth.values() for q in v if q.kind == kind]
        if qs:
            bm25, vector, both = (synth_score(qs, w) for w in (e[0], e[1], e[0] + e[1]))
            print(
                f"  synthetic {kind} ({len(qs)}): section nDCG@10 BM25 {bm25:.3f}"
                f" vector {vector:.3f} score share {both:.3f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("synth", type=Path)
    ap.add_argument("dev", type=Path)
    ap.add_argument("--weights", type=Path)
    ap.add_argument("--fixed-lanes", action="store_true")
    ap.add_argument("--symmetric", action="store_true")
    ap.add_argument("--kinds", nargs="*", default=["heading", "sentence"])
    args = ap.parse_args()
    rng = np.random.default_rng(29)
    global FIXED
    FIXED = args.fixed_lanes or args.symmetric
    global GROUPS
    GROUPS = SYMMETRIC if args.symmetric else ()
    names = sorted(p.stem for p in args.synth.glob("*.json"))
    synth = {n: [q for q in load(args.synth, n) if q.kind in args.kinds] for n in names}
    print("synthetic questions:", {n: len(q) for n, q in synth.items()}, flush=True)
    lanes_alone(synth)
    l2 = cross_validate(synth, rng)
    w = fit(pairs([q for qs in synth.values() for q in qs], rng), l2)
    print(f"chosen l2 {l2}; weights:", dict(zip(FEATURES, np.round(w, 3).tolist(), strict=True)))
    if args.weights:
        doc = {"features": list(FEATURES), "weights": w.round(6).tolist(), "l2": l2}
        args.weights.write_text(json.dumps(doc, indent=1) + "\n")
    evaluate(args.dev, w)


if __name__ == "__main__":
    main()
