"""The `Embedder` protocol and the checks every embedding passes before it is stored or used.

An embedder turns passages and queries into unit-length float32 vectors of a fixed width. Query and
document embeddings may differ (prefixes, task types). `name` identifies the model: it is recorded
per context, and a context whose recorded model differs from the configured one is re-embedded
instead of answering with vectors from another space.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from tabane.errors import InvalidInput, Issue

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """One row per text, shape (len(texts), dim)."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Shape (dim,)."""
        ...


def checked(vectors: object, rows: int, dim: int, where: str = "embedding") -> Vectors:
    """Refuse NaN, infinities, zero vectors and wrong widths; return unit-length float32 rows."""
    with np.errstate(over="ignore"):  # beyond float32 becomes inf, refused below
        arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.shape != (rows, dim):
        raise InvalidInput(
            f"{where} has the wrong shape",
            issues=[Issue(where, f"expected {rows}×{dim}, got {'×'.join(map(str, arr.shape))}")],
        )
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        raise InvalidInput(
            f"{where} is not finite",
            issues=[
                Issue(f"{where}[{int(i)}]", "NaN or infinity") for i in np.flatnonzero(bad)[:10]
            ],
        )
    wide = arr.astype(np.float64)  # float32 squares overflow past 1e19 and underflow below 1e-19
    norms = np.linalg.norm(wide, axis=1)
    if (norms == 0).any():
        zero = np.flatnonzero(norms == 0)[:10]
        raise InvalidInput(
            f"{where} has zero vectors", issues=[Issue(f"{where}[{int(i)}]", "zero") for i in zero]
        )
    out: Vectors = (wide / norms[:, None]).astype(np.float32)
    return out
