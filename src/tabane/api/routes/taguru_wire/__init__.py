"""Taguru's wire under `/taguru` (decision 0023): a Taguru client whose base URL ends in
`/taguru` works unchanged. Every answer is Taguru's envelope `{result, status: "ok", time}`;
an error is Taguru's shape `{status: "error", code, error, time}` carrying tabane's stable code
(api/errors.py). Each route is one facade call, as its tabane twin at the root is; docs/taguru.md
is the census of what is served here."""

from __future__ import annotations

from fastapi import APIRouter

from tabane.api.routes.taguru_wire import (
    archive,
    audits,
    contexts,
    derive,
    evidence,
    graph,
    schema,
    sources,
    system,
    upkeep,
)
from tabane.wire.base import ERROR_RESPONSES

router = APIRouter(prefix="/taguru", tags=["taguru"], responses=ERROR_RESPONSES)
for part in (system, contexts, graph, sources, upkeep, archive, audits, derive, evidence, schema):
    router.include_router(part.router)
