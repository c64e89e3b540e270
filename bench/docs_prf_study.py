"""Pseudo-relevance feedback on the docs dev sets (issue 29, the query side; decision 0036),
offline over a dump of an eval store (bench/docs_study_dump.py), on the lanes of
bench/docs_fusion_study.py (which reproduce the shipped fused row).

- vector feedback (Rocchio): q' = q + beta * mean of the first k results' paragraph vectors, then
  the vector lane again (exact cosine);
- lexical feedback (RM3-like): the top TERMS terms of the first k results, weighted by
  sum over those paragraphs of tf / length x idf (terms of the question and terms in more than a
  tenth of the paragraphs left out), added to the BM25 query with total weight w x the question's
  term count (each question term weighs 1);
- both; feedback taken from the fused list ("fused") or from each lane's own list ("lane").

Then score-share fusion again. Every (source, k, beta, w) cell per question is scored in one run:

    python bench/docs_prf_study.py run DUMP OUT [SET ...]    # per-set tables to OUT/<set>.npz
    python bench/docs_prf_study.py report OUT                 # cross-validation + confirmation
    python bench/docs_prf_study.py split OUT                  # gains and losses by today's nDCG

k, beta and w are chosen by two-fold cross-validation (20 random halvings) on the older three sets,
then chosen on all of their questions and applied unchanged to handbook and maintguide-ja (doc and
section level); paired wins/losses and a sign-flip randomisation p against today's fusion.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from docs_fusion_study import (
    BM25,
    OLD,
    POOL,
    SETS,
    Corpus,
    firsts,
    ndcg,
    paired,
    rrf,
    score_share,
    section_ndcg,
    top,
)

from tabane.text.analyze import index_terms
from tabane.text.tokenize import tokenize

KS = (3, 5, 10)
BETAS = (0.0, 0.25, 0.5, 1.0, 2.0)
WS = (0.0, 0.1, 0.25, 0.5, 1.0)
SOURCES = ("fused", "lane")
TERMS = 10
CELLS = list(itertools.product(SOURCES, KS, BETAS, WS))
FIXED = ("fused", "bm25", "vector", "naive rrf")


def expansion(bm: BM25, c: Corpus, fed: list[int], query: str) -> np.ndarray:
    """The BM25 scores of the feedback terms of paragraphs `fed`, weights summing to 1."""
    asked = set(bm.analyze(query))
    weight: Counter[str] = Counter()
    for i in fed:
        p = c.paras[i]
        terms = bm.analyze(" ".join([p["text"], p["title"] or "", *p["section"]]))
        for t, n in Counter(terms).items():
            df = len(bm.post[t][0]) if t in bm.post else 0
            if t in asked or df == 0 or df > bm.n / 10:
                continue
            weight[t] += n / len(terms) * math.log(1 + (bm.n - df + 0.5) / (df + 0.5))
    chosen = weight.most_common(TERMS)
    total = sum(w for _, w in chosen) or 1.0
    s = np.zeros(bm.n)
    for t, w in chosen:
        ids, tf = bm.post[t]
        idf = math.log(1 + (bm.n - len(ids) + 0.5) / (len(ids) + 0.5))
        s[ids] += w / total * idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * bm.dl[ids] / bm.avgdl))
    return s


def mean_vec_scores(c: Corpus, fed: list[int]) -> np.ndarray:
    m = c.vecs[fed].mean(axis=0)
    return c.vecs @ (m / max(float(np.linalg.norm(m)), 1e-9))


def one_question(c: Corpus, bm: BM25, naive: BM25, qi: int) -> dict[object, tuple[float, float]]:
    q = c.questions[qi]
    vs, bs = c.vecs @ c.qv[qi], bm.scores(q["question"])
    v, b = top(vs, POOL, positive=False), top(bs, POOL)
    fused = score_share(b, bs, v, vs)
    nq = max(len(set(bm.analyze(q["question"]))), 1)

    def measure(r: list[int]) -> tuple[float, float]:
        sec = section_ndcg(firsts(c.sect[i] for i in r), q["section"]) if "section" in q else 0.0
        return ndcg(firsts(c.doc[i] for i in r), q["relevant"]), sec

    nb = naive.scores(q["question"])
    out: dict[object, tuple[float, float]] = {
        "fused": measure(fused),
        "bm25": measure(b),
        "vector": measure(v),
        "naive rrf": measure(rrf([top(nb, POOL), v])),
    }
    for source, k in itertools.product(SOURCES, KS):
        vfed, bfed = (fused[:k], fused[:k]) if source == "fused" else (v[:k], b[:k])
        mv = mean_vec_scores(c, vfed)
        ex = expansion(bm, c, bfed, q["question"]) if bfed else np.zeros(bm.n)
        for beta, w in itertools.product(BETAS, WS):
            vs2 = vs + beta * mv
            bs2 = bs + w * nq * ex
            r = score_share(top(bs2, POOL), bs2, top(vs2, POOL, positive=False), vs2)
            out[(source, k, beta, w)] = measure(r)
    return out


def run(dump: Path, out: Path, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        c = Corpus(dump, name)
        bm, naive = BM25(c, index_terms), BM25(c, tokenize, headings=False)
        rows = [one_question(c, bm, naive, qi) for qi in range(len(c.questions))]
        keys = [*FIXED, *CELLS]
        doc = np.array([[r[k][0] for k in keys] for r in rows])
        sec = np.array([[r[k][1] for k in keys] for r in rows])
        has_sec = all("section" in q for q in c.questions)
        np.savez(out / f"{name}.npz", doc=doc, sec=sec, has_sec=has_sec)
        base = doc[:, 0].mean()
        best = max(range(len(FIXED), len(keys)), key=lambda j: doc[:, j].mean())
        print(f"{name}: fused {base:.3f}, best cell {keys[best]} {doc[:, best].mean():.3f}")


def load(out: Path) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    tables = {}
    for name in SETS:
        z = np.load(out / f"{name}.npz")
        tables[name] = (z["doc"], z["sec"] if bool(z["has_sec"]) else None)
    return tables


def col(cell: object) -> int:
    keys = [*FIXED, *CELLS]
    return keys.index(cell)


def families() -> dict[str, list[tuple[str, int, float, float]]]:
    """The variants: each a set of cells cross-validation chooses among."""
    fams: dict[str, list[tuple[str, int, float, float]]] = {}
    for src in SOURCES:
        fams[f"vector feedback, from {src}"] = [c for c in CELLS if c[0] == src and c[3] == 0]
        fams[f"lexical feedback, from {src}"] = [c for c in CELLS if c[0] == src and c[2] == 0]
        fams[f"both, from {src}"] = [c for c in CELLS if c[0] == src]
    return fams


def crossval(tables: dict, cells: list) -> tuple[dict[str, float], dict[str, float]]:
    """Two-fold cross-validation on the older sets: the cell chosen on one half (mean over the
    three sets), scored on the other; 20 halvings. Returns held-out and today's fused means."""
    rng = np.random.default_rng(7)
    held: dict[str, list[float]] = {n: [] for n in OLD}
    base: dict[str, list[float]] = {n: [] for n in OLD}
    for _ in range(20):
        halves = {n: np.array_split(rng.permutation(len(tables[n][0])), 2) for n in OLD}
        for tune, test in ((0, 1), (1, 0)):
            best = max(
                cells,
                key=lambda cl: np.mean(
                    [tables[n][0][halves[n][tune], col(cl)].mean() for n in OLD]
                ),
            )
            for n in OLD:
                held[n].append(float(tables[n][0][halves[n][test], col(best)].mean()))
                base[n].append(float(tables[n][0][halves[n][test], 0].mean()))
    return {n: float(np.mean(v)) for n, v in held.items()}, {
        n: float(np.mean(v)) for n, v in base.items()
    }


def report(out: Path) -> None:
    tables = load(out)
    print("today: " + "  ".join(f"{n} {tables[n][0][:, 0].mean():.3f}" for n in SETS))
    oracle(tables)
    shape(tables)
    for fam, cells in families().items():
        held, base = crossval(tables, cells)
        chosen = max(cells, key=lambda cl: np.mean([tables[n][0][:, col(cl)].mean() for n in OLD]))
        print(f"\n{fam}: chosen on all older questions {chosen}")
        print(
            "  cross-validated (older): "
            + "  ".join(f"{n} {held[n]:.3f} (today {base[n]:.3f})" for n in OLD)
        )
        for n in SETS:
            doc, sec = tables[n]
            j = col(chosen)
            new, lane = doc[:, j].mean(), max(doc[:, 1].mean(), doc[:, 2].mean())
            line = f"  {n:14s} {doc[:, 0].mean():.3f} → {new:.3f} {paired(doc[:, j], doc[:, 0])}"
            line += f"  lead over better lane {new - lane:+.3f}"
            line += f", over naive rrf {new - doc[:, 3].mean():+.3f}"
            if sec is not None:
                line += f" | section {sec[:, 0].mean():.3f} → {sec[:, j].mean():.3f}"
                line += f" {paired(sec[:, j], sec[:, 0])}"
            print(line)


def oracle(tables: dict) -> None:
    """An upper bound, not a result: the best cell chosen on each set's own questions."""
    print("oracle (best cell of each set's own questions; lead over the better lane / naive rrf):")
    for n in SETS:
        doc = tables[n][0]
        j = max(range(len(FIXED), doc.shape[1]), key=lambda j: doc[:, j].mean())
        best, lane = doc[:, j].mean(), max(doc[:, 1].mean(), doc[:, 2].mean())
        print(
            f"  {n:14s} {doc[:, 0].mean():.3f} → {best:.3f} {[*FIXED, *CELLS][j]}"
            f"  lead {best - lane:+.3f} / {best - doc[:, 3].mean():+.3f}"
        )


def shape(tables: dict) -> None:
    """Every set's mean along each axis at k 5, the other feedback off."""
    print("k 5, one kind of feedback at a time (doc nDCG@10 per set):")
    for src in SOURCES:
        for what, cells in (
            ("beta", [(src, 5, b, 0.0) for b in BETAS[1:]]),
            ("w", [(src, 5, 0.0, w) for w in WS[1:]]),
        ):
            for cl in cells:
                value = cl[2] if what == "beta" else cl[3]
                means = "  ".join(f"{tables[n][0][:, col(cl)].mean():.3f}" for n in SETS)
                print(f"  from {src:5s} {what:4s} {value:<4}: {means}")


def split(out: Path) -> None:
    """Where the chosen cells win and lose: questions today misses (nDCG 0), ranks partly, and
    ranks perfectly, with better/worse counts and mean Δ in each group."""
    tables = load(out)
    for cell in (("fused", 10, 1.0, 0.0), ("lane", 10, 0.0, 0.1), ("fused", 5, 0.0, 0.25)):
        print(cell)
        for n in SETS:
            today, new = tables[n][0][:, 0], tables[n][0][:, col(cell)]
            groups = (("missed", today == 0), ("partial", (today > 0) & (today < 0.999)))
            parts = []
            for name, m in (*groups, ("perfect", today >= 0.999)):
                d = new[m] - today[m]
                mean = d.mean() if m.any() else 0.0
                parts.append(
                    f"{name} {m.sum()}: {(d > 1e-9).sum()}/{(d < -1e-9).sum()} Δ{mean:+.3f}"
                )
            print(f"  {n:14s} " + " | ".join(parts))


def main(argv: list[str]) -> None:
    if argv[0] == "run":
        run(Path(argv[1]), Path(argv[2]), argv[3:] or SETS)
    elif argv[0] == "split":
        split(Path(argv[1]))
    else:
        report(Path(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
