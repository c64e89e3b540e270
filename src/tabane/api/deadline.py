"""Every HTTP request has a deadline for its database work (TABANE_REQUEST_SECONDS).

Pure ASGI, around the app: it sets the store's `DEADLINE` for the request, and each transaction
the request opens sets PostgreSQL's statement and lock timeouts to what is left of it
(storage/store.py), so a request that would run past it is stopped by PostgreSQL and answered
503 `overloaded` with `Retry-After`, never left running. A context's export and import move a
whole context in one snapshot or transaction and have no deadline.
"""

from __future__ import annotations

import re
import time

from starlette.types import ASGIApp, Receive, Scope, Send

from tabane.storage.store import DEADLINE

UNBOUNDED = re.compile(r"/contexts/([^/]+/export|import)")


class Deadline:
    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.seconds <= 0 or UNBOUNDED.fullmatch(scope["path"]):
            await self.app(scope, receive, send)
            return
        token = DEADLINE.set(time.monotonic() + self.seconds)
        try:
            await self.app(scope, receive, send)
        finally:
            DEADLINE.reset(token)
