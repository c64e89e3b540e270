"""Arguments of the resolve tools (pydantic at the edge; unknown arguments are refused)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tabane.mcp.arguments import Args, ContextArg

Cue = Annotated[str, Field(description="Any spelling of the name you mean; typos are fine.")]
Limit = Annotated[int, Field(ge=1, le=100, description="Candidates to return per tier.")]
DiceFloor = Annotated[
    float | None,
    Field(ge=0.0, le=1.0, description="Fuzzy (Dice) floor for this call; default the context's."),
]
SemanticFloor = Annotated[
    float | None, Field(ge=-1.0, le=1.0, description="Cosine floor of the semantic tier.")
]


class ResolveArgs(Args):
    context: ContextArg
    cue: Cue
    limit: Limit = 10
    dice_floor: DiceFloor = None
    semantic_floor: SemanticFloor = None


class ResolveLabelArgs(ResolveArgs):
    pass


class ExplainResolveArgs(ResolveArgs):
    expected: Annotated[str, Field(description="The stored spelling you expected to get back.")]
    kind: Annotated[
        Literal["concept", "label"], Field(description="Explain resolve or resolve_label.")
    ] = "concept"


class AuditArgs(Args):
    context: ContextArg
    kind: Annotated[
        Literal["concept", "label"] | None, Field(description="Only this kind; default both.")
    ] = None
    limit: Annotated[int, Field(ge=1, le=1000, description="Twin pairs per tier.")] = 100
