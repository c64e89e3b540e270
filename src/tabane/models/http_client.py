"""A resilient JSON-over-HTTP client shared by the model providers (embeddings, rerank).

Requests are paced (at most `max_rps` per second), retried on 429, 5xx, timeouts and transport
errors with exponential backoff and equal jitter (a server's `Retry-After` seconds are honoured,
clamped to a minute), and guarded by a circuit breaker: after `breaker_failures` consecutive failed
requests the circuit opens for `breaker_cooldown` seconds and calls fail fast with the configured
`unavailable` error; after that one trial request is let through (half-open), and its outcome
closes or reopens the circuit. Other 4xx are not retried: 400, 413 and 422 mean the input was at
fault (`InvalidInput`), the rest (401, 403, 404…) a configuration fault (`unavailable`).

The transport, clock, sleep and jitter source are injectable, so tests run over real loopback HTTP
(tests/fakes/: `openai_server`, `rerank_server`) without waiting.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any, TypedDict

import httpx

from tabane.errors import EmbedderUnavailable, InvalidInput, Issue, TabaneError

# A Retry-After above this is clamped: a call should not stall for longer than a minute.
MAX_RETRY_AFTER = 60.0


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


class HttpOptions(TypedDict, total=False):
    """How a provider talks to its service; every provider takes these as keyword arguments
    and hands them to its `ResilientClient` unchanged."""

    api_key: str | None
    max_rps: float | None
    timeout: float
    attempts: int
    backoff: float
    max_backoff: float
    breaker_failures: int
    breaker_cooldown: float
    transport: httpx.BaseTransport | None
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    rng: random.Random | None


class ResilientClient:
    """POST JSON to `{base_url}{path}` with pacing, retries and a circuit breaker.

    Messages say "{kind} {name} is unavailable: …" ("embedding service openai:m"); `issue_path`
    is the path of the issues raised ("embedder"), and `unavailable` the error class raised when
    the service keeps failing or refuses on configuration grounds.
    """

    def __init__(
        self,
        base_url: str,
        *,
        kind: str,
        name: str,
        issue_path: str,
        unavailable: type[TabaneError] = EmbedderUnavailable,
        api_key: str | None = None,
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
            ("max_rps", 1 if max_rps is None else max_rps),
            ("timeout", timeout),
            ("attempts", attempts),
            ("breaker_failures", breaker_failures),
        ]:
            if not value > 0:
                raise InvalidInput(f"{key} must be positive", issues=[Issue(key, f"{value!r}")])
        self.base_url = base_url.rstrip("/")
        self.kind, self.name, self.issue_path = kind, name, issue_path
        self.unavailable = unavailable
        self.attempts, self.backoff, self.max_backoff = attempts, backoff, max_backoff
        self._sleep = sleep
        self._rng = rng if rng is not None else random.Random(0)
        self.breaker = CircuitBreaker(breaker_failures, breaker_cooldown, clock)
        self._pacer = Pacer(max_rps, clock, sleep)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, transport=transport, headers=headers)

    def url(self, path: str) -> str:
        return self.base_url + path

    def post_json(self, path: str, body: Any) -> httpx.Response:
        """The first answer below 400; retried, refused or failed fast as the docstring says."""
        url = self.url(path)
        last = ""
        for attempt in range(1, self.attempts + 1):
            if (why := self.breaker.before()) is not None:
                raise self._unavailable(url, why)
            self._pacer.wait()
            retry_after: float | None = None
            try:
                response = self._client.post(url, json=body)
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            else:
                status = response.status_code
                if status < 400:
                    self.breaker.success()
                    return response
                last = f"HTTP {status}: {server_message(response)}"
                if status != 429 and status < 500:
                    self.breaker.success()  # it answered: the service is up, the request is bad
                    raise self._refused(url, status, last)
                retry_after = retry_after_seconds(response)
            if self.breaker.failure(last):
                raise self._unavailable(url, f"circuit opened after this failure: {last}")
            if attempt < self.attempts:
                self._sleep(retry_after if retry_after is not None else self._delay(attempt))
        raise self._unavailable(url, f"gave up after {self.attempts} attempts (last: {last})")

    def close(self) -> None:
        """Close the HTTP client's connections."""
        self._client.close()

    def __enter__(self) -> ResilientClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _delay(self, attempt: int) -> float:
        """Exponential backoff with equal jitter: half fixed, half random."""
        ceiling = min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1))
        return ceiling * (0.5 + 0.5 * self._rng.random())

    def _unavailable(self, url: str, why: str) -> TabaneError:
        return self.unavailable(
            f"{self.kind} {self.name} is unavailable: {why}",
            issues=[Issue(self.issue_path, f"{self.name} at {url}")],
        )

    def _refused(self, url: str, status: int, why: str) -> TabaneError:
        issues = [Issue(self.issue_path, f"{self.name} at {url} answered {why}")]
        message = f"{self.kind} {self.name} refused the request: {why}"
        if status in (400, 413, 422):  # the input was at fault; retrying will not help
            return InvalidInput(message, issues=issues)
        return self.unavailable(message, issues=issues)  # 401, 403, 404…: configuration


def server_message(response: httpx.Response) -> str:
    """The server's own words: `{"error": {"message"}}` (OpenAI), `{"error": "…"}` (TEI),
    `{"message": "…"}` (Cohere, Jina), else the body's start."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    if error is None and isinstance(payload, dict):
        error = payload.get("message")
    return error[:500] if isinstance(error, str) else response.text[:200] or response.reason_phrase


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (clamped to MAX_RETRY_AFTER); None when absent or a date."""
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER) if seconds == seconds else None
