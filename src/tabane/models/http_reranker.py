"""A `Reranker` over a `/rerank` HTTP service: Hugging Face TEI, or the Cohere/Jina format.

    tei     POST {base}/rerank  {"query", "texts", "raw_scores": false, "truncate": true}
            → [{"index", "score"}, …]
    cohere  POST {base}/rerank  {"model", "query", "documents", "top_n"}
            → {"results": [{"index", "relevance_score"}, …]}

`base` is the TEI server's root (`http://host:8080`) or a Cohere/Jina API base with its version
(`https://api.cohere.com/v2`, `https://api.jina.ai/v1`); a URL that already ends in `/rerank` is
used as it is. Long lists go in batches of at most `max_batch` texts (TEI refuses more than its
`--max-client-batch-size`, 32 by default); a cross-encoder scores each (query, text) pair on its
own, so scores from different batches compare. Answers come back ordered by score; they are mapped
back to input order by `index`, and an answer with a missing, duplicate or out-of-range index, a
missing score or a non-finite one is refused (`InvalidInput`, naming the service and the problem).
Requests go through `ResilientClient` (pacing, retries, a circuit breaker that fails fast with
`RerankerUnavailable`); the tests' `fakes.rerank_server`
(tests/fakes/) is a loopback server speaking both formats.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack
from urllib.parse import urlsplit

import httpx

from tabane.errors import InvalidInput, Issue, RerankerUnavailable
from tabane.models.http_client import CircuitBreaker, HttpOptions, ResilientClient
from tabane.models.reranker import checked_scores

FORMATS = ("tei", "cohere")
# TEI's default --max-client-batch-size; Cohere and Jina accept far more per request.
DEFAULT_MAX_BATCH = 32


class HttpReranker:
    """Scores from a TEI- or Cohere/Jina-compatible rerank endpoint, in input order."""

    def __init__(
        self,
        base_url: str,
        *,
        format: str = "tei",
        model: str | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
        **http: Unpack[HttpOptions],
    ) -> None:
        if format not in FORMATS:
            raise InvalidInput(
                f"format must be one of {', '.join(FORMATS)}",
                issues=[Issue("format", repr(format))],
            )
        if format == "cohere" and not model:
            raise InvalidInput(
                "the cohere rerank format needs a model", issues=[Issue("model", "unset")]
            )
        if not max_batch > 0:
            raise InvalidInput(
                "max_batch must be positive", issues=[Issue("max_batch", repr(max_batch))]
            )
        base = base_url.rstrip("/")
        base = base.removesuffix("/rerank")
        self.format, self.model, self.max_batch = format, model, max_batch
        self.name = f"{format}:{model or urlsplit(base).netloc or base}"
        self._http = ResilientClient(
            base,
            kind="rerank service",
            name=self.name,
            issue_path="reranker",
            unavailable=RerankerUnavailable,
            **http,
        )
        self.url = self._http.url("/rerank")
        self.breaker: CircuitBreaker = self._http.breaker

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        texts = list(texts)
        scores: list[float] = []
        for start in range(0, len(texts), self.max_batch):
            scores.extend(self._batch(query, texts[start : start + self.max_batch], start))
        return scores

    def close(self) -> None:
        """Close the HTTP client's connections."""
        self._http.close()

    def __enter__(self) -> HttpReranker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _batch(self, query: str, texts: list[str], offset: int) -> list[float]:
        body: dict[str, object]
        if self.format == "tei":
            body = {"query": query, "texts": texts, "raw_scores": False, "truncate": True}
        else:
            body = {"model": self.model, "query": query, "documents": texts, "top_n": len(texts)}
        response = self._http.post_json("/rerank", body)
        return parse_scores(response, len(texts), self.format, f"{self.name} response", offset)


def parse_scores(
    response: httpx.Response, count: int, format: str, where: str, offset: int = 0
) -> list[float]:
    """The `count` scores of one answer in input order; refused when malformed.

    Problems name texts by input position (`offset` is the batch's first position).
    """

    def bad(problem: str) -> InvalidInput:
        return InvalidInput(f"{where} is malformed", issues=[Issue(where, problem)])

    try:
        payload = response.json()
    except ValueError:
        raise bad(f"not JSON: {response.text[:200]!r}") from None
    key = "score" if format == "tei" else "relevance_score"
    if format == "tei":
        items = payload
    else:
        items = payload.get("results") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        shape = "a list of {index, score}" if format == "tei" else '{"results": [...]}'
        raise bad(f"expected {shape}, got {type(payload).__name__}")
    scores: list[object] = [None] * count
    seen: set[int] = set()
    for pos, item in enumerate(items):
        index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(item, dict) or index is None:
            raise bad(f"result {pos} has no `index`")
        if isinstance(index, bool) or not isinstance(index, int):
            raise bad(f"result {pos}: `index` is not an integer: {str(index)[:40]!r}")
        if not 0 <= index < count:
            raise bad(f"result {pos}: index {index} is out of range 0..{count - 1}")
        if index in seen:
            raise bad(f"result {pos}: index {index} appears twice")
        if key not in item:
            raise bad(f"result {pos} (text {offset + index}) has no `{key}`")
        seen.add(index)
        scores[index] = item[key]
    if len(seen) < count:
        missing = [offset + i for i in range(count) if i not in seen]
        raise bad(f"no score for texts {missing[:10]} ({len(missing)} of {count} missing)")
    return checked_scores(scores, count, where, offset)
