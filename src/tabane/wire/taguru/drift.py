"""Taguru's drift audit, the graph against its archive (decision 0027, "The drift audit"):
the request and the answer of `POST /taguru/contexts/{c}/drift/audit`."""

from __future__ import annotations

from pydantic import Field

from tabane.graph.unsourced import Unsourced
from tabane.service.schema import MAX_PAGE
from tabane.wire.base import Request, Response
from tabane.wire.taguru import AssociationOut, association
from tabane.wire.taguru.upkeep import VocabularyAudit


class TaguruDriftIn(Request):
    unsourced_floor: float = Field(
        0.0, ge=0.0, description="edges whose |unsourced weight| is at least this"
    )
    limit: int = Field(100, ge=1, le=MAX_PAGE, description="unsourced edges per page")
    after: str | None = Field(None, description="`next` of the previous page")
    include_twins: bool = Field(False, description="add vocabulary/audit's fork candidates")
    dice_floor: float = Field(0.6, ge=0.0, le=1.0, description="lexical twins at or above it")
    cosine_floor: float = Field(0.6, ge=0.0, le=1.0, description="semantic twins at or above it")


class UnsourcedEdgeOut(Response):
    unsourced_weight: float = Field(description="the sum of its live claims that name no source")
    unsourced_count: int = Field(description="how many live claims name no source")
    association: AssociationOut


class DriftAudit(Response):
    total: int = Field(description="unsourced edges over the floor, before the page was cut")
    unsourced: list[UnsourcedEdgeOut] = Field(description="largest |unsourced weight| first")
    dead_concept_aliases: dict[str, str] = Field(description="alias → canonical no longer live")
    dead_label_aliases: dict[str, str] = Field(description="alias → canonical no longer live")
    twins: VocabularyAudit | None = Field(description="only with `include_twins`")
    next: str | None = Field(description="pass back as `after` for the next page (tabane's)")


def drift(found: Unsourced, twins: VocabularyAudit | None) -> DriftAudit:
    return DriftAudit(
        total=found.total,
        unsourced=[
            UnsourcedEdgeOut(
                unsourced_weight=u.unsourced,
                unsourced_count=u.unsourced_claims,
                association=association(u.edge),
            )
            for u in found.edges
        ],
        dead_concept_aliases=found.dead_concept_aliases,
        dead_label_aliases=found.dead_label_aliases,
        twins=twins,
        next=None if found.next_cursor is None else str(found.next_cursor),
    )
