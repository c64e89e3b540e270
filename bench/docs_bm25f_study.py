"""Issue 29 items 2 and 3, offline: BM25F (title, section path and body as separate fields, each
with its own weight and length normalisation) against today's headings-appended BM25, and
Japanese analysis by SudachiPy against character bigrams, on a dump of an eval store
(bench/docs_study_dump.py). Every method runs on the same paragraphs and the same vectors, fused
with search/fuse.py's score shares over 400-deep pools, as bench/docs_fusion_study.py does.

    python bench/docs_study_dump.py "$TABANE_HOME" /tmp/rankstudy ../shared/eval/dev
    python bench/docs_bm25f_study.py grid /tmp/rankstudy       # BM25F weights, 2-fold CV
    python bench/docs_bm25f_study.py report /tmp/rankstudy T S BT BS   # a cell on all five sets
    python bench/docs_bm25f_study.py japanese /tmp/rankstudy   # Sudachi vs bigrams

BM25F (Robertson, Zaragoza & Taylor 2004): a term's pseudo-frequency in a paragraph is
Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avglen_f) over the fields body (text and doc2query
questions), title (the source's title) and path (the section path), then saturated once:
idf · tf~ · (k1 + 1) / (tf~ + k1). Body weight 1 and b 0.75, as today's lane.
"""

from __future__ import annotations

import math
import pickle
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
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
from tabane.text.tokenize import normalize, tokenize

K1 = 1.2
Analyzer = Callable[[str], list[str]]
Field = tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray]


def _field(texts: Sequence[Sequence[str]], analyze: Analyzer) -> Field:
    post: dict[str, list[tuple[int, int]]] = defaultdict(list)
    lens = np.zeros(len(texts))
    cache: dict[str, Counter[str]] = {}
    for i, parts in enumerate(texts):
        tf: Counter[str] = Counter()
        for part in parts:
            if part not in cache:
                cache[part] = Counter(analyze(part))
            tf.update(cache[part])
        lens[i] = sum(tf.values())
        for t, n in tf.items():
            post[t].append((i, n))
    arrays = {
        t: (np.array([i for i, _ in v]), np.array([n for _, n in v], dtype=float))
        for t, v in post.items()
    }
    return arrays, lens


class BM25F:
    """Body, title and path fields of every paragraph; idf over paragraphs holding the term in
    any field (the same N and df as today's lane)."""

    def __init__(self, c: Corpus, analyze: Analyzer) -> None:
        self.analyze = analyze
        self.n = len(c.paras)
        self.fields = {
            "body": _field([[p["text"], *p["questions"]] for p in c.paras], analyze),
            "title": _field([[p["title"]] if p["title"] else [] for p in c.paras], analyze),
            "path": _field([p["section"] for p in c.paras], analyze),
        }
        self.avg = {f: max(float(lens.mean()), 1e-9) for f, (_, lens) in self.fields.items()}

    def scores(self, query: str, w: dict[str, float], b: dict[str, float]) -> np.ndarray:
        s = np.zeros(self.n)
        for t in dict.fromkeys(self.analyze(query)):
            tf = np.zeros(self.n)
            held = np.zeros(self.n, dtype=bool)
            for f, (post, lens) in self.fields.items():
                if t not in post:
                    continue
                ids, n = post[t]
                held[ids] = True
                if w[f]:
                    tf[ids] += w[f] * n / (1 - b[f] + b[f] * lens[ids] / self.avg[f])
            df = int(held.sum())
            if not df:
                continue
            idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
            s += idf * tf * (K1 + 1) / (tf + K1)
        return s


class SectionSum:
    """The design a per-section field index allows without touching the body packs: the body's
    BM25 (text and questions, its own length) plus `w` times the BM25 of the paragraph's
    section heading (title and path), each saturated apart, the heading field's N, df and
    average length over sections."""

    def __init__(self, c: Corpus, analyze: Analyzer) -> None:
        self.analyze = analyze
        self.n = len(c.paras)
        self.body = _field([[p["text"], *p["questions"]] for p in c.paras], analyze)
        keys = [(p["source"], tuple(p["section"])) for p in c.paras]
        index = {k: i for i, k in enumerate(dict.fromkeys(keys))}
        self.sec_of = np.array([index[k] for k in keys])
        heads = {
            index[k]: [p["title"] or "", *p["section"]] for k, p in zip(keys, c.paras, strict=True)
        }
        self.head = _field([heads[i] for i in range(len(index))], analyze)
        self.ns = len(index)

    def scores(self, query: str, w: float, b: float = 0.75) -> np.ndarray:
        s = np.zeros(self.n)
        hs = np.zeros(self.ns)
        for t in dict.fromkeys(self.analyze(query)):
            for post, lens, n, acc, bb in (
                (*self.body, self.n, s, 0.75),
                (*self.head, self.ns, hs, b),
            ):
                if t in post:
                    ids, tf = post[t]
                    idf = math.log(1 + (n - len(ids) + 0.5) / (len(ids) + 0.5))
                    avg = max(float(lens.mean()), 1e-9)
                    acc[ids] += idf * tf * (K1 + 1) / (tf + K1 * (1 - bb + bb * lens[ids] / avg))
        return s + w * hs[self.sec_of]


def sums(root: Path) -> None:
    for name in SETS:
        c = Corpus(root, name)
        vec = _lanes(c)
        old = BM25(c, index_terms)
        m = SectionSum(c, index_terms)
        rows: dict[str, list] = defaultdict(list)
        for qi, q in enumerate(c.questions):
            v, vs = vec[qi]
            sb = old.scores(q["question"])
            rows["before"].append(
                (_scored(c, score_share(top(sb, POOL), sb, v, vs), q), _scored(c, top(sb, POOL), q))
            )
            for w in (0.25, 0.5, 1.0):
                for b in (0.3, 0.75):
                    sf = m.scores(q["question"], w, b)
                    rows[f"w{w} b{b}"].append(
                        (
                            _scored(c, score_share(top(sf, POOL), sf, v, vs), q),
                            _scored(c, top(sf, POOL), q),
                        )
                    )
        base = rows.pop("before")
        for label, r in rows.items():
            print(f"{name} {label}\n" + _compare(base, r), flush=True)


def _compare(before: list, after: list) -> str:
    """Fused and BM25 nDCG@10 before → after with paired wins/losses and p, per level."""
    lines = []
    for level in (0, 1):
        if before[0][0][level] is None:
            continue
        fb, fa = [r[0][level] for r in before], [r[0][level] for r in after]
        bb, ba = [r[1][level] for r in before], [r[1][level] for r in after]
        lines.append(
            f"  {'doc' if level == 0 else 'section'}:"
            f" fused {np.mean(fb):.3f} -> {np.mean(fa):.3f} ({paired(fa, fb)})"
            f"  bm25 {np.mean(bb):.3f} -> {np.mean(ba):.3f} ({paired(ba, bb)})"
        )
    return "\n".join(lines)


class Headings(BM25):
    """Today's lane with the heading terms appended differently: `once` counts each distinct
    heading term once (a title repeated as the path's first heading is not counted twice);
    `path` leaves out the title when the path's first heading already is it."""

    def __init__(self, c: Corpus, analyze: Analyzer, how: str) -> None:
        self.analyze = analyze
        post: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self.dl = np.zeros(len(c.paras))
        for i, p in enumerate(c.paras):
            tf: Counter[str] = Counter(analyze(p["text"]))
            for q in p["questions"]:
                tf.update(analyze(q))
            heads = ([p["title"]] if p["title"] else []) + p["section"]
            if how == "path" and p["section"] and p["title"] and p["section"][0] == p["title"]:
                heads = heads[1:]
            terms = [t for h in heads for t in analyze(h)]
            tf.update(dict.fromkeys(terms, 1) if how == "once" else Counter(terms))
            self.dl[i] = sum(tf.values())
            for t, n in tf.items():
                post[t].append((i, n))
        self.post = {
            t: (np.array([i for i, _ in v]), np.array([n for _, n in v])) for t, v in post.items()
        }
        self.n, self.avgdl = len(c.paras), float(self.dl.mean())


def headings(root: Path) -> None:
    for name in SETS:
        c = Corpus(root, name)
        vec = _lanes(c)
        lanes = {"before": BM25(c, index_terms)}
        lanes |= {how: Headings(c, index_terms, how) for how in ("once", "path")}
        rows: dict[str, list] = defaultdict(list)
        for qi, q in enumerate(c.questions):
            v, vs = vec[qi]
            for label, m in lanes.items():
                sb = m.scores(q["question"])
                fused = score_share(top(sb, POOL), sb, v, vs)
                rows[label].append((_scored(c, fused, q), _scored(c, top(sb, POOL), q)))
        base = rows.pop("before")
        for label, r in rows.items():
            print(f"{name} headings {label}\n" + _compare(base, r), flush=True)


def _lanes(c: Corpus) -> list[tuple[list[int], np.ndarray]]:
    out = []
    for qi in range(len(c.questions)):
        vs = c.vecs @ c.qv[qi]
        out.append((top(vs, POOL, positive=False), vs))
    return out


def _scored(c: Corpus, ranking: list[int], q: dict) -> tuple[float, float | None]:
    doc = ndcg(firsts(c.doc[i] for i in ranking), q["relevant"])
    sec = section_ndcg(firsts(c.sect[i] for i in ranking), q["section"]) if "section" in q else None
    return doc, sec


WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0)
BS = (0.3, 0.75)


def _cells() -> list[tuple[float, float, float, float]]:
    return [(t, s, bt, bs) for t in WEIGHTS for s in WEIGHTS for bt in BS for bs in BS]


def grid(root: Path, out: Path) -> None:
    """Every cell's per-question fused and BM25 nDCG@10 (doc, section) per set, pickled."""
    per: dict = {}
    for name in SETS:
        c = Corpus(root, name)
        vec = _lanes(c)
        old = BM25(c, index_terms)
        f = BM25F(c, index_terms)
        base: list = []
        for qi, q in enumerate(c.questions):
            sb = old.scores(q["question"])
            v, vs = vec[qi]
            base.append(
                (
                    _scored(c, score_share(top(sb, POOL), sb, v, vs), q),
                    _scored(c, top(sb, POOL), q),
                    _scored(c, v, q),
                )
            )
        per[(name, "before")] = base
        for cell in _cells():
            t, s, bt, bs = cell
            w = {"body": 1.0, "title": t, "path": s}
            b = {"body": 0.75, "title": bt, "path": bs}
            if (not t and bt != BS[0]) or (not s and bs != BS[0]):
                continue  # b of a field weighted 0 changes nothing
            rows = []
            for qi, q in enumerate(c.questions):
                sf = f.scores(q["question"], w, b)
                v, vs = vec[qi]
                rows.append(
                    (
                        _scored(c, score_share(top(sf, POOL), sf, v, vs), q),
                        _scored(c, top(sf, POOL), q),
                    )
                )
            per[(name, cell)] = rows
        print(name, "done", flush=True)
        out.write_bytes(pickle.dumps(per))


def cv(out: Path) -> None:
    per = pickle.loads(out.read_bytes())
    cells = [k[1] for k in per if k[0] == SETS[0] and k[1] != "before"]

    def fused(name: str, cell: object) -> np.ndarray:
        return np.array([r[0][0] for r in per[(name, cell)]])

    ranked = sorted(cells, key=lambda cl: -np.mean([fused(n, cl).mean() for n in OLD]))
    print("before (headings appended):", " ".join(f"{fused(n, 'before').mean():.3f}" for n in SETS))
    for cell in ranked[:12]:
        print(cell, " ".join(f"{fused(n, cell).mean():.3f}" for n in SETS))
    rng = np.random.default_rng(7)
    held: dict[str, list[float]] = {n: [] for n in OLD}
    picks: Counter = Counter()
    for _ in range(20):
        halves = {n: np.array_split(rng.permutation(len(per[(n, "before")])), 2) for n in OLD}
        for tune, test in ((0, 1), (1, 0)):
            best = max(
                cells, key=lambda cl: np.mean([fused(n, cl)[halves[n][tune]].mean() for n in OLD])
            )
            picks[best] += 1
            for n in OLD:
                held[n].append(float(fused(n, best)[halves[n][test]].mean()))
    for n in OLD:
        print(
            f"{n}: cross-validated {np.mean(held[n]):.3f}, before {fused(n, 'before').mean():.3f}"
        )
    print("cells picked:", picks.most_common(5))


def report(root: Path, out: Path, cell: tuple[float, float, float, float]) -> None:
    per = pickle.loads(out.read_bytes())
    for name in SETS:
        before, after = per[(name, "before")], per[(name, cell)]
        vector = " ".join(
            f"{np.mean([r[2][lv] for r in before]):.3f}"
            for lv in (0, 1)
            if before[0][2][lv] is not None
        )
        print(f"{name} (vector {vector})\n" + _compare(before, after), flush=True)


class Sudachi:
    """SudachiPy (sudachidict-core) morphemes as index terms: Japanese runs cut into words
    (normalized form, katakana → hiragana), ASCII and other scripts as the tokenizer and the
    stemmer cut them, punctuation and spaces dropped."""

    def __init__(self, mode: str = "A") -> None:
        from sudachipy import Dictionary, SplitMode

        # "A", "B", "C": the split mode; "+content" drops particles and auxiliary verbs;
        # "+bigrams" adds the tokenizer's bigrams of Japanese runs beside the words.
        self.tok = Dictionary(dict="core").create()
        self.mode = getattr(SplitMode, mode[0])
        self.drop = ("補助記号", "空白", *(("助詞", "助動詞") if "+content" in mode else ()))
        self.bigrams = "+bigrams" in mode
        self.runs = "+runs" in mode

    def __call__(self, text: str) -> list[str]:
        if self.runs:  # Sudachi reads only the Japanese runs; the rest as today
            out: list[str] = []
            for run in _JA_RUNS.split(text):
                out += self._words(run) if _japanese(run) else index_terms(run)
            return out
        return self._words(text)

    def _words(self, text: str) -> list[str]:
        out: list[str] = []
        for chunk in _chunks(text):
            for m in self.tok.tokenize(chunk, self.mode):
                pos = m.part_of_speech()[0]
                if pos in self.drop:
                    continue
                surface = m.surface()
                if surface.isascii():
                    out += index_terms(surface)
                else:
                    out += (
                        [normalize(m.normalized_form())]
                        if _japanese(surface)
                        else tokenize(surface)
                    )
        if self.bigrams:
            out += [t for t in tokenize(text) if _japanese(t)]
        return out


_JA_RUNS = re.compile("([\u3005\u3006\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]+)")


def _japanese(s: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" for ch in s)


def _chunks(text: str, size: int = 4000) -> list[str]:
    """Sudachi refuses inputs over ~49 KB: cut at line ends."""
    out, cur = [], ""
    for line in text.splitlines(keepends=True):
        if len(cur) + len(line) > size and cur:
            out.append(cur)
            cur = ""
        cur += line[: size * 4]
    return [*out, cur] if cur else out


def japanese(root: Path, mode: str) -> None:
    sudachi = Sudachi(mode)
    for name in ("manpages-ja", "maintguide-ja"):
        c = Corpus(root, name)
        vec = _lanes(c)
        res: dict[str, list] = {}
        for label, an in (("bigrams", index_terms), (f"sudachi-{mode}", sudachi)):
            m = BM25(c, an)
            rows = []
            for qi, q in enumerate(c.questions):
                sb = m.scores(q["question"])
                v, vs = vec[qi]
                rows.append(
                    (
                        _scored(c, score_share(top(sb, POOL), sb, v, vs), q),
                        _scored(c, top(sb, POOL), q),
                        _scored(c, rrf([top(sb, POOL), v]), q),
                    )
                )
            res[label] = rows
            print(name, label, "built", flush=True)
        print(f"{name}: bigrams -> sudachi-{mode}", flush=True)
        print(_compare(res["bigrams"], res[f"sudachi-{mode}"]), flush=True)


if __name__ == "__main__":
    cmd, root = sys.argv[1], Path(sys.argv[2])
    out = root / "bm25f-grid.pkl"
    if cmd == "grid":
        grid(root, out)
        cv(out)
    elif cmd == "cv":
        cv(out)
    elif cmd == "report":
        report(root, out, tuple(float(x) for x in sys.argv[3:7]))  # type: ignore[arg-type]
    elif cmd == "headings":
        headings(root)
    elif cmd == "sums":
        sums(root)
    elif cmd == "japanese":
        japanese(root, sys.argv[3] if len(sys.argv) > 3 else "A")
