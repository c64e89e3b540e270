"""Rate limits per API key or user: a token bucket of requests per second and a cap on the heavy
operations one caller runs at once, each refused with 429 `rate_limited` and `Retry-After`.

Two pieces, so that nobody is authenticated twice and nobody else decides who is authenticated:

- `RateLimit` (pure ASGI, around the whole app, `/mcp` included) opens a ticket per request, puts
  `Retry-After` on the 429 it refused, and gives back the heavy slot once the response is sent.
- `RateLimiter.guard(resolve)` wraps the principal resolver. Once `resolve` has said who the
  caller is (routes through `current_user`, `/mcp` through its endpoint), the request is charged
  to that API key, else to that user. A refusal raises `RateLimited` before any route or tool
  runs, so nothing is executed.

A request that resolves no principal is never charged: `/health`, `/protocol`, the OpenAPI pages,
and bad credentials (a 401 costs no token). The limits live in this process (several API processes
each allow the full rate) unless TABANE_RATE_SHARED keeps them in PostgreSQL
(api/ratelimit_shared.py). Which routes are heavy is decided by method and path (`HEAVY_ROUTES`).
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabane.access.keys import PREFIX_CHARS, TOKEN_PREFIX
from tabane.api.deps import PrincipalResolver
from tabane.config import Settings
from tabane.errors import Issue, Overloaded, RateLimited
from tabane.principal import Principal

# Seconds a heavy request waits for one of the server's slots before it is refused: long enough
# for a recall in flight to end (p50 well under a second at load, bench/load.py), short enough
# that nothing queues behind a burst.
HEAVY_WAIT = 1.0
# never limited, even for a caller over its limits: the probes (Taguru's too, decision 0027)
UNLIMITED = frozenset({"/health", "/taguru/health", "/taguru/live", "/taguru/version"})
MAX_TRACKED = 10_000  # past this many callers, full and idle buckets are forgotten (losslessly)

_CTX = r"/contexts/[^/]+"
# (methods, path) pairs, full matches of the request path. Heavy means a cost that grows with the
# data: a ranked read over many rows, a graph walk, an ingest (parse, chunk, index), or a user's
# export or erasure (a slot is held until the last streamed line is sent). `/mcp` is heavy as a
# whole because its tool is named in the body, which the limiter does not read.
# Evaluation has no HTTP route (`tabane eval` runs in the CLI's own process). Taguru's forms of
# the same reads and writes (under `/taguru`, decision 0023) cost the same: the prefix is allowed.
HEAVY_ROUTES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(methods.split("|")), re.compile(rf"(/taguru)?{path}"))
    for methods, path in (
        ("POST", r"/recall(/explain|/evidence)?"),  # recall, its explain twin, its evidence
        ("POST", rf"{_CTX}/(recall|retrieve|evidence)"),  # a recall over one context (Taguru's)
        ("POST", rf"({_CTX})?/sources/search(/explain)?"),  # passage search and its twin
        ("POST", rf"{_CTX}/sources"),  # ingest
        ("POST", rf"({_CTX})?/query"),  # graph queries, one context or across
        ("POST", rf"{_CTX}/(describe|activate|explore|paths|unreachable_from)"),  # graph walks
        ("GET|POST", rf"{_CTX}/vocabulary/audit"),  # scans a context's whole vocabulary
        ("POST", rf"{_CTX}/(schema|consolidation|drift)/(audit|validate)"),  # scan every edge
        ("GET", r"/users/[^/]+/export"),  # streams all of a user's rows
        ("GET", rf"({_CTX}|/groups/[^/]+)/export"),  # streams a whole context, or a group's
        ("POST", r"/(contexts|groups)/import"),  # writes whole contexts in one transaction
        ("POST", r"/import"),  # Taguru's batch stream: a transaction per source, parsed and indexed
        ("POST", rf"{_CTX}/promote"),  # Taguru's promote: an export and an import of sources
        ("POST", rf"{_CTX}/compact"),  # folds a context's fresh postings now
        ("POST", r"/maintenance/compact"),  # Taguru's sweep: every writable context's compaction
        ("DELETE", r"/users/[^/]+"),  # erasure: deletes all of them in one transaction
        ("POST", r"/mcp/?"),  # every MCP exchange
        ("GET", r"/ui/(search|recall|contexts/[^/]+/concept)"),  # the inspector's reads of them
    )
)


def is_heavy(method: str, path: str) -> bool:
    return any(method in methods and p.fullmatch(path) for methods, p in HEAVY_ROUTES)


@dataclass(frozen=True)
class RateLimits:
    """`rps` requests a second after a burst of `burst`; `heavy` heavy operations at once.
    A zero `rps` or `heavy` turns that limit off."""

    rps: float = 0.0
    burst: int = 1
    heavy: int = 0
    total: int = 0  # heavy operations at once across every key and user (0: no such limit)

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimits:
        return cls(
            settings.rate_rps, settings.rate_burst, settings.heavy_concurrency, settings.heavy_total
        )


def rate_refused(limits: RateLimits, wait: float) -> RateLimited:
    """The refusal of a request over its key's bucket, `wait` seconds before a token is back."""
    rps, burst = limits.rps, limits.burst
    return RateLimited(
        f"too many requests: {burst} at once, then {rps:g} a second per API key or user",
        retry_after=math.ceil(wait),
        issues=[Issue("TABANE_RATE_RPS", f"over {rps:g} a second (burst {burst})")],
    )


def key_full(cap: int) -> RateLimited:
    return RateLimited(
        f"too many heavy operations at once: {cap} per API key or user",
        retry_after=1,
        issues=[Issue("TABANE_HEAVY_CONCURRENCY", f"{cap} already running")],
    )


def server_full(total: int) -> Overloaded:
    return Overloaded(
        f"the server runs {total} heavy operations at once, its limit, and none "
        f"ended within {HEAVY_WAIT:g} s: retry in a moment",
        retry_after=1,
        issues=[Issue("TABANE_HEAVY_TOTAL", f"{total} already running")],
    )


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    heavy: int = 0


class RateLimiter:
    """The limits' state for one app: a bucket per key or user, behind one lock (sync routes and
    MCP principals run in worker threads). `clock` is monotonic seconds; tests pass a fake."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._heavy_total = 0  # heavy slots held across every key
        self._clock = clock
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)  # a heavy slot was given back
        self._buckets: dict[str, _Bucket] = {}

    def admit(self, key: str) -> None:
        """Take one request from `key`'s bucket, else raise `RateLimited` (taking nothing)."""
        rps = self.limits.rps
        if rps <= 0:
            return
        with self._lock:
            bucket = self._bucket(key)
            if bucket.tokens >= 1 - 1e-9:  # float slack: a whole token earned is a token
                bucket.tokens = max(0.0, bucket.tokens - 1)
                return
            wait = (1 - bucket.tokens) / rps
        raise rate_refused(self.limits, wait)

    def acquire_heavy(self, key: str) -> bool:
        """Take a heavy slot for `key` (True), or nothing when both limits are off (False);
        raise `RateLimited` when all of `key`'s slots are taken, and `Overloaded` when the whole
        server's stay taken for HEAVY_WAIT seconds (others' work fills them: retry soon). It
        runs in a worker thread (the principal resolver's), so the short wait holds no loop."""
        cap, total = self.limits.heavy, self.limits.total
        if cap <= 0 and total <= 0:
            return False
        deadline = time.monotonic() + HEAVY_WAIT  # real time: the wait is real
        with self._freed:
            while True:
                bucket = self._bucket(key)
                if cap > 0 and bucket.heavy >= cap:
                    raise key_full(cap)
                if total <= 0 or self._heavy_total < total:
                    bucket.heavy += 1
                    self._heavy_total += 1
                    return True
                left = deadline - time.monotonic()
                if left <= 0 or not self._freed.wait(left):
                    raise server_full(total)

    def release_heavy(self, key: str) -> None:
        with self._freed:
            bucket = self._buckets.get(key)
            if bucket is not None and bucket.heavy > 0:
                bucket.heavy -= 1
                self._heavy_total -= 1
                self._freed.notify()

    def in_flight(self, key: str) -> int:
        """Heavy operations `key` is running now."""
        with self._lock:
            bucket = self._buckets.get(key)
            return bucket.heavy if bucket else 0

    def guard(self, resolve: PrincipalResolver) -> PrincipalResolver:
        """`resolve`, then charge the request (once) to the key or user it resolved to."""

        def resolver(request: Request) -> Principal:
            who = resolve(request)
            ticket = _TICKET.get(None)
            if ticket is not None and ticket.limiter is self and ticket.key is None:
                ticket.charge(principal_key(request, who))
            return who

        return resolver

    def _bucket(self, key: str) -> _Bucket:
        """`key`'s bucket refilled to now (under the lock)."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED:
                self._forget_idle(now)
            bucket = self._buckets[key] = _Bucket(float(self.limits.burst), now)
        elif self.limits.rps > 0:
            earned = max(0.0, now - bucket.stamp) * self.limits.rps
            bucket.tokens = min(float(self.limits.burst), bucket.tokens + earned)
            bucket.stamp = now
        return bucket

    def _forget_idle(self, now: float) -> None:
        """Drop buckets that would be full by now and hold no heavy slot: a new one is the same."""
        rps, burst = self.limits.rps, self.limits.burst
        for key, b in list(self._buckets.items()):
            full = rps <= 0 or b.tokens + max(0.0, now - b.stamp) * rps >= burst
            if b.heavy == 0 and full:
                del self._buckets[key]


def principal_key(request: Request, who: Principal) -> str:
    """What a request is charged to: its API key when it authenticated with one, else its user."""
    scheme, _, token = request.headers.get("authorization", "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token.startswith(TOKEN_PREFIX):
        # The resolver accepted the token, so its prefix names a real key of this user.
        return "key:" + token[len(TOKEN_PREFIX) : len(TOKEN_PREFIX) + PREFIX_CHARS]
    return f"user:{who.user_id}"


@dataclass
class _Ticket:
    """One request as the limiter sees it; shared by reference with the resolver's thread."""

    limiter: RateLimiter
    method: str
    path: str
    key: str | None = None  # charged to
    heavy_key: str | None = None  # holds a heavy slot of this key
    retry_after: int | None = None  # refused: the seconds to wait

    def charge(self, key: str) -> None:
        self.key = key
        try:
            self.limiter.admit(key)
            if is_heavy(self.method, self.path) and self.limiter.acquire_heavy(key):
                self.heavy_key = key
        except (RateLimited, Overloaded) as exc:
            self.retry_after = exc.retry_after
            raise


_TICKET: ContextVar[_Ticket] = ContextVar("tabane_rate_ticket")


class RateLimit:
    """Pure ASGI: a ticket per HTTP request, `Retry-After` on a refusal, the heavy slot given
    back when the app is done with the request."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in UNLIMITED:
            await self.app(scope, receive, send)
            return
        ticket = _Ticket(self.limiter, scope["method"], scope["path"])

        async def retry_after(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (429, 503):
                # every refusal says when to come back: the limiter's wait, else a second
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"retry-after"
                ]
                headers.append((b"retry-after", str(ticket.retry_after or 1).encode()))
                message = {**message, "headers": headers}
            await send(message)

        reset = _TICKET.set(ticket)
        try:
            await self.app(scope, receive, retry_after)
        finally:
            _TICKET.reset(reset)
            if ticket.heavy_key is not None:
                self.limiter.release_heavy(ticket.heavy_key)


__all__ = [
    "HEAVY_ROUTES",
    "RateLimit",
    "RateLimiter",
    "RateLimits",
    "is_heavy",
    "key_full",
    "principal_key",
    "rate_refused",
    "server_full",
]
