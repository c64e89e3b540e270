"""Deterministic spherical k-means for the RAPTOR tree (numpy only, no storage).

Inputs are refs with unit vectors; they are sorted by ref first, so the order they come in never
changes the result. k = ceil(n / cluster_size). Seeds are chosen by k-means++ (probability ∝ the
squared cosine distance to the nearest chosen seed) from `np.random.default_rng(0)`; Lloyd
iterations assign each vector to its most similar centre (ties: the smaller centre index, as
`argmax` keeps the first) and move each centre to the normalized mean of its vectors, for at most
`MAX_ITERATIONS` rounds or until no assignment changes. A centre left without vectors takes the
vector farthest from its own centre (ties: the smaller index), so every cluster is non-empty.

Large levels: when k exceeds `DIRECT_K`, the vectors are first split into ceil(√k) coarse
groups by the same k-means, and each group of n_i vectors is clustered into ceil(n_i /
cluster_size) (recursively). That keeps the work near n·√k·dim instead of n·k·dim (30k leaves
give k = 3750: one direct Lloyd round alone is ~58 GFLOP); the total can then exceed
ceil(n / cluster_size) by fewer than √k clusters, and clusters never straddle coarse groups.

Equal vectors are clustered once and share their cluster (k counts distinct vectors).

Output: clusters by size (largest first), then smallest member ref; members by cosine to their
cluster's centre (nearest first), then ref. Similarities are float32 matrix products in chunks of
`CHUNK` rows, so memory stays at CHUNK·k floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

DEFAULT_CLUSTER_SIZE = 8  # a choice: a handful of paragraphs per summary, ~log8(n) levels
MAX_ITERATIONS = 25  # Lloyd rounds; k-means++ seeds usually settle well before
DIRECT_K = 64  # above this many clusters a level is first split into coarse groups
CHUNK = 4096  # rows per similarity block
SEED = 0
_ONE_HOT = 1 << 24  # k·n cells up to which centre sums are a one-hot matrix product

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Cluster:
    refs: tuple[str, ...]  # nearest the centre first, then by ref
    cosines: tuple[float, ...]  # each member's cosine to the centre
    centre: F32  # unit length


def cluster(
    refs: Sequence[str], vectors: F32, cluster_size: int = DEFAULT_CLUSTER_SIZE
) -> list[Cluster]:
    """Spherical k-means of `vectors` (one unit row per ref; refs distinct) into about
    ceil(n / cluster_size) clusters; see the module docstring for the order."""
    if len(refs) != len(vectors):
        raise ValueError("one vector per ref")
    if cluster_size < 1:
        raise ValueError("cluster_size must be >= 1")
    n = len(refs)
    if n == 0:
        return []
    order = sorted(range(n), key=lambda i: refs[i])
    names = [refs[i] for i in order]
    if len(set(names)) != n:
        raise ValueError("refs must be distinct")
    x = _unit(np.ascontiguousarray(np.asarray(vectors, dtype=np.float32)[order]))
    # Equal vectors (repeated boilerplate paragraphs, the equal summaries of their clusters) are
    # clustered once, as their first row, and all follow it: k-means++ cannot tell copies apart,
    # and seeding copies leaves centres that only empty-cluster repair fills, with singletons.
    _, first, inverse = np.unique(x, axis=0, return_index=True, return_inverse=True)
    keep = np.sort(first)  # distinct rows, in ref order
    where = np.empty(len(x), dtype=np.int64)
    where[keep] = np.arange(len(keep))
    labels = _split(np.ascontiguousarray(x[keep]), cluster_size)[where[first[inverse.ravel()]]]
    return _clusters(names, x, labels)


def _unit(x: F32) -> F32:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: F32 = (x / norms).astype(np.float32)
    return out


def _split(x: F32, cluster_size: int) -> I64:
    """Cluster labels 0..k-1 for the rows of x (sorted by ref)."""
    n = len(x)
    k = math.ceil(n / cluster_size)
    if k <= DIRECT_K:
        return kmeans(x, k)
    coarse = kmeans(x, math.ceil(math.sqrt(k)))
    labels = np.empty(n, dtype=np.int64)
    offset = 0
    for group in range(int(coarse.max()) + 1):
        rows = np.flatnonzero(coarse == group)  # ascending: still sorted by ref
        inner = _split(np.ascontiguousarray(x[rows]), cluster_size)
        labels[rows] = inner + offset
        offset += int(inner.max()) + 1
    return labels


def kmeans(x: F32, k: int) -> I64:
    """Labels 0..k-1 (every label used) of spherical k-means over the unit rows of x."""
    n = len(x)
    if k >= n:
        return np.arange(n, dtype=np.int64)
    if k <= 1:
        return np.zeros(n, dtype=np.int64)
    centres = x[_seeds(x, k)]
    labels = np.full(n, -1, dtype=np.int64)
    for _ in range(MAX_ITERATIONS):
        new, best = _assign(x, centres)
        new = _fill_empty(new, best, k)
        if np.array_equal(new, labels):
            break
        labels = new
        centres = _means(x, labels, k)
    return labels


def _seeds(x: F32, k: int) -> list[int]:
    """k-means++ seeds: the first uniform, each next ∝ squared distance to the nearest seed."""
    rng = np.random.default_rng(SEED)
    n = len(x)
    chosen = [int(rng.integers(n))]
    dist = np.maximum(1.0 - x @ x[chosen[0]], 0.0).astype(np.float64)
    taken = np.zeros(n, dtype=bool)
    taken[chosen[0]] = True
    while len(chosen) < k:
        weight = np.where(taken, 0.0, dist * dist)
        total = float(weight.sum())
        if total <= 0.0:  # the rest repeat chosen vectors: take them in order
            pick = int(np.flatnonzero(~taken)[0])
        else:
            cum = np.cumsum(weight)
            pick = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
            pick = min(pick, n - 1)
            while taken[pick] or weight[pick] == 0.0:  # float edge: step to a valid one
                pick = (pick + 1) % n
        chosen.append(pick)
        taken[pick] = True
        dist = np.minimum(dist, np.maximum(1.0 - x @ x[pick], 0.0))
    return chosen


def _assign(x: F32, centres: F32) -> tuple[I64, F32]:
    """Each row's most similar centre (first on ties) and that similarity."""
    n = len(x)
    labels = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.float32)
    for start in range(0, n, CHUNK):
        sims = x[start : start + CHUNK] @ centres.T
        idx = np.argmax(sims, axis=1)
        labels[start : start + CHUNK] = idx
        best[start : start + CHUNK] = sims[np.arange(len(idx)), idx]
    return labels, best


def _fill_empty(labels: I64, best: F32, k: int) -> I64:
    """Give each empty cluster the row farthest from its centre (lowest similarity, then
    smallest index) among rows whose cluster keeps another member."""
    counts = np.bincount(labels, minlength=k)
    empty = np.flatnonzero(counts == 0)
    if len(empty) == 0:
        return labels
    labels = labels.copy()
    far = np.lexsort((np.arange(len(best)), best))  # by similarity, then index
    pos = 0
    for c in empty:
        while counts[labels[far[pos]]] <= 1:
            pos += 1
        row = far[pos]
        counts[labels[row]] -= 1
        labels[row] = c
        counts[c] = 1
        pos += 1
    return labels


def _means(x: F32, labels: I64, k: int) -> F32:
    """Normalized member means (a mean of zero length falls back to its first member)."""
    n = len(x)
    if k * n <= _ONE_HOT:  # a one-hot product is one BLAS call
        onehot = np.zeros((k, n), dtype=np.float32)
        onehot[labels, np.arange(n)] = 1.0
        sums = onehot @ x
    else:
        order = np.argsort(labels, kind="stable")
        starts = np.concatenate(([0], np.cumsum(np.bincount(labels, minlength=k))[:-1]))
        sums = np.add.reduceat(x[order], starts, axis=0).astype(np.float32)
    norms = np.linalg.norm(sums, axis=1)
    zero = norms == 0
    if zero.any():
        first = np.array([np.flatnonzero(labels == c)[0] for c in np.flatnonzero(zero)])
        sums[zero] = x[first]
        norms[zero] = 1.0
    out: F32 = (sums / norms[:, None]).astype(np.float32)
    return out


def _clusters(names: list[str], x: F32, labels: I64) -> list[Cluster]:
    k = int(labels.max()) + 1
    centres = _means(x, labels, k)
    out: list[Cluster] = []
    for c in range(k):
        rows = np.flatnonzero(labels == c)
        cos = x[rows] @ centres[c]
        ranked = sorted(
            zip(rows.tolist(), cos.tolist(), strict=True), key=lambda r: (-r[1], names[r[0]])
        )
        out.append(
            Cluster(
                refs=tuple(names[r] for r, _ in ranked),
                cosines=tuple(float(s) for _, s in ranked),
                centre=centres[c],
            )
        )
    out.sort(key=lambda cl: (-len(cl.refs), min(cl.refs)))
    return out
