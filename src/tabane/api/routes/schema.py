"""A context's schema (get, put, validate) and the audits (schema, consolidation, drift), at
Taguru's paths under `/contexts/{context}`. Each route is one facade call."""

from __future__ import annotations

from fastapi import APIRouter

from tabane.api.deps import Svc, User
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.schema import (
    AuditSchemaIn,
    ConformanceOut,
    ConsolidationIn,
    ConsolidationOut,
    DriftIn,
    DriftOut,
    PutSchemaIn,
    SchemaOut,
    ValidateSchemaIn,
)

router = APIRouter(prefix="/contexts/{context}", tags=["schema"], responses=ERROR_RESPONSES)


@router.get("/schema")
def get_schema(context: str, svc: Svc, user: User) -> SchemaOut:
    """The context's declared schema: its labels (the kinds each end takes, symmetry, meaning),
    its concept kinds (objects of `kind_label` edges), `strict`, and `version` — 0 when none is
    declared. Send `version` back as `expected_version` when you replace it."""
    return out(SchemaOut, svc.get_schema(user, context))


@router.put("/schema")
def put_schema(context: str, body: PutSchemaIn, svc: Svc, user: User) -> SchemaOut:
    """Replace the schema as a whole if it is still at `expected_version` (0: none yet); a stale
    version is refused with `schema_version_conflict` so two writers never clobber each other.
    With `strict`, later writes that use an undeclared label or kind, or a typed end outside its
    label's kinds, are refused (`schema_violation`). Run `schema/validate` first to see what the
    stored graph already breaks."""
    draft = body.to_schema(context)
    return out(
        SchemaOut, svc.put_schema(user, context, draft, expected_version=body.expected_version)
    )


@router.post("/schema/validate")
def validate_schema(context: str, body: ValidateSchemaIn, svc: Svc, user: User) -> ConformanceOut:
    """A dry run: what in the stored graph this draft schema would flag (undeclared labels and
    kinds, typed ends outside their label's kinds), paged, without storing anything."""
    result = svc.validate_schema(
        user, context, body.to_schema(context), limit=body.limit, cursor=body.cursor
    )
    return out(ConformanceOut, result)


@router.post("/schema/audit")
def audit_schema(context: str, body: AuditSchemaIn, svc: Svc, user: User) -> ConformanceOut:
    """The stored graph against the stored schema: the same rules and rows as `schema/validate`,
    each with its reason; `counts` covers every page."""
    result = svc.audit_schema(user, context, limit=body.limit, cursor=body.cursor)
    return out(ConformanceOut, result)


@router.post("/consolidation/audit")
def audit_consolidation(
    context: str, body: ConsolidationIn, svc: Svc, user: User
) -> ConsolidationOut:
    """What could be merged — candidates, never applied: `twins` (spelling or gloss twins with
    their shared neighbourhood and how a merge would be applied), `duplicates` (one source
    asserting one edge several times), `aliases` (an alias one spelling apart from another
    concept, or split across concepts). Each section paged with its total."""
    result = svc.audit_consolidation(
        user, context, sections=body.sections, limit=body.limit, cursor=body.cursor
    )
    return out(ConsolidationOut, result)


@router.post("/drift/audit")
def audit_drift(context: str, body: DriftIn, svc: Svc, user: User) -> DriftOut:
    """How the context moved in [since, until) (default: the last 30 days): `labels` used that
    the schema does not declare (or, with none, first used in the window), `weights` of the
    edges that moved most, and the claims `retracted`. Each section paged with its total."""
    result = svc.audit_drift(
        user,
        context,
        since=body.since,
        until=body.until,
        sections=body.sections,
        limit=body.limit,
        cursor=body.cursor,
    )
    return out(DriftOut, result)
