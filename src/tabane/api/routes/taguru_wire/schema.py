"""A context's schema and its audits in Taguru's form (decision 0027, "The schema"): each route
is one facade call over tabane's schema service (decision 0025), translated both ways by
wire/taguru/schema.py."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Body

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.audits import NOTES
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.wire.taguru import Ok
from tabane.wire.taguru.schema import (
    Candidates,
    ConsolidationAudit,
    SchemaAudit,
    SchemaDocOut,
    TaguruAuditIn,
    TaguruConsolidationIn,
    TaguruPutSchemaIn,
    TaguruValidateIn,
    audit,
    cursor,
    document,
    merge,
)

router = APIRouter(prefix="/contexts/{context}")


@router.get("/schema")
def get_schema(context: str, svc: Svc, user: User, started: Started) -> Ok[SchemaDocOut]:
    """The document `{schema: 1, mode, closed_labels, types, relations}` with tabane's
    `kind_label` and `version` beside; none declared is the empty `off` document at version 0
    (it checks nothing, as no document does), not 404 `no_schema`."""
    return Ok[SchemaDocOut].model_validate(ok(document(svc.get_schema(user, context)), started))


@router.put("/schema")
def put_schema(
    context: str, body: TaguruPutSchemaIn, svc: Svc, user: User, started: Started
) -> Ok[SchemaDocOut]:
    """Install the document, answering it as installed (`warn` comes back `off`). Without
    `expected_version` it replaces whatever is stored (Taguru's PUT); with it, a stale version
    is `schema_version_conflict`. `is_a`, and `closed_labels` other than the mode's, are
    refused by name."""
    draft = body.to_schema(context)
    done = svc.put_schema(user, context, draft, expected_version=body.expected_version)
    return Ok[SchemaDocOut].model_validate(ok(document(done), started))


@router.post("/schema/audit")
def audit_schema(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    body: TaguruAuditIn | None = Body(None),
) -> Ok[SchemaAudit]:
    """Every live edge against the stored document: typed ends outside their label's kinds are
    `violations`; undeclared labels and kinds are names. Pages tabane's rows (`after` is the
    previous `next`); each total covers every page."""
    asked = body if body is not None else TaguruAuditIn.model_validate({})
    found = svc.audit_schema(user, context, limit=asked.limit, cursor=cursor(asked.after))
    return Ok[SchemaAudit].model_validate(ok(audit(found), started))


@router.post("/schema/validate")
def validate_schema(
    context: str, body: TaguruValidateIn, svc: Svc, user: User, started: Started
) -> Ok[SchemaAudit]:
    """The audit over a proposed `document`, never stored: the pre-flight before `strict`."""
    draft = body.document.to_schema(context, "document.")
    found = svc.validate_schema(user, context, draft, limit=body.limit, cursor=cursor(body.after))
    return Ok[SchemaAudit].model_validate(ok(audit(found), started))


@router.post("/consolidation/audit", response_model_exclude_none=True)
def audit_consolidation(
    context: str, body: TaguruConsolidationIn, svc: Svc, user: User, started: Started
) -> Ok[ConsolidationAudit]:
    """Candidates, never applied: `merge` (tabane's twins with their shared neighbourhood and
    how a merge would be applied), and tabane's `duplicates` and `aliases`. `contradiction` and
    `staleness` are refused by name: tabane does not run them."""
    found = svc.audit_consolidation(user, context, sections=body.sections(), limit=body.limit)
    pages = found.sections

    def rows(name: str, items: list[dict[str, object]]) -> Candidates | None:
        return Candidates(total=pages[name].total, candidates=items) if name in pages else None

    done = ConsolidationAudit(
        detector="tabane consolidation (decision 0025)",
        merge=rows("twins", [merge(c).model_dump() for c in found.twins]),
        duplicates=rows("duplicates", [asdict(d) for d in found.duplicates]),
        aliases=rows("aliases", [asdict(a) for a in found.aliases]),
        semantic_note=NOTES.get(found.semantic_reason or "", found.semantic_reason),
        unused=body.unused(),
    )
    return Ok[ConsolidationAudit].model_validate(ok(done, started))
