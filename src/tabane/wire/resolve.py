"""The wire shapes of resolve, resolve_label, their explain twins and the vocabulary audit.

Requests are strict (unknown fields, NaN and Infinity refused); range checks stay in the
service so every surface reports them with the same codes and paths. Responses mirror the
service's `Resolution`, `ResolveExplanation` and `Audit` in full.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tabane.graph.vocabulary import Kind
from tabane.wire.base import ContextArg, Request, Response


class ResolveIn(Request):
    """A resolve of a concept (or, at `resolve_label`, a label)."""

    cue: str = Field(description="any spelling of the name you mean (a typo or variant is fine)")
    limit: int = Field(10, ge=1, le=100, description="candidates to return per tier (1-100)")
    dice_floor: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="Dice floor of the fuzzy tier for this call (default: the context's)",
    )
    semantic_floor: float | None = Field(
        None, ge=-1.0, le=1.0, description="cosine floor of the semantic tier for this call"
    )

    def options(self) -> dict[str, Any]:
        """The keyword arguments of the service's resolve, resolve_label and explain_resolve."""
        return {
            "limit": self.limit,
            "dice_floor": self.dice_floor,
            "semantic_floor": self.semantic_floor,
        }


class ResolveLabelExplainIn(ResolveIn):
    expected: str = Field(description="the stored label spelling you expected resolve to return")


class ResolveExplainIn(ResolveIn):
    expected: str = Field(description="the stored spelling you expected resolve to return")


class ResolveArgs(ResolveIn):
    """The `resolve` and `resolve_label` tools' arguments: a resolve in `context`."""

    context: ContextArg


class ExplainResolveArgs(ResolveArgs, ResolveExplainIn):
    kind: Kind = Field("concept", description="explain resolve (concept) or resolve_label (label)")


class FloorOut(Response):
    value: float | None
    source: str = Field(description="where it came from: call, context, default or none")


class CandidateOut(Response):
    name: str = Field(description="the canonical spelling (write this one)")
    score: float = Field(description="lexical: 1.0, containment or Dice; semantic: cosine")
    kind: str = Field(description="exact, alias, variant, containment, fuzzy or semantic")
    tier: str = Field(description="lexical or semantic: scores of two tiers are never compared")
    rank: int = Field(description="1-based within its tier")
    via: str | None = Field(description="the stored spelling that matched, if not the name")
    gloss: str | None = Field(description="the name with its heaviest facts (top candidates)")
    warnings: list[str] = Field(description="e.g. `distinct from X` for a recorded 別物 pair")


class SemanticPlanOut(Response):
    ran: bool
    reason: str | None = Field(
        description="why not: lexical_strong, no_embedder, no_gloss_vectors, gloss_vectors_pending"
    )
    model: str | None
    floor: FloorOut
    pending_jobs: int


class ResolveOut(Response):
    context: str
    cue: str
    kind: str = Field(description="concept or label")
    key: str = Field(description="the normalized cue resolve matched with")
    candidates: list[CandidateOut] = Field(description="the lexical tier, best first")
    semantic: list[CandidateOut] = Field(description="the semantic tier (top 5), best first")
    eclipsed: bool = Field(description="the cue is a stored spelling: nothing else was scored")
    dice_floor: FloorOut
    semantic_plan: SemanticPlanOut
    stop_grams: list[str] = Field(description="the cue's over-common bigrams, left out of Dice")
    total: int = Field(
        description="lexical candidates before the limit (a lower bound when total_exact is false)"
    )
    total_exact: bool = Field(
        True, description="false when only the top `limit` were proven and the rest not counted"
    )
    limit: int


class ResolveExplanationOut(Response):
    verdict: str = Field(
        description="not_in_vocabulary, served, eclipsed_by_exact, below_floor, cut_by_limit, "
        "semantic_never_ran or semantic_below_floor"
    )
    detail: str
    cue: str
    expected: str
    canonical: str | None
    kind: str
    rank: int | None
    score: float | None
    match: str | None
    tier: str | None
    dice_floor: FloorOut | None
    admitting_floor: float | None = Field(description="a dice_floor that would admit it")
    limit: int | None
    limit_to_reach: int | None = Field(description="a limit verified to serve it, if any")
    eclipsed_by: list[str]
    semantic_reason: str | None
    cosine: float | None
    semantic_floor: FloorOut | None
    nearest: list[str] = Field(description="the nearest stored spellings (not_in_vocabulary)")


class AuditIn(Request):
    kind: Kind | None = Field(None, description="concept or label; default: both")
    limit: int = Field(100, ge=1, le=1000, description="twin pairs per tier (1-1000)")


class AuditArgs(AuditIn):
    context: ContextArg


class TwinOut(Response):
    a: str
    b: str
    kind: str
    tier: str = Field(description="lexical (Dice) or semantic (gloss cosine)")
    score: float
    distinct: bool = Field(description="recorded as different referents (別物 / distinct_from)")


class AuditOut(Response):
    context: str
    lexical: list[TwinOut]
    semantic: list[TwinOut]
    lexical_floor: float
    semantic_floor: float | None
    semantic_reason: str | None
    capped: bool = Field(description="a work bound or the limit cut the search for pairs")
    limit: int


class BandOut(Response):
    count: int
    min: float
    p10: float
    median: float
    p90: float
    max: float


class ProbeOut(Response):
    concept: str = Field(description="the probe: the concept's name as a cue")
    cosine: float = Field(description="the cosine of its own gloss (the upper band)")
    best_other: str | None = Field(description="the nearest concept it has no edge with")
    other_cosine: float | None = Field(description="that concept's cosine (the lower band)")


class CalibrationOut(Response):
    context: str
    model: str | None
    verdict: str = Field(description="separated, overlap or impossible")
    reason: str | None = Field(
        description="impossible: no_embedder, no_gloss_vectors or too_few_probes"
    )
    suggested_floor: float | None = Field(description="a semantic_floor for the context")
    gap: float | None = Field(description="min(upper) − max(lower); negative: overlap")
    kept: float | None = Field(description="share of the upper band at or above the floor")
    admitted: float | None = Field(description="share of the lower band at or above it")
    upper: BandOut | None
    lower: BandOut | None
    probes: int
    examples: list[ProbeOut] = Field(description="the weakest probes first")
