"""The block-max probe's top-k (bench/_blockmax.py, decision 0034) is exact: over random corpora
with many tied paragraphs, masked ids and blocks of several sizes, it returns the same paragraphs
with the same scores as scoring every posting (bm25.score), or the probe's figures would measure
a wrong algorithm."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabane.search import bm25, postings

BENCH = Path(__file__).resolve().parents[2] / "bench" / "_blockmax.py"


def _probe_module() -> Any:
    spec = importlib.util.spec_from_file_location("_blockmax_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bmx = _probe_module()


def _corpus(rng: random.Random, n: int, vocabulary: int) -> dict[str, np.ndarray]:
    """Term → records over `n` paragraphs drawn Zipf-like; every third paragraph is a copy of an
    earlier one (same terms and length), so their scores tie exactly and the id decides."""
    words = [f"w{i}" for i in range(vocabulary)]
    weights = [1 / (i + 1) for i in range(vocabulary)]
    docs: list[Counter[str]] = []
    for i in range(n):
        if i and i % 3 == 0:
            docs.append(docs[rng.randrange(i)])
        else:
            docs.append(Counter(rng.choices(words, weights, k=rng.randint(3, 40))))
    rows: dict[str, list[tuple[int, int, int, int]]] = {}
    for pid, doc in enumerate(docs, start=1):
        dl = sum(doc.values())
        for term, tf in doc.items():
            rows.setdefault(term, []).append((pid, tf, 0, dl))
    return {t: np.array(r, dtype=postings.PACK) for t, r in rows.items()}


def _top_k(
    packs: dict[str, np.ndarray], stats: bm25.Statistics, k: int, block: int, dead: np.ndarray
) -> list[tuple[int, float]]:
    terms = list(packs)
    full, blocked = {}, []
    for t in terms:
        raw = bmx.directory(packs[t], block)
        if not raw:
            full[t] = packs[t][~np.isin(packs[t]["id"], dead)]
            continue
        blocks = np.frombuffer(raw, bmx.DIRECTORY)
        bound = bmx.bounds(blocks, stats.idf(t), stats.avgdl, bm25.K1, bm25.B)
        blocked.append(bmx.Blocked(t, (), blocks, bound, dead))

    def weigh(recs: np.ndarray, term: str) -> np.ndarray:
        return bm25._weights(recs, stats.idf(term), stats)

    def fetch(ranges: Any) -> list[np.ndarray]:
        return [packs[row.term][f * block : (f + c) * block] for row, f, c in ranges]

    got, _ = bmx.top_k(full, blocked, terms, k, weigh, fetch)
    return bm25.score(got, stats).best(k)


@pytest.mark.parametrize("seed", range(6))
def test_top_k_equals_the_exhaustive_scoring_ties_included(seed: int) -> None:
    rng = random.Random(seed)
    corpus = _corpus(rng, 2_000, 300)
    dead = np.array(sorted(rng.sample(range(1, 2_001), 30 if seed % 2 else 0)), dtype=np.int64)
    total = 2_000 * 21
    tested = 0
    for _ in range(8):
        query = rng.sample(sorted(corpus, key=lambda t: -len(corpus[t]))[:60], rng.randint(1, 12))
        packs = {t: corpus[t] for t in query}
        alive = {t: p[~np.isin(p["id"], dead)] for t, p in packs.items()}
        stats = bm25.Statistics.of(2_000, total, {t: len(p) for t, p in alive.items()})
        for k in (1, 10, 50):
            want = bm25.score(alive, stats).best(k)
            for block in (16, 128):
                assert _top_k(packs, stats, k, block, dead) == want
                tested += 1
    assert tested == 8 * 3 * 2


def test_the_probe_reads_less_than_everything_when_it_can() -> None:
    """One rare term among common ones: the common rows' blocks are read only where the rare
    term's paragraphs are, so the bound does prune (the probe's share is not 1 by accident)."""
    rng = random.Random(7)
    corpus = _corpus(rng, 8_000, 300)
    common = sorted(corpus, key=lambda t: -len(corpus[t]))[:3]
    rare = sorted(corpus, key=lambda t: len(corpus[t]))[-200]
    packs = {t: corpus[t] for t in [*common, rare]}
    stats = bm25.Statistics.of(8_000, 8_000 * 21, {t: len(p) for t, p in packs.items()})
    full = {rare: packs[rare]}
    blocked = []
    for t in common:
        blocks = np.frombuffer(bmx.directory(packs[t], 32), bmx.DIRECTORY)
        bound = bmx.bounds(blocks, stats.idf(t), stats.avgdl, bm25.K1, bm25.B)
        blocked.append(bmx.Blocked(t, (), blocks, bound))
    got, reads = bmx.top_k(
        full,
        blocked,
        list(packs),
        10,
        lambda recs, t: bm25._weights(recs, stats.idf(t), stats),
        lambda ranges: [packs[r.term][f * 32 : (f + c) * 32] for r, f, c in ranges],
    )
    assert bm25.score(got, stats).best(10) == bm25.score(packs, stats).best(10)
    assert reads.records < 0.5 * sum(len(packs[t]) for t in common)
