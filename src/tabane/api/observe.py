"""Every HTTP request gets an id, one log line and its place in the request metrics.

Pure ASGI, outermost (it sees the 500s CatchAll answers and the refusals of every other layer).
The id is the caller's `X-Request-Id` when it is 1–64 letters, digits, `.`, `_` or `-`, else a
new one (an id that fails the check is replaced, never echoed: it would land in logs and in
PostgreSQL's `application_name`); it is answered in `X-Request-Id` and set as the
`application_name` of the request's transactions (storage/store.py `REQUEST_ID`). The log line
(logger `tabane.http`) carries method, route template, status, duration, request id and the
user and key when the request authenticated — never the path's values, the query string, the
body or a credential: the route template stands for the path.
"""

from __future__ import annotations

import contextvars
import logging
import re
import time
import uuid
from dataclasses import dataclass

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabane.access.keys import PREFIX_CHARS, TOKEN_PREFIX
from tabane.api.deps import PrincipalResolver
from tabane.api.metrics import Metrics
from tabane.principal import Principal
from tabane.storage.store import REQUEST_ID

log = logging.getLogger("tabane.http")

HEADER = "x-request-id"
VALID_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
UNROUTED = "(unrouted)"  # the route of a request refused before routing (413, 422 of the URL)


@dataclass
class Seen:
    """What the layers inside learn of a request: whom it acted for (set by the resolver)."""

    user: str | None = None
    key: str | None = None


_SEEN: contextvars.ContextVar[Seen | None] = contextvars.ContextVar("seen", default=None)


def request_id(scope: Scope) -> str:
    """The caller's id when it passes the check, else a new one (32 hex digits)."""
    for name, value in scope.get("headers", ()):
        if name == HEADER.encode():
            given = bytes(value).decode("latin-1")
            if VALID_ID.fullmatch(given):
                return given
            break
    return uuid.uuid4().hex


def noting(resolve: PrincipalResolver) -> PrincipalResolver:
    """`resolve`, noting whom the request acts for (and its key's public prefix) for the log."""

    def resolved(request: Request) -> Principal:
        who = resolve(request)
        seen = _SEEN.get()
        if seen is not None:
            seen.user = who.name
            _, _, token = request.headers.get("authorization", "").strip().partition(" ")
            token = token.strip()
            if token.startswith(TOKEN_PREFIX):  # accepted, so its prefix names the key
                seen.key = token[len(TOKEN_PREFIX) : len(TOKEN_PREFIX) + PREFIX_CHARS]
        return who

    return resolved


def route_of(scope: Scope) -> str:
    """The template of the route that answered (`/contexts/{name}`), never the path itself."""
    path = getattr(scope.get("route"), "path", None)
    return str(path) if isinstance(path, str) and path else UNROUTED


class Observe:
    def __init__(self, app: ASGIApp, metrics: Metrics | None) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)
        seen = Seen()
        tokens = (REQUEST_ID.set(rid), _SEEN.set(seen))
        status = 500  # what the caller gets if nothing answers (CatchAll answers inside)
        started = time.perf_counter()

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, answer)
        finally:
            REQUEST_ID.reset(tokens[0])
            _SEEN.reset(tokens[1])
            seconds = time.perf_counter() - started
            route = route_of(scope)
            method = str(scope.get("method", ""))
            if self.metrics is not None:
                self.metrics.observe(method, route, status, seconds)
            log.info(
                "%s %s %d %.1fms",
                method,
                route,
                status,
                seconds * 1000,
                extra={
                    "method": method,
                    "route": route,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 3),
                    "request_id": rid,
                    "user": seen.user,
                    "key": seen.key,
                },
            )
