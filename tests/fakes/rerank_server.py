"""A fake rerank server (TEI and Cohere/Jina): real HTTP on loopback, deterministic, scriptable.

    with FakeRerankServer() as server:
        reranker = HttpReranker(server.url)                                   # TEI
        cohere = HttpReranker(server.cohere_url, format="cohere", model="m")  # Cohere/Jina
        server.fail_next(2, status=429, retry_after=1.5)
        server.malformed_next("duplicate_index")
        server.requests, server.batch_sizes                                   # what arrived

It serves `POST /rerank`, `/v1/rerank` and `/v2/rerank`; the body says the format (`texts`: TEI,
`documents`: Cohere/Jina) and the answer speaks it, ordered by score, best first (as the real
services answer), so clients must map results back by `index`. The score of a text is the share of
the query's distinct words it contains (`score()`), in [0, 1]. TEI refuses more than `max_batch`
texts with 413, like its `--max-client-batch-size`. Scripted faults are spent one per request, in
the order they were scripted.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakes.openai_server import LoopbackServer

WORD = re.compile(r"\w+")
PATHS = ("/rerank", "/v1/rerank", "/v2/rerank")
# Ways an otherwise correct answer can be broken, applied to its best result (or its shape).
MALFORMATIONS = (
    "not_json",
    "wrong_shape",
    "missing_index",
    "bad_index",
    "duplicate_index",
    "out_of_range",
    "missing_score",
    "string_score",
    "nan",
    "inf",
    "short",
)


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour: `status` (an error answer), `malformed` or `slow`."""

    kind: str
    status: int = 500
    retry_after: float | None = None
    message: str = "scripted failure"
    malformation: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    time: float
    path: str
    format: str
    model: str | None
    query: str | None
    texts: tuple[str, ...]
    authorization: str | None
    status: int


class FakeRerankServer(LoopbackServer["Fault", "Request"]):
    def __init__(
        self,
        *,
        api_key: str | None = None,
        max_batch: int = 32,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(clock)
        self.api_key, self.max_batch = api_key, max_batch

    @property
    def url(self) -> str:
        """The TEI base URL (a client appends /rerank)."""
        return self.root

    @property
    def cohere_url(self) -> str:
        """A Cohere/Jina-style base URL, ending in /v1 (a client appends /rerank)."""
        return f"{self.root}/v1"

    # -- scripting ------------------------------------------------------------------------------

    def _status_fault(self, status: int, retry_after: float | None, message: str) -> Fault:
        return Fault("status", status, retry_after, message)

    def malformed_next(self, malformation: str, times: int = 1) -> None:
        """Break the next answers in one of the MALFORMATIONS ways (status 200)."""
        if malformation not in MALFORMATIONS:
            raise ValueError(f"unknown malformation {malformation!r}; one of {MALFORMATIONS}")
        self._script(times, Fault("malformed", malformation=malformation))

    def slow_next(self, times: int = 1, seconds: float = 1.0) -> None:
        """The next answers wait `seconds` first (cut short when the server closes)."""
        self._script(times, Fault("slow", seconds=seconds))

    # -- what arrived ---------------------------------------------------------------------------

    @property
    def batch_sizes(self) -> list[int]:
        return [len(r.texts) for r in self.requests]

    # -- the model ------------------------------------------------------------------------------

    @staticmethod
    def score(query: str, text: str) -> float:
        """The share of the query's distinct words found in `text` (0.0 for a wordless query)."""
        wanted = set(WORD.findall(query.lower()))
        return len(wanted & set(WORD.findall(text.lower()))) / len(wanted) if wanted else 0.0

    def _answer(
        self, path: str, body: Any, authorization: str | None
    ) -> tuple[int, Any, dict[str, str], float]:
        """(status, payload, headers, delay) for one request, recording it."""
        body = body if isinstance(body, dict) else {}
        tei = "documents" not in body
        texts = body.get("texts") if tei else body.get("documents")
        query, model = body.get("query"), body.get("model")
        top_n = body.get("top_n", len(texts) if isinstance(texts, list) else 0)
        error = _tei_error if tei else _cohere_error
        fault: Fault | None = None
        headers: dict[str, str] = {}
        if path.rstrip("/") not in PATHS:
            status, payload = 404, error(f"no route {path}")
        elif not isinstance(query, str):
            status, payload = 422, error("`query` must be a string")
        elif not (isinstance(texts, list) and texts and all(isinstance(t, str) for t in texts)):
            status, payload = 422, error("`texts` or `documents` must be a non-empty string list")
        elif tei and len(texts) > self.max_batch:
            status, payload = 413, error(f"batch size {len(texts)} > {self.max_batch}")
        elif not tei and (not isinstance(model, str) or not model):
            status, payload = 400, error("`model` is required")
        elif not tei and (not isinstance(top_n, int) or top_n < 1):
            status, payload = 400, error("`top_n` must be a positive integer")
        elif self.api_key is not None and authorization != f"Bearer {self.api_key}":
            status, payload = 401, error("invalid api token")
        else:
            fault = self._next_fault()
            if fault is not None and fault.kind == "status":
                status, payload = fault.status, error(fault.message)
                if fault.retry_after is not None:
                    headers["Retry-After"] = f"{fault.retry_after:g}"
            else:
                status, payload = 200, self._results(query, texts, tei, top_n, fault)
        seen = tuple(texts) if isinstance(texts, list) else ()
        fmt = "tei" if tei else "cohere"
        request = Request(self.clock(), path, fmt, model, query, seen, authorization, status)
        self._record(request)
        delay = fault.seconds if fault is not None and fault.kind == "slow" else 0.0
        return status, payload, headers, delay

    def _results(
        self, query: str, texts: list[str], tei: bool, top_n: int, fault: Fault | None
    ) -> Any:
        key = "score" if tei else "relevance_score"
        scored = sorted(((self.score(query, t), i) for i, t in enumerate(texts)), key=_best_first)
        items: list[dict[str, Any]] = [{"index": i, key: s} for s, i in scored[:top_n]]
        broken = fault.malformation if fault is not None and fault.kind == "malformed" else ""
        if broken == "not_json":
            return b"<html>502 bad gateway</html>"
        _break(items, broken, key, len(texts))
        if tei:
            return {"results": items} if broken == "wrong_shape" else items
        return items if broken == "wrong_shape" else {"id": "fake", "results": items}


def _best_first(pair: tuple[float, int]) -> tuple[float, int]:
    return (-pair[0], pair[1])


def _break(items: list[dict[str, Any]], broken: str, key: str, count: int) -> None:
    """Spoil the best result (or drop the last) the scripted way."""
    first = items[0]
    if broken == "missing_index":
        del first["index"]
    elif broken == "bad_index":
        first["index"] = "0"
    elif broken == "duplicate_index" and len(items) > 1:
        items[1]["index"] = first["index"]
    elif broken == "out_of_range":
        first["index"] = count
    elif broken == "missing_score":
        del first[key]
    elif broken == "string_score":
        first[key] = "high"
    elif broken in ("nan", "inf"):
        first[key] = math.nan if broken == "nan" else math.inf
    elif broken == "short":
        items.pop()


def _tei_error(message: str) -> dict[str, Any]:
    return {"error": message, "error_type": "Validation"}


def _cohere_error(message: str) -> dict[str, Any]:
    return {"message": message}
