"""An `Embedder` over an OpenAI-compatible `POST {base_url}/embeddings` (OpenAI, vLLM, TEI…).

Requests are paced (at most `max_rps` per second), retried on 429, 5xx, timeouts and transport
errors with exponential backoff and jitter (a server's `Retry-After` seconds are honoured), and
guarded by a circuit breaker: after `breaker_failures` consecutive failed requests the circuit opens
for `breaker_cooldown` seconds and calls fail fast with `EmbedderUnavailable`; after that one trial
request is let through (half-open), and its outcome closes or reopens the circuit. Other 4xx are not
retried. Every response passes `checked()`, so NaN, zero or wrong-width vectors are never returned.

The transport, clock, sleep and jitter source are injectable; `tabane.models.fake_openai` is a real
loopback server speaking the same protocol, with scriptable faults, for tests.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

from tabane.errors import EmbedderUnavailable, InvalidInput, Issue
from tabane.models.embedder import Vectors, checked

# A Retry-After above this is clamped: a call should not stall for longer than a minute.
MAX_RETRY_AFTER = 60.0
# The text embedded to discover the width when `dim` is read before any response gave it.
PROBE_TEXT = "dimension probe"


class CircuitBreaker:
    """Closed → open after `failures` consecutive failures → half-open after `cooldown` seconds."""

    def __init__(self, failures: int, cooldown: float, clock: Callable[[], float]) -> None:
        self.failures, self.cooldown, self._clock = failures, cooldown, clock
        self._lock = threading.Lock()
        self._consecutive, self._trial, self.last_failure = 0, False, ""
        self._opened_at: float | None = None

    @property
    def state(self) -> str:
        with self._lock:
            if self._opened_at is None:
                return "closed"
            return "half_open" if self._cooling_done() else "open"

    def _cooling_done(self) -> bool:
        return self._opened_at is not None and self._clock() >= self._opened_at + self.cooldown

    def before(self) -> str | None:
        """None when a request may go; otherwise why it may not."""
        with self._lock:
            if self._opened_at is None:
                return None
            if self._cooling_done() and not self._trial:
                self._trial = True  # half-open: this request is the one trial
                return None
            assert self._opened_at is not None
            left = max(0.0, self._opened_at + self.cooldown - self._clock())
            wait = f"for another {left:.1f} s" if left else "while a trial request runs"
            return (
                f"circuit open {wait} after {self._consecutive} consecutive failures"
                f" (last: {self.last_failure})"
            )

    def success(self) -> None:
        with self._lock:
            self._consecutive, self._opened_at, self._trial = 0, None, False

    def failure(self, why: str) -> bool:
        """Record a failed request; True when the circuit is (now) open."""
        with self._lock:
            self._consecutive += 1
            self.last_failure = why
            if self._trial or self._consecutive >= self.failures:
                self._opened_at, self._trial = self._clock(), False
            return self._opened_at is not None


class Pacer:
    """A token bucket holding one token, refilled `rps` times a second: requests ≥ 1/rps apart."""

    def __init__(
        self, rps: float | None, clock: Callable[[], float], sleep: Callable[[float], None]
    ) -> None:
        self._interval = 1.0 / rps if rps else 0.0
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._next: float | None = None

    def wait(self) -> None:
        if not self._interval:
            return
        with self._lock:
            now = self._clock()
            start = now if self._next is None else max(now, self._next)
            self._next = start + self._interval
        if start > now:
            self._sleep(start - now)


class OpenAIEmbedder:
    """Unit-length float32 embeddings from an OpenAI-compatible embeddings endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dim: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        batch_size: int = 64,
        max_rps: float | None = None,
        timeout: float = 30.0,
        attempts: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        breaker_failures: int = 5,
        breaker_cooldown: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        for key, value in [
            ("dim", 1 if dim is None else dim),
            ("batch_size", batch_size),
            ("max_rps", 1 if max_rps is None else max_rps),
            ("timeout", timeout),
            ("attempts", attempts),
            ("breaker_failures", breaker_failures),
        ]:
            if not value > 0:
                raise InvalidInput(f"{key} must be positive", issues=[Issue(key, f"{value!r}")])
        self.name, self.model = f"openai:{model}", model
        self.url = base_url.rstrip("/") + "/embeddings"
        self.query_prefix, self.document_prefix = query_prefix, document_prefix
        self.batch_size, self.attempts = batch_size, attempts
        self.backoff, self.max_backoff = backoff, max_backoff
        self._dim = dim
        self._dim_lock = threading.Lock()
        self._sleep = sleep
        self._rng = rng if rng is not None else random.Random(0)
        self.breaker = CircuitBreaker(breaker_failures, breaker_cooldown, clock)
        self._pacer = Pacer(max_rps, clock, sleep)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, transport=transport, headers=headers)

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
        self._client.close()

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
        last = ""
        for attempt in range(1, self.attempts + 1):
            if (why := self.breaker.before()) is not None:
                raise self._unavailable(why)
            self._pacer.wait()
            retry_after: float | None = None
            try:
                response = self._client.post(self.url, json=body)
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            else:
                status = response.status_code
                if status < 400:
                    self.breaker.success()
                    return response
                last = f"HTTP {status}: {_server_message(response)}"
                if status != 429 and status < 500:
                    self.breaker.success()  # it answered: the service is up, the request is bad
                    raise self._refused(status, last)
                retry_after = _retry_after(response)
            if self.breaker.failure(last):
                raise self._unavailable(f"circuit opened after this failure: {last}")
            if attempt < self.attempts:
                self._sleep(retry_after if retry_after is not None else self._delay(attempt))
        raise self._unavailable(f"gave up after {self.attempts} attempts (last: {last})")

    def _delay(self, attempt: int) -> float:
        """Exponential backoff with equal jitter: half fixed, half random."""
        ceiling = min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1))
        return ceiling * (0.5 + 0.5 * self._rng.random())

    def _unavailable(self, why: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(
            f"embedding service {self.name} is unavailable: {why}",
            issues=[Issue("embedder", f"{self.name} at {self.url}")],
        )

    def _refused(self, status: int, why: str) -> Exception:
        issues = [Issue("embedder", f"{self.name} at {self.url} answered {why}")]
        message = f"embedding service {self.name} refused the request: {why}"
        if status in (400, 413, 422):  # the input was at fault; retrying will not help
            return InvalidInput(message, issues=issues)
        return EmbedderUnavailable(message, issues=issues)  # 401, 403, 404…: configuration


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


def _server_message(response: httpx.Response) -> str:
    """The server's own words: OpenAI's `{"error": {"message"}}`, else the body's start."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict):
        error = error.get("message")
    return error[:500] if isinstance(error, str) else response.text[:200] or response.reason_phrase


def _retry_after(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (clamped to MAX_RETRY_AFTER); None when absent or a date."""
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER) if seconds == seconds else None
