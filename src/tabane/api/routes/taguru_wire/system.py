"""Taguru's probes and server-wide calls: `/health`, `/live`, `/version`, `/protocol`,
`/metrics` (bare, as Taguru answers them), and `POST /flush` (decision 0027)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

import tabane
from tabane.api.deps import Svc, User
from tabane.api.metrics import metrics
from tabane.api.routes.graph_write import protocol
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.wire.base import HealthOut
from tabane.wire.contexts import FlushIn
from tabane.wire.taguru import Ok
from tabane.wire.taguru.upkeep import Contract, VersionOut

router = APIRouter()


@router.get("/health")
def health(svc: Svc) -> HealthOut:
    """Readiness, bare (no envelope): `{status: "ok", version}` with tabane's `database` and
    schema `revision` beside; 503 `store_unavailable` in Taguru's error shape while the
    database is away."""
    return HealthOut(
        status="ok",
        version=tabane.__version__,
        database="embedded" if svc.settings.embedded else "external",
        revision=svc.revision(),
    )


@router.get("/live", response_class=PlainTextResponse)
def live() -> PlainTextResponse:
    """Liveness: `ok` for as long as the process answers, whatever the database does."""
    return PlainTextResponse("ok")


@router.get("/version")
def version() -> VersionOut:
    """Which wire shapes this server speaks (bare, always 200): Taguru's HTTP contract 1, the
    MCP protocol versions the SDK handshakes; no batch, image or communities formats (tabane
    keeps none of Taguru's files: its archive is its own, decision 0027)."""
    one = Contract(current=1, supported=[1])
    return VersionOut(
        server=tabane.__version__,
        http_contract=one,
        mcp_contract=one,
        mcp_protocol={"supported": list(HANDSHAKE_PROTOCOL_VERSIONS)},
    )


router.add_api_route(
    "/protocol",
    protocol,
    methods=["GET"],
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {}}, "description": "the manual"}},
)
router.add_api_route("/metrics", metrics, methods=["GET"], include_in_schema=False)


@router.post("/flush")
def flush(svc: Svc, user: User, started: Started, body: FlushIn | None = None) -> Ok[list[str]]:
    """Every committed write is already durable in PostgreSQL; what is left to flush is the
    work queued behind writes. Runs the queued jobs of every context the caller may write
    until none is left or `timeout` seconds pass → the contexts with none left."""
    done = svc.flush_all(user, body.timeout if body is not None else 30.0)
    return Ok[list[str]].model_validate(ok([f.context for f in done if f.left == 0], started))
