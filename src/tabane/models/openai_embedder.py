"""An `Embedder` over an OpenAI-compatible `POST {base_url}/embeddings` (OpenAI, vLLM, TEI…).

Requests go through `tabane.models.http_client.ResilientClient`: paced (at most `max_rps` per
second), retried on 429, 5xx, timeouts and transport errors with exponential backoff and jitter (a
server's `Retry-After` seconds are honoured), and guarded by a circuit breaker: after
`breaker_failures` consecutive failed requests the circuit opens for `breaker_cooldown` seconds and
calls fail fast with `EmbedderUnavailable`; after that one trial request is let through (half-open),
and its outcome closes or reopens the circuit. Other 4xx are not retried. Every response passes
`checked()`, so NaN, zero or wrong-width vectors are never returned.

The transport, clock, sleep and jitter source are injectable; the tests' `fakes.openai_server`
(tests/fakes/) is a real loopback server speaking the same protocol, with scriptable faults.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Unpack

import httpx
import numpy as np
import numpy.typing as npt

from tabane.errors import EmbedderUnavailable, InvalidInput, Issue
from tabane.models.embedder import Vectors, checked
from tabane.models.http_client import (
    MAX_RETRY_AFTER,
    CircuitBreaker,
    HttpOptions,
    Pacer,
    ResilientClient,
)

__all__ = ["MAX_RETRY_AFTER", "PROBE_TEXT", "CircuitBreaker", "OpenAIEmbedder", "Pacer"]

# The text embedded to discover the width when `dim` is read before any response gave it.
PROBE_TEXT = "dimension probe"


class OpenAIEmbedder:
    """Unit-length float32 embeddings from an OpenAI-compatible embeddings endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        dim: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        batch_size: int = 64,
        **http: Unpack[HttpOptions],
    ) -> None:
        for key, value in [("dim", 1 if dim is None else dim), ("batch_size", batch_size)]:
            if not value > 0:
                raise InvalidInput(f"{key} must be positive", issues=[Issue(key, f"{value!r}")])
        self.name, self.model = f"openai:{model}", model
        self.query_prefix, self.document_prefix = query_prefix, document_prefix
        self.batch_size = batch_size
        self._dim = dim
        self._dim_lock = threading.Lock()
        self._http = ResilientClient(
            base_url,
            kind="embedding service",
            name=self.name,
            issue_path="embedder",
            unavailable=EmbedderUnavailable,
            **http,
        )
        self.url = self._http.url("/embeddings")
        self.breaker: CircuitBreaker = self._http.breaker

    @property
    def dim(self) -> int:
        """The width; read before any response gave it, it costs one probe request."""
        if self._dim is None:
            self.embed_query(PROBE_TEXT)
        assert self._dim is not None
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        if self._dim is not None and value != self._dim:
            raise InvalidInput("embedding width is fixed", issues=[Issue("dim", f"is {self._dim}")])
        self._dim = value

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        texts = [self.document_prefix + t for t in texts]
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        step = self.batch_size
        return np.concatenate(
            [self._embed(texts[i : i + step]) for i in range(0, len(texts), step)]
        )

    def embed_query(self, text: str) -> Vectors:
        return self._embed([self.query_prefix + text]).reshape(-1)

    def close(self) -> None:
        """Close the HTTP client's connections."""
        self._http.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _embed(self, texts: list[str]) -> Vectors:
        rows = _rows(self._post(texts), len(texts), self.name)
        with self._dim_lock:
            if self._dim is None:
                self._dim = rows.shape[1]
            dim = self._dim
        return checked(rows, len(texts), dim, where=f"{self.name} response")

    def _post(self, texts: list[str]) -> httpx.Response:
        body = {"model": self.model, "input": texts, "encoding_format": "float"}
        return self._http.post_json("/embeddings", body)


def _rows(response: httpx.Response, count: int, where: str) -> npt.NDArray[np.floating[Any]]:
    """The embeddings ordered by `index` as one (count, width) array; refused when malformed."""

    def bad(problem: str) -> InvalidInput:
        return InvalidInput(f"{where} is malformed", issues=[Issue(where, problem)])

    try:
        payload = response.json()
    except ValueError:
        raise bad(f"not JSON: {response.text[:200]!r}") from None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or len(data) != count:
        got = len(data) if isinstance(data, list) else "no"
        raise bad(f"expected {count} embeddings in `data`, got {got}")
    try:
        ordered = sorted(data, key=lambda item: item["index"])
        indices = [item["index"] for item in ordered]
        rows = [item["embedding"] for item in ordered]
    except (KeyError, TypeError):
        raise bad("each item needs an integer `index` and an `embedding`") from None
    if indices != list(range(count)):
        raise bad(f"indices are not 0..{count - 1}")
    if not all(isinstance(r, list) and r for r in rows):
        raise bad("an embedding is not a non-empty list")
    widths = sorted({len(r) for r in rows})
    if len(widths) > 1:
        raise InvalidInput(f"{where} mixes widths", issues=[Issue(where, f"widths {widths}")])
    try:
        arr = np.array(rows)
    except (ValueError, TypeError):
        raise bad("an embedding holds something other than numbers") from None
    if arr.ndim != 2 or arr.dtype.kind not in "fi":
        raise bad("an embedding holds something other than numbers")
    return arr
