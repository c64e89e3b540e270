"""The audits in Taguru's form (decision 0027): the vocabulary audit, and the drift audit (the
graph against its archive; tabane's root drift audit is a time window, decision 0025)."""

from __future__ import annotations

from fastapi import APIRouter, Body

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.graph.audit import Audit, Twin
from tabane.wire.taguru import Ok
from tabane.wire.taguru.drift import DriftAudit, TaguruDriftIn, drift
from tabane.wire.taguru.schema import cursor
from tabane.wire.taguru.upkeep import TaguruVocabularyIn, TwinPair, VocabularyAudit

router = APIRouter()
NOTES = {"no_embedder": "no embedder is configured: the semantic tier did not run"}


def _twins(found: Audit, dice_floor: float, cosine_floor: float) -> VocabularyAudit:
    def pairs(twins: list[Twin], kind: str, floor: float) -> list[TwinPair]:
        return [
            TwinPair(a=t.a, b=t.b, score=t.score, distinct=t.distinct)
            for t in twins
            if t.kind == kind and t.score >= floor
        ]

    return VocabularyAudit(
        lexical_concepts=pairs(found.lexical, "concept", dice_floor),
        lexical_labels=pairs(found.lexical, "label", dice_floor),
        semantic_concepts=pairs(found.semantic, "concept", cosine_floor),
        semantic_labels=pairs(found.semantic, "label", cosine_floor),
        semantic_note=NOTES.get(found.semantic_reason or "", found.semantic_reason),
    )


@router.post("/contexts/{context}/vocabulary/audit", response_model_exclude_none=True)
def audit_vocabulary(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    body: TaguruVocabularyIn | None = Body(None),
) -> Ok[VocabularyAudit]:
    """Spelling and synonym fork candidates per tier and namespace, strongest first; the floors
    filter tabane's twins (lexical from Dice 0.6, semantic from the floor in effect), so a floor
    under those finds no more. Candidates, not verdicts."""
    floors = body if body is not None else TaguruVocabularyIn.model_validate({})
    done = _twins(svc.audit_vocabulary(user, context), floors.dice_floor, floors.cosine_floor)
    return Ok[VocabularyAudit].model_validate(ok(done, started))


@router.post("/contexts/{context}/drift/audit")
def audit_drift(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    body: TaguruDriftIn | None = Body(None),
) -> Ok[DriftAudit]:
    """The graph against its archive: world edges carrying weight no live claim with a named
    source accounts for (`unsourced`, largest |weight| first, paged by `after`), aliases whose
    canonical no longer lives (its spelling gone, or no live edge names it), and, with
    `include_twins`, vocabulary/audit's fork candidates. tabane's root `drift/audit` is a time
    window instead (decision 0025)."""
    asked = body if body is not None else TaguruDriftIn.model_validate({})
    found = svc.audit_unsourced(
        user, context, floor=asked.unsourced_floor, limit=asked.limit, cursor=cursor(asked.after)
    )
    twins = None
    if asked.include_twins:
        twins = _twins(svc.audit_vocabulary(user, context), asked.dice_floor, asked.cosine_floor)
    return Ok[DriftAudit].model_validate(ok(drift(found, twins), started))
