"""Taguru's evidence assembly (`POST /contexts/{c}/evidence`) over tabane's retrieve
(decision 0027): the request Taguru sends, the package it reads."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tabane.checks import Cue
from tabane.recall.plan import RecallRequest
from tabane.wire.base import Request, Response

# fields Taguru's request has that tabane's recall does not take (the plan names those sent)
UNUSED = ("labels", "dice_floor", "activate_decay", "activate_limit", "search_limit", "rerank")


class Budget(Request):
    max_items: int = Field(40, ge=0, le=1000, description="items at most")
    max_bytes: int = Field(65536, ge=0, le=8 << 20, description="item bytes at most")
    max_tokens: int = Field(4000, ge=1, le=200_000, description="tokens at most (recall's budget)")


class TaguruEvidenceIn(Request):
    origins: Cue = Field(description="the names the question is about (resolved here)")
    text_fallback_query: str | None = Field(None, description="words recall reads after them")
    semantic_floor: float | None = Field(None, ge=-1.0, le=1.0, description="vector lanes' floor")
    resolve_limit: int = Field(5, ge=1, le=100, description="resolve candidates per origin")
    include_communities: bool = Field(False, description="recall reads communities anyway")
    budget: Budget = Field(default_factory=lambda: Budget.model_validate({}))
    labels: Cue | None = Field(None, description="not used: recall pins no labels")
    dice_floor: float | None = Field(None, description="not used: the context's floor applies")
    activate_decay: float | None = Field(None, description="not used: recall's walk")
    activate_limit: int | None = Field(None, description="not used: recall's walk")
    search_limit: int | None = Field(None, description="not used: recall's passage pool")
    rerank: dict[str, Any] | None = Field(None, description="not used: the server's reranker")

    def origin_list(self) -> list[str]:
        return [self.origins] if isinstance(self.origins, str) else list(self.origins)

    def to_request(self) -> RecallRequest:
        return RecallRequest(
            question=self.text_fallback_query or "",
            budget=self.budget.max_tokens,
            semantic_floor=self.semantic_floor,
            force=True,
        )

    def unused(self) -> list[str]:
        return [name for name in UNUSED if getattr(self, name) is not None]


class EvidenceItem(Response):
    candidate_id: str
    kind: str = Field(description="association, passage, or tabane's kind (an open string)")
    fused_rank: int
    lane_ranks: list[dict[str, Any]] = Field(description="`{lane, rank}` per lane that found it")
    citation_refs: list[dict[str, Any]] = Field(description="`{source, paragraph}`")
    bytes: int
    estimated_tokens: int
    association: dict[str, Any] | None = None
    passage: dict[str, Any] | None = None
    other: dict[str, Any] | None = Field(None, description="derived memory, turns: text, kind")


class EvidenceOut(Response):
    items: list[EvidenceItem]
    citations: list[dict[str, Any]] = Field(description="`{source, paragraph, citation}`")
    budget: dict[str, Any]
    omitted: list[dict[str, Any]]
    omitted_total: int
    omitted_by_reason: dict[str, int]
    plan: dict[str, Any]
