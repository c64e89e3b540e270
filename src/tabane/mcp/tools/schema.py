"""The schema tools (get_schema, put_schema, validate_schema) and the audits (audit_schema,
audit_consolidation, audit_drift)."""

from __future__ import annotations

from tabane.graph.conformance import Conformance
from tabane.graph.consolidation import Consolidation
from tabane.graph.drift import Drift
from tabane.graph.schema import Schema
from tabane.mcp.registry import tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.schema import (
    AuditSchemaArgs,
    ConsolidationArgs,
    DriftArgs,
    GetSchemaArgs,
    PutSchemaArgs,
    ValidateSchemaArgs,
)


@tool("read")
def get_schema(svc: Tabane, user: Principal, a: GetSchemaArgs) -> Schema:
    """A context's declared labels (kinds each end takes, symmetric, meaning) and concept kinds
    (objects of `kind_label` edges), `strict`, and `version` (0: none). Reuse declared labels."""
    return svc.get_schema(user, a.context)


@tool("update")
def put_schema(svc: Tabane, user: Principal, a: PutSchemaArgs) -> Schema:
    """Replace a context's schema whole. `expected_version` is the version you read (0: none);
    a stale one is refused (`schema_version_conflict`): read again and reapply. `strict` makes
    writes that break it fail with `schema_violation`. Run validate_schema first."""
    draft = a.to_schema(a.context)
    return svc.put_schema(user, a.context, draft, expected_version=a.expected_version)


@tool("read")
def validate_schema(svc: Tabane, user: Principal, a: ValidateSchemaArgs) -> Conformance:
    """Dry run of a draft schema: the stored edges it would flag (undeclared labels or kinds,
    typed ends outside their label's kinds), with reasons, paged; nothing is stored."""
    draft = a.to_schema(a.context)
    return svc.validate_schema(user, a.context, draft, limit=a.limit, cursor=a.cursor)


@tool("read")
def audit_schema(svc: Tabane, user: Principal, a: AuditSchemaArgs) -> Conformance:
    """The stored graph against the stored schema: the same rules as validate_schema."""
    return svc.audit_schema(user, a.context, limit=a.limit, cursor=a.cursor)


@tool("read")
def audit_consolidation(svc: Tabane, user: Principal, a: ConsolidationArgs) -> Consolidation:
    """What could be merged, as candidates with reasons: twins with shared neighbours and how to
    apply a merge (alias, reattribute, keep), duplicate claims of one source, alias overlaps."""
    return svc.audit_consolidation(
        user, a.context, sections=a.sections, limit=a.limit, cursor=a.cursor
    )


@tool("read")
def audit_drift(svc: Tabane, user: Principal, a: DriftArgs) -> Drift:
    """How a context moved in [since, until) (default 30 days): labels used but undeclared,
    edges whose weight moved most, claims retracted. Paged per section."""
    return svc.audit_drift(
        user,
        a.context,
        since=a.since,
        until=a.until,
        sections=a.sections,
        limit=a.limit,
        cursor=a.cursor,
    )
