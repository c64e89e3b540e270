"""`create_app`: the HTTP surface, a thin shell over the `Tabane` facade.

Layers, outermost first: Observe (the request id, its log line, the request metrics) → CatchAll
(500 `internal`, logged) → PlainUrl (422 for a path or query that is not UTF-8) → BodyLimit (413
before any route runs) → RateLimit (429 per key or user, charged once the principal is resolved;
503 `overloaded` past the server's heavy limit; every 429 and 503 gets Retry-After) → Deadline
(the request's database work bounded) → FastAPI's exception handlers (one error body) → the
routes, which authenticate through the principal resolver and call one facade method each.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from mcp.server.transport_security import TransportSecuritySettings

import tabane
from tabane.api.auth import BearerChallenge
from tabane.api.deadline import Deadline
from tabane.api.deps import PrincipalResolver, Svc, at_header
from tabane.api.errors import BodyLimit, CatchAll, PlainUrl, install_handlers
from tabane.api.local_only import LocalOnly
from tabane.api.metrics import Metrics
from tabane.api.metrics import router as metrics_router
from tabane.api.observe import Observe, noting
from tabane.api.ratelimit import RateLimit, RateLimiter
from tabane.api.ratelimit_shared import limiter_for
from tabane.api.replica import ReadReplica
from tabane.api.routes import (
    archive as routes_archive,
)
from tabane.api.routes import (
    contexts as routes_contexts,
)
from tabane.api.routes import (
    derive as routes_derive,
)
from tabane.api.routes import (
    graph_read as routes_graph_reads,
)
from tabane.api.routes import (
    graph_write as routes_graph,
)
from tabane.api.routes import (
    memory as routes_memory,
)
from tabane.api.routes import (
    recall as routes_recall,
)
from tabane.api.routes import (
    resolve as routes_resolve,
)
from tabane.api.routes import (
    schema as routes_schema,
)
from tabane.api.routes import (
    search as routes_search,
)
from tabane.api.routes import (
    sources as routes_sources,
)
from tabane.api.routes import (
    taguru as routes_taguru,
)
from tabane.api.routes import (
    taguru_wire as routes_taguru_wire,
)
from tabane.api.routes import (
    users as routes_users,
)
from tabane.mcp.server import current_request, mount_mcp
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.web import login as web_login
from tabane.web import pages as web_pages
from tabane.web import render as web_render
from tabane.wire.base import ERROR_RESPONSES, HealthOut

health_router = APIRouter(tags=["health"], responses={s: ERROR_RESPONSES[s] for s in (500, 503)})


@health_router.get("/health")
def health(svc: Svc) -> HealthOut:
    """Liveness and the schema revision; needs no authentication. While the database is away
    it answers 503 `store_unavailable` (and an embedded one is started again)."""
    return HealthOut(
        status="ok",
        version=tabane.__version__,
        database="embedded" if svc.settings.embedded else "external",
        revision=svc.revision(),
    )


def create_app(
    svc: Tabane,
    principal: PrincipalResolver | None = None,
    *,
    mcp_security: TransportSecuritySettings | None = None,
    limiter: RateLimiter | None = None,
    local_only: bool = False,
) -> FastAPI:
    """The HTTP app over `svc`, with MCP (streamable HTTP) at `/mcp`. `principal` says whom a
    request acts for (the authentication seam: an API-key or JWT resolver plugs in here); by
    default every request acts for the local user, resolved once now. No route takes a user or
    scope from the request as authority. `mcp_security` turns on the MCP SDK's Host/Origin checks
    (`tabane serve` does, for loopback). `limiter` holds the rate limits per key or user (by
    default the settings'); each request is charged once its principal is resolved.
    `local_only` answers only requests that name a loopback host (api/local_only.py: `tabane
    serve` sets it on a loopback server without authentication)."""
    metrics = Metrics(
        svc, store_seconds=svc.settings.metrics_seconds, open_to_all=principal is None
    )
    resolver = principal if principal is not None else _local(svc)
    if limiter is None:
        limiter = limiter_for(svc.settings, svc.store)  # TABANE_RATE_SHARED
    principal = noting(limiter.guard(at_header(resolver)))

    app = FastAPI(
        title="tabane",
        version=tabane.__version__,
        description="Grounded memory for LLM agents. Every error answers one body: "
        '`{"error": {"code", "message", "issues": [{"path", "problem"}], "written"}}`.',
    )
    app.state.tabane = svc
    app.state.principal = principal
    app.state.metrics = metrics
    install_handlers(app)
    _include_routes(app)
    app.state.web = web_render.environment()

    # Sub-applications are mounted here and only here: inside BodyLimit and CatchAll below, so
    # they get the same guards.
    resolve = principal
    mount_mcp(app, svc, lambda: resolve(current_request()), security=mcp_security)
    # Taguru's base URL ends in /taguru: the same server, its transport (decision 0027)
    mount_mcp(
        app, svc, lambda: resolve(current_request()), path="/taguru/mcp", security=mcp_security
    )
    _add_layers(app, svc, limiter, metrics, local_only=local_only)
    return app


def _local(svc: Tabane) -> PrincipalResolver:
    """The resolver of a server without authentication: every request acts for the local user,
    resolved once now."""
    local = svc.local_user()

    def principal(request: Request) -> Principal:
        return local

    return principal


def _include_routes(app: FastAPI) -> None:
    app.include_router(health_router)
    app.include_router(routes_contexts.router)
    app.include_router(routes_archive.router)
    app.include_router(routes_sources.router)
    app.include_router(routes_search.router)
    app.include_router(routes_graph.router)
    app.include_router(routes_graph.protocol_router)
    app.include_router(routes_resolve.router)
    app.include_router(routes_schema.router)
    app.include_router(routes_graph_reads.router)
    app.include_router(routes_taguru.router)
    app.include_router(routes_taguru_wire.router)  # Taguru's wire under /taguru (decision 0023)
    app.include_router(routes_memory.router)
    app.include_router(routes_recall.router)
    app.include_router(routes_derive.router)
    app.include_router(routes_users.router)
    app.include_router(metrics_router)  # Prometheus's text, not in the OpenAPI
    app.include_router(web_pages.router)  # the inspector's HTML pages, not in the OpenAPI
    app.include_router(web_login.router)


def _add_layers(
    app: FastAPI, svc: Tabane, limiter: RateLimiter, metrics: Metrics, *, local_only: bool
) -> None:
    """The middleware, innermost first (the module docstring lists them outermost first)."""
    app.add_middleware(Deadline, seconds=svc.settings.request_seconds)  # its database work's
    if svc.store.read is not None:  # TABANE_READ_DATABASE_URL: read-only routes read there
        app.add_middleware(ReadReplica)
    app.add_middleware(RateLimit, limiter=limiter)  # 429s get Retry-After; heavy slots freed
    app.add_middleware(BearerChallenge)  # every 401 (routes and /mcp) names the scheme
    app.add_middleware(BodyLimit, max_bytes=svc.settings.max_body_bytes)
    app.add_middleware(PlainUrl)  # a path or query that is not UTF-8 never reaches a route
    if local_only:  # no DNS-rebinding page reaches the local user's memory
        app.add_middleware(LocalOnly)
    app.add_middleware(CatchAll)
    app.add_middleware(Observe, metrics=metrics)  # added last = outermost: sees every answer
