"""The wire shapes of a context's schema (get, put, validate) and the three audits (schema,
consolidation, drift). Requests are strict; names, kinds and bounds are checked in the service
(graph/schema.py `checked`), so every surface reports them with the same codes and paths.
Responses mirror the service's frozen dataclasses in full."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from tabane.checks import MAX_INT4
from tabane.graph.consolidation import SECTIONS as CONSOLIDATION_SECTIONS
from tabane.graph.drift import SECTIONS as DRIFT_SECTIONS
from tabane.graph.schema import DEFAULT_KIND_LABEL, KindDecl, LabelDecl, Schema
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.service.schema import MAX_PAGE
from tabane.wire.base import ContextArg, Request, Response

LIMIT = f"rows per page (per section), 1-{MAX_PAGE}"
CURSOR = "the offset to start at: a page's `next_cursor`"

# -- requests -----------------------------------------------------------------------------------


class LabelIn(Request):
    name: str = Field(max_length=MAX_SPELLING, description="the label's canonical spelling")
    description: str = Field("", description="what an edge under it says")
    subject_kinds: list[str] = Field(
        default_factory=list, description="kinds a typed subject must have one of (empty: any)"
    )
    object_kinds: list[str] = Field(
        default_factory=list, description="kinds a typed object must have one of (empty: any)"
    )
    symmetric: bool = Field(False, description="(a, l, b) also says (b, l, a): write one")


class KindIn(Request):
    name: str = Field(
        max_length=MAX_SPELLING, description="a concept kind: the object of `kind_label` edges"
    )
    description: str = Field("", description="what concepts of this kind are")


class SchemaDocIn(Request):
    """A whole schema document: it replaces the stored one."""

    strict: bool = Field(
        False, description="refuse writes that break the schema (`schema_violation`)"
    )
    kind_label: str = Field(
        DEFAULT_KIND_LABEL, description="the label whose objects are a concept's kinds"
    )
    labels: list[LabelIn] = Field(default_factory=list, description="the declared labels")
    kinds: list[KindIn] = Field(default_factory=list, description="the declared concept kinds")

    def to_schema(self, context: str) -> Schema:
        return Schema(
            context=context,
            version=0,
            strict=self.strict,
            kind_label=self.kind_label,
            labels=tuple(
                LabelDecl(
                    d.name,
                    d.description,
                    tuple(d.subject_kinds),
                    tuple(d.object_kinds),
                    d.symmetric,
                )
                for d in self.labels
            ),
            kinds=tuple(KindDecl(k.name, k.description) for k in self.kinds),
        )


class PutSchemaIn(SchemaDocIn):
    expected_version: int = Field(
        ge=0,
        le=MAX_INT4,
        description="the version you read (0: none declared yet); a stale one is refused",
    )


class ValidateSchemaIn(SchemaDocIn):
    limit: int = Field(100, ge=1, le=MAX_PAGE, description=LIMIT)
    cursor: int = Field(0, ge=0, le=MAX_INT4, description=CURSOR)


class AuditSchemaIn(Request):
    limit: int = Field(100, ge=1, le=MAX_PAGE, description=LIMIT)
    cursor: int = Field(0, ge=0, le=MAX_INT4, description=CURSOR)


class ConsolidationIn(AuditSchemaIn):
    sections: list[str] | None = Field(
        None, description=f"some of {list(CONSOLIDATION_SECTIONS)} (default: all)"
    )


class DriftIn(AuditSchemaIn):
    since: str | None = Field(None, description="ISO 8601 (default: 30 days before `until`)")
    until: str | None = Field(None, description="ISO 8601, exclusive (default: now)")
    sections: list[str] | None = Field(
        None, description=f"some of {list(DRIFT_SECTIONS)} (default: all)"
    )


class GetSchemaArgs(Request):
    context: ContextArg


class PutSchemaArgs(PutSchemaIn):
    context: ContextArg


class ValidateSchemaArgs(ValidateSchemaIn):
    context: ContextArg


class AuditSchemaArgs(AuditSchemaIn):
    context: ContextArg


class ConsolidationArgs(ConsolidationIn):
    context: ContextArg


class DriftArgs(DriftIn):
    context: ContextArg


# -- responses ----------------------------------------------------------------------------------


class LabelOut(Response):
    name: str
    description: str
    subject_kinds: list[str]
    object_kinds: list[str]
    symmetric: bool


class KindOut(Response):
    name: str
    description: str


class SchemaOut(Response):
    context: str
    version: int = Field(description="0: no schema declared; send it back as expected_version")
    strict: bool
    kind_label: str
    labels: list[LabelOut]
    kinds: list[KindOut]
    updated_at: datetime | None


class ViolationOut(Response):
    rule: str = Field(description="undeclared_label | undeclared_kind | subject_kind | object_kind")
    label: str
    subject: str | None
    object: str | None
    edges: int
    found: list[str]
    expected: list[str]
    reason: str


class ConformanceOut(Response):
    context: str
    version: int
    draft: bool = Field(description="true: a document checked without being stored")
    counts: dict[str, int] = Field(description="rows per rule over every page")
    violations: list[ViolationOut]
    total: int
    cursor: int
    next_cursor: int | None
    limit: int


class SectionOut(Response):
    total: int
    next_cursor: int | None
    capped: bool = False


class MergeCandidateOut(Response):
    a: str
    b: str
    tier: str
    score: float
    overlap: float = Field(description="Jaccard of the two live neighbourhoods")
    shared: int
    edges_a: int
    edges_b: int
    distinct: bool
    action: str = Field(description="alias | reattribute | keep")
    reason: str


class DuplicateClaimsOut(Response):
    subject: str
    label: str
    object: str
    source: str
    perspective: str
    claims: int
    weight: float
    reason: str


class AliasOverlapOut(Response):
    rule: str = Field(description="alias_is_concept | alias_split")
    alias: str
    targets: list[str]
    other: str | None
    reason: str


class ConsolidationOut(Response):
    context: str
    twins: list[MergeCandidateOut]
    duplicates: list[DuplicateClaimsOut]
    aliases: list[AliasOverlapOut]
    sections: dict[str, SectionOut]
    semantic_reason: str | None
    cursor: int
    limit: int


class LabelDriftOut(Response):
    label: str
    claims: int
    first_used: datetime
    declared: bool
    reason: str


class WeightMoveOut(Response):
    subject: str
    label: str
    object: str
    change: float
    weight: float
    added: int
    closed: int
    reason: str


class RetractionOut(Response):
    claim: int
    subject: str | None
    label: str | None
    object: str | None
    statement: str | None
    weight: float | None
    source: str | None
    closed_at: datetime


class PageOut(Response):
    total: int
    next_cursor: int | None


class DriftOut(Response):
    context: str
    since: datetime
    until: datetime
    schema_version: int
    labels: list[LabelDriftOut]
    weights: list[WeightMoveOut]
    retracted: list[RetractionOut]
    pages: dict[str, PageOut]
    cursor: int
    limit: int
