"""resolve, resolve_label, their explain twins and the vocabulary audit (Taguru-compatible
paths under `/contexts/{context}`). Each route is one facade call."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.graph.vocabulary import check_kind
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.resolve import (
    AuditIn,
    AuditOut,
    CalibrationOut,
    ResolveExplainIn,
    ResolveExplanationOut,
    ResolveIn,
    ResolveLabelExplainIn,
    ResolveOut,
)

router = APIRouter(prefix="/contexts/{context}", tags=["graph"], responses=ERROR_RESPONSES)


@router.post("/resolve")
def resolve(context: str, body: ResolveIn, svc: Svc, user: User) -> ResolveOut:
    """Stored concept spellings for a cue, before you mint a new one. The lexical tier (exact,
    alias, variant kanji, containment, fuzzy Dice at or above `dice_floor`) and, only when its
    best score is under 0.5, the semantic tier over concept glosses — two lists whose scores are
    never compared. Top candidates carry a gloss: read it before adopting a containment or fuzzy
    match (京都 is inside 東京都). The response says which floors were in effect and why the
    semantic tier did or did not run."""
    result = svc.resolve(
        user,
        context,
        body.cue,
        **body.options(),
    )
    return out(ResolveOut, result)


@router.post("/resolve_label")
def resolve_label(context: str, body: ResolveIn, svc: Svc, user: User) -> ResolveOut:
    """Stored label spellings for a cue: reuse an existing edge name instead of forking the
    label vocabulary. The tiers are resolve's; a label's gloss is its heaviest uses."""
    result = svc.resolve(
        user,
        context,
        body.cue,
        kind="label",
        **body.options(),
    )
    return out(ResolveOut, result)


@router.post("/resolve/explain")
def explain_resolve(
    context: str, body: ResolveExplainIn, svc: Svc, user: User
) -> ResolveExplanationOut:
    """Why `expected` is or is not among resolve's candidates for `cue`: the first verdict that
    applies (not_in_vocabulary with the nearest spellings, eclipsed_by_exact, below_floor with
    the floor that would admit it, cut_by_limit with a verified limit, semantic_never_ran,
    semantic_below_floor, or served). Ask this instead of re-running with varied floors."""
    return out(ResolveExplanationOut, _explain(svc, user, context, body, "concept"))


@router.post("/resolve_label/explain")
def explain_resolve_label(
    context: str, body: ResolveLabelExplainIn, svc: Svc, user: User
) -> ResolveExplanationOut:
    """The explain twin of `resolve_label`."""
    return out(ResolveExplanationOut, _explain(svc, user, context, body, "label"))


def _explain(
    svc: Svc, user: User, context: str, body: ResolveExplainIn | ResolveLabelExplainIn, kind: str
) -> object:
    return svc.explain_resolve(
        user,
        context,
        body.cue,
        body.expected,
        kind=check_kind(kind),
        **body.options(),
    )


@router.post("/resolve/calibrate")
def calibrate(context: str, svc: Svc, user: User) -> CalibrationOut:
    """A semantic floor for resolve proposed from the context's own concepts: each concept's
    name, as a cue, against every gloss — its own gloss cosine makes the upper band, the best
    concept it has no edge with the lower band. Separated bands propose their midpoint; the
    usual overlap proposes a floor that keeps 95% of the upper band (an upper bound: paraphrase
    cues score lower). `impossible` says why (no_embedder, no_gloss_vectors, too_few_probes).
    Set the floor with `PATCH /contexts/{context}` (`semantic_floor`)."""
    return out(CalibrationOut, svc.calibrate_resolve(user, context))


@router.post("/vocabulary/audit")
def audit(context: str, body: AuditIn, svc: Svc, user: User) -> AuditOut:
    """Candidate spelling splits: lexical twins (Dice ≥ 0.6 between different canonical
    spellings) and semantic twins (gloss cosine at or above the semantic floor). Candidates,
    not verdicts: the same referent → choose a canonical and add an alias; genuinely different
    → record (a, 別物, b) and both spellings warn at resolve time (such pairs come back flagged
    `distinct`). `capped` says a work bound cut the search."""
    return out(AuditOut, svc.audit_vocabulary(user, context, kind=body.kind, limit=body.limit))


@router.get("/vocabulary/audit")
def audit_get(
    context: str,
    svc: Svc,
    user: User,
    kind: Annotated[str | None, Query(description="concept or label; default both")] = None,
    limit: Annotated[int, Query(description="twin pairs per tier (1-1000)")] = 100,
) -> AuditOut:
    """The same as `POST /contexts/{context}/vocabulary/audit`, with query parameters."""
    checked = None if kind is None else check_kind(kind)
    return out(AuditOut, svc.audit_vocabulary(user, context, kind=checked, limit=limit))
