"""The audits in Taguru's form (decision 0027)."""

from __future__ import annotations

from fastapi import APIRouter, Body

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.graph.audit import Twin
from tabane.wire.taguru import Ok
from tabane.wire.taguru.upkeep import TaguruVocabularyIn, TwinPair, VocabularyAudit

router = APIRouter()
NOTES = {"no_embedder": "no embedder is configured: the semantic tier did not run"}


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
    found = svc.audit_vocabulary(user, context)

    def pairs(twins: list[Twin], kind: str, floor: float) -> list[TwinPair]:
        return [
            TwinPair(a=t.a, b=t.b, score=t.score, distinct=t.distinct)
            for t in twins
            if t.kind == kind and t.score >= floor
        ]

    done = VocabularyAudit(
        lexical_concepts=pairs(found.lexical, "concept", floors.dice_floor),
        lexical_labels=pairs(found.lexical, "label", floors.dice_floor),
        semantic_concepts=pairs(found.semantic, "concept", floors.cosine_floor),
        semantic_labels=pairs(found.semantic, "label", floors.cosine_floor),
        semantic_note=NOTES.get(found.semantic_reason or "", found.semantic_reason),
    )
    return Ok[VocabularyAudit].model_validate(ok(done, started))
