"""Taguru's schema document and its audits in tabane's terms, both ways (decision 0027, "The
schema"): `{schema: 1, mode, closed_labels, types, relations}` is tabane's `strict`, `kinds` and
`labels` (decision 0025). What tabane cannot keep is refused by name, never dropped: an `is_a`
(no kind hierarchy here), and `closed_labels` that disagrees with the mode (tabane's strict
refuses every undeclared label; without strict nothing is refused). `warn` is stored as `off`:
nothing here reports on a write without refusing it — the audit is the report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tabane.checks import MAX_INT4
from tabane.errors import InvalidInput, Issue
from tabane.graph.conformance import Conformance, Violation
from tabane.graph.consolidation import MergeCandidate
from tabane.graph.schema import DEFAULT_KIND_LABEL, KindDecl, LabelDecl, Schema
from tabane.service.schema import MAX_PAGE
from tabane.wire.base import Request, Response

# -- the document ---------------------------------------------------------------------------------


class TaguruType(Request):
    is_a: list[str] = Field(default_factory=list, description="only empty: kinds are flat here")
    description: str = Field("", description="tabane's: what concepts of this kind are")


class TaguruRelation(Request):
    domain: list[str] = Field(default_factory=list, description="kinds a typed subject may have")
    range: list[str] = Field(default_factory=list, description="kinds a typed object may have")
    description: str = Field("", description="tabane's: what an edge under it says")
    symmetric: bool = Field(False, description="tabane's: (a, l, b) also says (b, l, a)")


class TaguruSchemaIn(Request):
    """Taguru's schema document; tabane's `kind_label` may ride beside it."""

    stamp: Literal[1] = Field(1, alias="schema", description="Taguru's document version: 1")
    mode: Literal["off", "warn", "strict"] = Field(
        "off", description="strict: refuse breaking writes; warn is stored as off (decision 0027)"
    )
    closed_labels: bool | None = Field(
        None, description="only as the mode says: true under strict, false otherwise"
    )
    types: dict[str, TaguruType] = Field(default_factory=dict, description="the concept kinds")
    relations: dict[str, TaguruRelation] = Field(
        default_factory=dict, description="the declared labels, by canonical spelling"
    )
    kind_label: str = Field(
        DEFAULT_KIND_LABEL, description="tabane's: the label whose objects are a concept's kinds"
    )

    def to_schema(self, context: str, at: str = "") -> Schema:
        """tabane's document, or `invalid_input` naming what it cannot keep."""
        strict = self.mode == "strict"
        issues = [
            Issue(f"{at}types.{name}.is_a", "no kind hierarchy here (decision 0025): list kinds")
            for name, t in self.types.items()
            if t.is_a
        ]
        if self.closed_labels is not None and self.closed_labels != strict:
            problem = "strict refuses every undeclared label; without strict none is refused"
            issues.append(Issue(f"{at}closed_labels", f"{problem}: send {str(strict).lower()}"))
        if issues:
            raise InvalidInput("a schema field tabane cannot keep", issues=issues)
        return Schema(
            context=context,
            version=0,
            strict=strict,
            kind_label=self.kind_label,
            labels=tuple(
                LabelDecl(name, r.description, tuple(r.domain), tuple(r.range), r.symmetric)
                for name, r in self.relations.items()
            ),
            kinds=tuple(KindDecl(name, t.description) for name, t in self.types.items()),
        )


class TaguruPutSchemaIn(TaguruSchemaIn):
    expected_version: int | None = Field(
        None,
        ge=0,
        le=MAX_INT4,
        description="tabane's: the version you read (0: none); absent replaces whatever is stored",
    )


class SchemaDocOut(Response):
    stamp: int = Field(1, serialization_alias="schema")
    mode: str = Field(description="strict or off")
    closed_labels: bool
    types: dict[str, dict[str, Any]]
    relations: dict[str, dict[str, Any]]
    kind_label: str
    version: int = Field(description="tabane's: 0 when none is declared; send it back")


def document(s: Schema) -> SchemaDocOut:
    """tabane's schema as Taguru's document (tabane's descriptions, symmetry, version beside)."""
    return SchemaDocOut(
        stamp=1,
        mode="strict" if s.strict else "off",
        closed_labels=s.strict,
        types={k.name: {"is_a": [], "description": k.description} for k in s.kinds},
        relations={
            d.name: {
                "domain": list(d.subject_kinds),
                "range": list(d.object_kinds),
                "description": d.description,
                "symmetric": d.symmetric,
            }
            for d in s.labels
        },
        kind_label=s.kind_label,
        version=s.version,
    )


# -- the schema audit and its dry run -------------------------------------------------------------

LIMIT = f"rows per page, 1-{MAX_PAGE} (tabane's rows: edges, labels and kinds together)"
AFTER = "the previous page's `next`"


class TaguruAuditIn(Request):
    limit: int = Field(100, ge=1, le=MAX_PAGE, description=LIMIT)
    after: str | None = Field(None, description=AFTER)


class TaguruValidateIn(TaguruAuditIn):
    document: TaguruSchemaIn


class AuditIssue(Response):
    path: str = Field(description="subject or object")
    kind: str = Field(description="domain (subject) or range (object)")
    expected: list[str]
    actual: list[str]


class Triple(Response):
    subject: str
    label: str
    object: str


class AuditViolation(Response):
    association: Triple
    issues: list[AuditIssue]


class Names(Response):
    total: int | None = Field(description="null: tabane does not count them")
    names: list[str]


class ReservedAliases(Response):
    total: int = 0
    aliases: list[str] = Field(default_factory=list, description="none: no reserved label here")


class SchemaAudit(Response):
    total: int = Field(description="edges whose typed end is outside its label's kinds")
    violations: list[AuditViolation]
    untyped_concepts: Names
    undeclared_types: Names
    unknown_labels: Names
    reserved_alias_conflicts: ReservedAliases
    next: str | None = Field(description="pass as `after`; null: the last page")
    version: int = Field(description="tabane's: the stored schema checked, or the draft's base")


def _violation(v: Violation) -> AuditViolation:
    issue = AuditIssue(
        path="subject" if v.rule == "subject_kind" else "object",
        kind="domain" if v.rule == "subject_kind" else "range",
        expected=list(v.expected),
        actual=list(v.found),
    )
    edge = Triple(subject=v.subject or "", label=v.label, object=v.object or "")
    return AuditViolation(association=edge, issues=[issue])


def audit(found: Conformance) -> SchemaAudit:
    """tabane's conformance rows as Taguru's audit: edge rows are `violations`, undeclared
    labels and kinds are names (this page's; the totals cover every page)."""
    rows = found.violations
    counts = found.counts
    return SchemaAudit(
        total=counts.get("subject_kind", 0) + counts.get("object_kind", 0),
        violations=[_violation(v) for v in rows if v.rule in ("subject_kind", "object_kind")],
        untyped_concepts=Names(total=None, names=[]),
        undeclared_types=Names(
            total=counts.get("undeclared_kind", 0),
            names=[v.object or "" for v in rows if v.rule == "undeclared_kind"],
        ),
        unknown_labels=Names(
            total=counts.get("undeclared_label", 0),
            names=[v.label for v in rows if v.rule == "undeclared_label"],
        ),
        reserved_alias_conflicts=ReservedAliases(),
        next=None if found.next_cursor is None else str(found.next_cursor),
        version=found.version,
    )


def cursor(after: str | None) -> int:
    if after is None:
        return 0
    if not after.isdigit() or int(after) > MAX_INT4:
        raise InvalidInput(f"after {after!r}", issues=[Issue("after", "not a page's `next`")])
    return int(after)


# -- consolidation --------------------------------------------------------------------------------

CHECKS = ("merge", "duplicates", "aliases")  # Taguru's merge, then tabane's own two


class TaguruConsolidationIn(Request):
    checks: list[str] = Field(
        min_length=1, description="merge (and tabane's duplicates, aliases); no contradiction"
    )
    limit: int = Field(100, ge=1, le=MAX_PAGE, description="candidates per check")
    evidence_cap: int | None = Field(None, description="accepted, unused: named in `unused`")
    dice_floor: float | None = Field(None, description="accepted, unused: tabane's Dice is 0.6")
    cosine_floor: float | None = Field(None, description="accepted, unused: the context's floor")
    floor_secs: int | None = Field(None, description="accepted, unused: no staleness check")

    def sections(self) -> list[str]:
        issues = [
            Issue(f"checks[{i}]", f"{c!r}: tabane has no such check; use some of {list(CHECKS)}")
            for i, c in enumerate(self.checks)
            if c not in CHECKS
        ]
        if issues:
            raise InvalidInput("a consolidation check tabane does not run", issues=issues)
        return ["twins" if c == "merge" else c for c in self.checks]

    def unused(self) -> list[str]:
        named = ("evidence_cap", "dice_floor", "cosine_floor", "floor_secs")
        return [f for f in named if f in self.model_fields_set]


class MergeOut(Response):
    a: str
    b: str
    tier: str
    name_score: float = Field(description="Dice (lexical) or cosine (semantic)")
    overlap: float = Field(description="Jaccard of the two live neighbourhoods")
    shared: int
    edges_a: int
    edges_b: int
    distinct: bool
    action: str = Field(description="tabane's: alias | reattribute | keep")
    reason: str


def merge(c: MergeCandidate) -> MergeOut:
    return MergeOut(
        a=c.a,
        b=c.b,
        tier=c.tier,
        name_score=c.score,
        overlap=c.overlap,
        shared=c.shared,
        edges_a=c.edges_a,
        edges_b=c.edges_b,
        distinct=c.distinct,
        action=c.action,
        reason=c.reason,
    )


class Candidates(Response):
    total: int
    candidates: list[dict[str, Any]]


class ConsolidationAudit(Response):
    detector: str = Field(description="tabane's: which audit answered")
    merge: Candidates | None = None
    duplicates: Candidates | None = None
    aliases: Candidates | None = None
    semantic_note: str | None = None
    unused: list[str] = Field(default_factory=list, description="fields accepted, not used")
