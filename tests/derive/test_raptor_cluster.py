"""Deterministic spherical k-means for the RAPTOR tree: order-independent, k and sizes, empty
clusters refilled, coarse-then-fine splitting of large levels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tabane.derive.raptor import cluster as rc


def blobs(
    groups: int, each: int, dim: int = 16, spread: float = 0.05
) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((groups, dim))
    rows = np.repeat(centres, each, axis=0) + spread * rng.standard_normal((groups * each, dim))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return [f"p:{i}" for i in range(groups * each)], rows.astype(np.float32)


def shape(clusters: list[rc.Cluster]) -> list[tuple[str, ...]]:
    return [c.refs for c in clusters]


def test_input_order_never_changes_the_clusters() -> None:
    refs, x = blobs(5, 8)
    first = rc.cluster(refs, x, 8)
    perm = np.random.default_rng(3).permutation(len(refs))
    again = rc.cluster([refs[i] for i in perm], x[perm], 8)
    assert shape(first) == shape(again)
    assert [c.cosines for c in first] == [c.cosines for c in again]


def test_k_is_ceil_n_over_size_and_blobs_are_found() -> None:
    refs, x = blobs(5, 8)
    clusters = rc.cluster(refs, x, 8)
    assert len(clusters) == math.ceil(40 / 8)
    # each well-separated blob is one cluster: consecutive refs of one centre
    found = sorted(sorted(int(r[2:]) // 8 for r in c.refs) for c in clusters)
    assert found == [[g] * 8 for g in range(5)]
    for c in clusters:
        assert list(c.cosines) == sorted(c.cosines, reverse=True)  # nearest the centre first
        assert abs(float(np.linalg.norm(c.centre)) - 1.0) < 1e-5
    # ordered by size, then smallest member ref
    keys = [(-len(c.refs), min(c.refs)) for c in clusters]
    assert keys == sorted(keys)


def test_small_and_degenerate_inputs() -> None:
    assert rc.cluster([], np.zeros((0, 4), dtype=np.float32)) == []
    one = rc.cluster(["c:1"], np.ones((1, 4), dtype=np.float32))
    assert shape(one) == [("c:1",)]
    # identical vectors are one distinct vector: one cluster holds them all
    same = np.tile(np.array([[1.0, 0.0, 0.0]], dtype=np.float32), (10, 1))
    clusters = rc.cluster([f"p:{i}" for i in range(10)], same, 3)
    assert len(clusters) == 1
    # kmeans itself, seeded with copies, still leaves no cluster empty
    labels = rc.kmeans(same, 4)
    assert sorted(np.bincount(labels, minlength=4).tolist())[0] >= 1
    assert sorted(r for c in clusters for r in c.refs) == sorted(f"p:{i}" for i in range(10))
    with pytest.raises(ValueError):
        rc.cluster(["p:1", "p:1"], np.ones((2, 3), dtype=np.float32))


def test_an_empty_cluster_takes_the_farthest_row() -> None:
    labels = np.array([0, 0, 0, 1], dtype=np.int64)
    best = np.array([0.9, 0.2, 0.5, 1.0], dtype=np.float32)
    filled = rc._fill_empty(labels, best, 3)
    assert filled.tolist() == [0, 2, 0, 1]  # row 1 is farthest from its centre; row 3 is alone


def test_large_levels_split_coarse_then_fine() -> None:
    refs, x = blobs(60, 10, dim=32, spread=0.02)
    clusters = rc.cluster(refs, x, 2)  # k = 300 > DIRECT_K
    assert sorted(r for c in clusters for r in c.refs) == sorted(refs)
    k = math.ceil(len(refs) / 2)
    assert k <= len(clusters) < k + math.ceil(math.sqrt(k))
    assert all(len({int(r[2:]) // 10 for r in c.refs}) == 1 for c in clusters)  # within a blob
    perm = np.random.default_rng(5).permutation(len(refs))
    assert shape(rc.cluster([refs[i] for i in perm], x[perm], 2)) == shape(clusters)


def test_equal_vectors_share_one_cluster_and_leave_no_singletons() -> None:
    """Repeated boilerplate (and the equal summaries of its clusters) is clustered once: k counts
    distinct vectors, copies follow their first row, and no centre is left for repair."""
    rng = np.random.default_rng(1)
    distinct = rng.normal(size=(300, 16)).astype(np.float32)
    copies = np.repeat(distinct[:5], 200, axis=0)
    x = np.concatenate([distinct, copies])
    refs = [f"p:{i:04d}" for i in range(len(x))]
    found = rc.cluster(refs, x, 8)
    assert len(found) == 38  # ceil(300 / 8): the copies add no cluster
    where = {ref: i for i, c in enumerate(found) for ref in c.refs}
    for j in range(5):  # each copied row sits with all its copies
        assert len({where[refs[j]]} | {where[refs[300 + 200 * j + m]] for m in range(200)}) == 1
    assert min(len(c.refs) for c in found) > 1
