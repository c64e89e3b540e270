"""Which HTTP requests read on the replica (TABANE_READ_DATABASE_URL; storage/replica.py).

Every GET (lists, shows, graph pages, traces, the inspector) and the POST routes that only read:
search and its explain twin, recall and its twin, resolve and its twins, the graph reads (query,
describe, activate, explore, paths, unreachable_from, citations), the catalog, community and
source look-ups. What such a read writes as a side effect (usage counts, recall's trace) goes to
the primary within the same transaction. Exports take a snapshot and stay on the primary, as do
`/mcp` (its tool is named in the body) and every other write.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

from tabane.storage.replica import READ_REPLICA

_CTX = r"(/contexts/[^/]+)?"
READ_POSTS = re.compile(
    rf"{_CTX}/(sources/search|recall|resolve|resolve_label)(/explain)?"
    rf"|{_CTX}/(query|describe|activate|explore|paths|unreachable_from|citations)"
    rf"|{_CTX}/(catalog/search(/explain)?|communities/search|sources/lookup)"
    rf"|{_CTX}/associations/citations"
)
NOT_REPLICA_GETS = re.compile(r"/mcp/?|/users/[^/]+/export|/contexts/[^/]+/export|/health")


def reads_on_replica(method: str, path: str) -> bool:
    if method in ("GET", "HEAD"):
        return not NOT_REPLICA_GETS.fullmatch(path)
    return method == "POST" and READ_POSTS.fullmatch(path) is not None


class ReadReplica:
    """Pure ASGI: marks a read-only request so that its transactions read on the replica."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not reads_on_replica(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        token = READ_REPLICA.set(True)
        try:
            await self.app(scope, receive, send)
        finally:
            READ_REPLICA.reset(token)
