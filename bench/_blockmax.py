"""A probe, not a feature (bench/blockmax_probe.py, decision 0034): an exact block-max top-k over
the merged BM25 rows. A question would read each long row's block directory first, and then
only the blocks that can change its best `k` paragraphs.

A merged row's records (postings.PACK, ascending ids) are cut into blocks of `block` records
(rows of fewer than `MIN_BLOCKS` · `BLOCK` records are read whole). The directory, built here from
the records (a build would store it beside the row), holds per block its last paragraph id, its
largest tf and its smallest dl/tf. Since a record's weight is

    idf · (k1 + 1) / (1 + k1·(1 − b)/tf + k1·b·(dl/tf)/avgdl)

— rising with tf, falling with dl/tf — those two bound every record of the block for any avgdl,
so a stored directory would stay valid while the statistics change.

The exact top-k (`top_k`, MaxScore over blocks):

1. The rows read whole give each paragraph they hold a partial sum; the k-th best partial sum is
   a lower bound θ of the k-th best score (with fewer than k paragraphs, the rarest long row is
   read whole first, as MaxScore's essential list).
2. The long rows sorted by their largest block bound: those whose largest bounds sum to less
   than θ ("lean") cannot lift a paragraph holding none of the other terms into the best k; the
   others are read whole and θ is taken again.
3. A paragraph's score is at most its partial sum plus, per lean row, the bound of the block its
   id falls in. Rounds of block reads, best bound first (64 paragraphs' blocks, then 4× as many
   each round), count paragraphs in full; θ rises to the k-th best of the counted scores and
   the uncounted partial sums, until no uncounted paragraph's bound reaches θ.

Every paragraph left out then scores below θ, and at least k counted ones score θ or more, so
the best k of the counted paragraphs — scored by bm25.score over the same records, in the same
term order — are the best k of all, with the same scores."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

BLOCK = 128  # records per block
MIN_BLOCKS = 8  # a row shorter than this many blocks has no directory: it is read whole
DIRECTORY = np.dtype([("last", ">i8"), ("tf", ">i4"), ("dltf", ">f4")])
# A bound is a sum of the same parts in another order, and `bm25.Scores.keys` rounds to 1e-9:
# a paragraph left out must score below the k-th by more than that.
_SLACK = 1e-9
FIRST = 64  # candidates whose blocks the first round reads; each later round 4×

Array = np.ndarray[Any, np.dtype[Any]]


def directory(records: Array, block: int = BLOCK) -> bytes:
    """The block directory of one row's records (empty when the row is read whole)."""
    n = len(records)
    if n < MIN_BLOCKS * BLOCK:
        return b""
    starts = np.arange(0, n, block)
    tf = records["tf"].astype(np.int64)
    ratio = records["dl"].astype(np.float64) / np.maximum(tf, 1)
    out = np.empty(len(starts), DIRECTORY)
    out["last"] = records["id"][np.minimum(starts + block, n) - 1]
    out["tf"] = np.maximum.reduceat(tf, starts)
    low = np.minimum.reduceat(ratio, starts).astype(np.float32)
    # float32 may round above the true minimum: one step down keeps the bound a bound
    out["dltf"] = np.nextafter(low, np.float32(0))
    return out.tobytes()


def bounds(blocks: Array, idf: float, avgdl: float, k1: float, b: float) -> Array:
    """The largest weight any record of each block can have under these statistics."""
    tf = blocks["tf"].astype(np.float64)
    dltf = blocks["dltf"].astype(np.float64)
    top: Array = idf * (k1 + 1) / (1 + k1 * (1 - b) / tf + k1 * b * dltf / (avgdl or 1.0))
    return top * (1 + 1e-9) + _SLACK


@dataclass
class Blocked:
    """One long merged row, known by its directory until its blocks are read."""

    term: str
    scopes: tuple[str, ...]
    blocks: Array  # DIRECTORY
    bound: Array  # each block's bound under this question's statistics
    dead: Array = field(default_factory=lambda: np.zeros(0, np.int64))  # masked ids


# (row, first block, blocks) ranges → their records, in the same order, in one round trip
Fetch = Callable[[Sequence[tuple[Blocked, int, int]]], list[Array]]
Weigh = Callable[[Array, str], Array]  # a term's records → their weights


@dataclass
class Reads:
    rounds: int = 0  # round trips for blocks
    blocks: int = 0  # blocks read
    records: int = 0  # records read in blocks


def top_k(
    full: Mapping[str, Array],
    blocked: Sequence[Blocked],
    terms: Sequence[str],
    k: int,
    weigh: Weigh,
    fetch: Fetch,
) -> tuple[dict[str, Array], Reads]:
    """Each term's records of the paragraphs that can be among the best `k` (every record of
    each such paragraph), `full` holding each term's records read whole and `blocked` the long
    rows, whose blocks are read through `fetch`."""
    reads = Reads()
    have = {t: [r] for t, r in full.items() if len(r)}
    theta = _kth(have, terms, k, weigh)
    rows = sorted(blocked, key=lambda row: float(row.bound.max()))
    while theta is None and rows:  # no threshold yet: the rarest long row is read whole
        rarest = min(rows, key=lambda row: len(row.blocks))
        rows.remove(rarest)
        _read([(rarest, 0, len(rarest.blocks))], fetch, have, reads)
        theta = _kth(have, terms, k, weigh)
    tops = np.cumsum([float(row.bound.max()) for row in rows])
    lean = 0 if theta is None else int(np.searchsorted(tops, theta, "left"))
    whole = [(row, 0, len(row.blocks)) for row in rows[lean:]]
    if whole:  # rows that alone could lift a paragraph into the best k
        _read(whole, fetch, have, reads)
        theta = _kth(have, terms, k, weigh)
    if not lean:
        return _only(have, terms, None), reads
    assert theta is not None  # there are lean rows only under a threshold
    ids, partial = _sums(have, terms, weigh)
    lean_rows = rows[:lean]
    at = [np.searchsorted(row.blocks["last"].astype(np.int64), ids, "left") for row in lean_rows]
    top = partial + 2 * _SLACK
    for row, where in zip(lean_rows, at, strict=True):
        top += np.append(row.bound, 0.0)[where]
    done = [np.append(np.zeros(len(row.blocks), bool), True) for row in lean_rows]
    batch = FIRST
    while True:  # the candidates best bound first, until the rest cannot reach the k-th
        counted = np.all([read[where] for where, read in zip(at, done, strict=True)], axis=0)
        exact = partial + _lean_sums(have, lean_rows, ids, counted, weigh)
        floor = _kth_of(np.where(counted, exact, partial), k)
        theta = max(theta, floor if floor is not None else theta)
        left = np.flatnonzero(~counted & (top >= theta))
        if not len(left):
            break
        pick = left[np.argsort(-top[left], kind="stable")[:batch]]
        wanted = []
        for row, where, read in zip(lean_rows, at, done, strict=True):
            blocks = np.unique(where[pick])
            blocks = blocks[~read[blocks]]
            wanted.append((row, blocks))
            read[blocks] = True
        _read(_ranges(wanted), fetch, have, reads, fresh=lean_rows)
        batch *= 4
    keep = counted & (top >= theta)
    return _only(have, terms, ids[keep]), reads


def _lean_sums(
    have: Mapping[str, list[Array]],
    lean: Sequence[Blocked],
    ids: Array,
    counted: Array,
    weigh: Weigh,
) -> Array:
    """Per paragraph of `ids`, the sum of the lean rows' records read for it."""
    out = np.zeros(len(ids))
    for i, row in enumerate(lean):
        for recs in have.get(("lean", i), []):  # type: ignore[call-overload]
            at = np.searchsorted(ids, recs["id"].astype(np.int64))
            at = np.minimum(at, len(ids) - 1)
            hit = (ids[at] == recs["id"].astype(np.int64)) & counted[at]
            np.add.at(out, at[hit], weigh(recs[hit], row.term))
    return out


def _kth_of(values: Array, k: int) -> float | None:
    if k <= 0 or len(values) < k:
        return None
    return float(-np.partition(-values, k - 1)[k - 1])


def _read(
    ranges: Sequence[tuple[Blocked, int, int]],
    fetch: Fetch,
    have: dict[Any, list[Array]],
    reads: Reads,
    fresh: Sequence[Blocked] = (),
) -> None:
    """Read `ranges` into `have` (the blocks of `fresh`'s i-th row also under ("lean", i))."""
    if not ranges:
        return
    for (row, _, count), recs in zip(ranges, fetch(ranges), strict=True):
        if len(row.dead):
            recs = recs[~np.isin(recs["id"], row.dead)]
        have.setdefault(row.term, []).append(recs)
        for i, lean in enumerate(fresh):
            if row is lean:
                have.setdefault(("lean", i), []).append(recs)
        reads.blocks += count
        reads.records += len(recs)
    reads.rounds += 1


def _ranges(wanted: Sequence[tuple[Blocked, Array]]) -> list[tuple[Blocked, int, int]]:
    """Runs of consecutive blocks (sorted), one range each."""
    out = []
    for row, blocks in wanted:
        if not len(blocks):
            continue
        cuts = np.flatnonzero(np.diff(blocks) != 1) + 1
        for run in np.split(blocks, cuts):
            out.append((row, int(run[0]), len(run)))
    return out


def _sums(
    have: Mapping[str, list[Array]], terms: Sequence[str], weigh: Weigh
) -> tuple[Array, Array]:
    """Each paragraph of `have` (ids ascending) and its sum over `have`'s records."""
    parts = [(r, t) for t in terms for r in have.get(t, ()) if len(r)]
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0)
    ids = np.concatenate([r["id"].astype(np.int64) for r, _ in parts])
    contrib = np.concatenate([weigh(r, t) for r, t in parts])
    uniq, inverse = np.unique(ids, return_inverse=True)
    return uniq, np.bincount(inverse, weights=contrib)


def _kth(
    have: Mapping[str, list[Array]], terms: Sequence[str], k: int, weigh: Weigh
) -> float | None:
    """The k-th best sum over `have`'s records (at most the k-th best score; None when fewer
    than k paragraphs)."""
    _, sums = _sums(have, terms, weigh)
    if k <= 0 or len(sums) < k:
        return None
    return float(-np.partition(-sums, k - 1)[k - 1])


def _only(
    have: Mapping[str, list[Array]], terms: Sequence[str], ids: Array | None
) -> dict[str, Array]:
    """Each term's records (of the paragraphs `ids` only, when given), in the terms' order."""
    out = {}
    for t in terms:
        if t not in have:
            continue
        recs = np.concatenate(have[t]) if len(have[t]) > 1 else have[t][0]
        if ids is not None:
            recs = recs[np.isin(recs["id"].astype(np.int64), ids)]
        out[t] = recs
    return out
