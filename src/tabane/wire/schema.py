"""The wire shapes of a context's schema (get, put, validate) and the three audits (schema,
consolidation, drift). Requests are strict; names, kinds and bounds are checked in the service
(graph/schema.py `checked`), so every surface reports them with the same codes and paths.
Responses mirror the service's frozen dataclasses in full."""

from __future__ import annotations

from pydantic import Field

from tabane.checks import MAX_INT4
from tabane.graph.conformance import Conformance, Violation
from tabane.graph.consolidation import SECTIONS as CONSOLIDATION_SECTIONS
from tabane.graph.consolidation import (
    AliasOverlap,
    Consolidation,
    DuplicateClaims,
    MergeCandidate,
    Section,
)
from tabane.graph.drift import SECTIONS as DRIFT_SECTIONS
from tabane.graph.drift import Drift, LabelDrift, Page, Retraction, WeightMove
from tabane.graph.schema import DEFAULT_KIND_LABEL, KindDecl, LabelDecl, Schema
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.service.schema import MAX_PAGE
from tabane.wire.base import ContextArg, Request, Response, served

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


@served(LabelDecl)
class LabelOut(Response):
    pass


@served(KindDecl)
class KindOut(Response):
    pass


@served(Schema, {"version": "0: no schema declared; send it back as expected_version"})
class SchemaOut(Response):
    labels: list[LabelOut]
    kinds: list[KindOut]


@served(
    Violation,
    {"rule": "undeclared_label | undeclared_kind | subject_kind | object_kind"},
)
class ViolationOut(Response):
    pass


@served(
    Conformance,
    {
        "draft": "true: a document checked without being stored",
        "counts": "rows per rule over every page",
    },
)
class ConformanceOut(Response):
    violations: list[ViolationOut]


@served(Section, defaults={"capped"})
class SectionOut(Response):
    pass


@served(
    MergeCandidate,
    {
        "overlap": "Jaccard of the two live neighbourhoods",
        "action": "alias | reattribute | keep",
    },
)
class MergeCandidateOut(Response):
    pass


@served(DuplicateClaims)
class DuplicateClaimsOut(Response):
    pass


@served(AliasOverlap, {"rule": "alias_is_concept | alias_split"})
class AliasOverlapOut(Response):
    pass


@served(Consolidation)
class ConsolidationOut(Response):
    twins: list[MergeCandidateOut]
    duplicates: list[DuplicateClaimsOut]
    aliases: list[AliasOverlapOut]
    sections: dict[str, SectionOut]


@served(LabelDrift)
class LabelDriftOut(Response):
    pass


@served(WeightMove)
class WeightMoveOut(Response):
    pass


@served(Retraction)
class RetractionOut(Response):
    pass


@served(Page)
class PageOut(Response):
    pass


@served(Drift)
class DriftOut(Response):
    labels: list[LabelDriftOut]
    weights: list[WeightMoveOut]
    retracted: list[RetractionOut]
    pages: dict[str, PageOut]
