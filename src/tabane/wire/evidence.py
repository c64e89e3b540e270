"""The wire shapes of the two Taguru-shaped reads over recall: `assemble_evidence` (a recall's
arguments, `RecallIn`; the answer is recall/package.py's `EvidencePackage` as it is) and
`retrieve` (origins to resolve in one context, then one recall; the answer is `Retrieval`)."""

from __future__ import annotations

from pydantic import Field

from tabane.recall.package import MAX_ORIGINS, EvidencePackage, Retrieval
from tabane.recall.plan import RecallRequest
from tabane.wire.base import ContextArg, Request
from tabane.wire.recall import RecallIn


class RetrieveIn(Request):
    """A retrieve: origins (names already picked out of the question) resolved to anchors,
    then one recall of the context that starts its walk there."""

    origins: list[str] = Field(
        description="names to resolve into anchors (entity names, not a question)",
        json_schema_extra={"minItems": 1, "maxItems": MAX_ORIGINS},
    )
    query: str | None = Field(
        None, description="words recall reads after the anchors (e.g. the question); optional"
    )
    auto_pick: bool = Field(
        True, description="adopt each origin's best candidate; false: the origin as written"
    )
    resolve_limit: int = Field(5, ge=1, le=100, description="resolve candidates per origin")
    budget: int | None = Field(
        None, description="token budget of the evidence (default: the server's)"
    )
    session: str | None = Field(
        None, description="one of your sessions: its recent turns are working memory"
    )
    speaker: str | None = Field(None, description="who asks, as the conversation names them")

    def to_request(self) -> RecallRequest:
        """Recall's request; its question and contexts are the service's to fill."""
        return RecallRequest(
            question=self.query or "",
            budget=self.budget,
            session=self.session,
            speaker=self.speaker,
            force=True,  # named origins are never a trivial turn
        )


class RetrieveArgs(RetrieveIn):
    context: ContextArg


__all__ = ["EvidencePackage", "RecallIn", "Retrieval", "RetrieveArgs", "RetrieveIn"]
