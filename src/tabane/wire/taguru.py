"""The wire shapes of the Taguru-form routes (api/routes/taguru.py): the bodies Taguru's clients
send where tabane's own routes take another shape, and the answers they expect."""

from __future__ import annotations

from pydantic import Field

from tabane.graph.query.pattern import DEFAULT_LIMIT, MAX_LIMIT
from tabane.wire.base import Request, Response
from tabane.wire.graph_read import EdgeOut


class CueRecallIn(Request):
    """Taguru's cue recall: every edge touching the cue, as subject or object."""

    cue: str = Field(description="a concept's spelling (an alias works too); resolve it first")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="matches per page")
    after: str | None = Field(None, description="`next` of the previous page")


class MatchPlan(Response):
    contexts: list[str] = Field(description="every context read")


class CueRecallOut(Response):
    total: int = Field(description="matching edges before the page was cut")
    matches: list[EdgeOut] = Field(description="strongest |weight| first")
    plan: MatchPlan
    next: str | None = Field(description="pass back as `after` for the next page")
