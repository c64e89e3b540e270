"""The wire shapes of resolve, resolve_label, their explain twins and the vocabulary audit.

Requests are strict (unknown fields, NaN and Infinity refused); range checks stay in the
service so every surface reports them with the same codes and paths. Responses mirror the
service's `Resolution`, `ResolveExplanation` and `Audit` in full.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tabane.graph.audit import Audit, Twin
from tabane.graph.resolve.calibrate import Band, Calibration, Probe
from tabane.graph.resolve.explain import ResolveExplanation
from tabane.graph.resolve.resolver import Candidate, Floor, SemanticPlan
from tabane.graph.vocabulary import Kind
from tabane.wire.base import ContextArg, Request, Response, served


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


@served(
    Floor,
    {
        "source": "where it came from: call, context, default or none",
    },
)
class FloorOut(Response):
    pass


@served(
    Candidate,
    {
        "name": "the canonical spelling (write this one)",
        "score": "lexical: 1.0, containment or Dice; semantic: cosine",
        "kind": "exact, alias, variant, reading, romanisation, acronym, containment, fuzzy or "
        "semantic",
        "tier": "lexical or semantic: scores of two tiers are never compared",
        "rank": "1-based within its tier",
        "via": "the stored spelling that matched, if not the name",
        "gloss": "the name with its heaviest facts (top candidates)",
        "warnings": "e.g. `distinct from X` for a recorded 別物 pair",
    },
)
class CandidateOut(Response):
    pass


@served(
    SemanticPlan,
    {
        "reason": "why not: lexical_strong, no_embedder, no_gloss_vectors, gloss_vectors_pending",
    },
)
class SemanticPlanOut(Response):
    floor: FloorOut


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


@served(
    ResolveExplanation,
    {
        "verdict": "not_in_vocabulary, served, eclipsed_by_exact, below_floor, cut_by_limit, "
        "semantic_never_ran or semantic_below_floor",
        "admitting_floor": "a dice_floor that would admit it",
        "limit_to_reach": "a limit verified to serve it, if any",
        "nearest": "the nearest stored spellings (not_in_vocabulary)",
    },
)
class ResolveExplanationOut(Response):
    dice_floor: FloorOut | None
    semantic_floor: FloorOut | None


class AuditIn(Request):
    kind: Kind | None = Field(None, description="concept or label; default: both")
    limit: int = Field(100, ge=1, le=1000, description="twin pairs per tier (1-1000)")


class AuditArgs(AuditIn):
    context: ContextArg


@served(
    Twin,
    {
        "tier": "lexical (Dice) or semantic (gloss cosine)",
        "distinct": "recorded as different referents (別物 / distinct_from)",
    },
)
class TwinOut(Response):
    pass


@served(
    Audit,
    {
        "capped": "a work bound or the limit cut the search for pairs",
    },
)
class AuditOut(Response):
    lexical: list[TwinOut]
    semantic: list[TwinOut]


@served(Band)
class BandOut(Response):
    pass


@served(
    Probe,
    {
        "concept": "the probe: the concept's name as a cue",
        "cosine": "the cosine of its own gloss (the upper band)",
        "best_other": "the nearest concept it has no edge with",
        "other_cosine": "that concept's cosine (the lower band)",
    },
)
class ProbeOut(Response):
    pass


@served(
    Calibration,
    {
        "verdict": "separated, overlap or impossible",
        "reason": "impossible: no_embedder, no_gloss_vectors or too_few_probes",
        "suggested_floor": "a semantic_floor for the context",
        "gap": "min(upper) − max(lower); negative: overlap",
        "kept": "share of the upper band at or above the floor",
        "admitted": "share of the lower band at or above it",
        "examples": "the weakest probes first",
    },
)
class CalibrationOut(Response):
    upper: BandOut | None
    lower: BandOut | None
    examples: list[ProbeOut]
