"""What a search is asked (`SearchRequest`) and what it says it did (`SearchPlan`), plus the
filter that resolves to an eligible set of sources before any lane runs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ARRAY, Select, Text, bindparam, func, select
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue
from tabane.search.fuse import FUSION
from tabane.storage.schema import Source

MAX_LIMIT = 100
MIN_POOL = 50  # each lane gathers max(4·(offset+limit), MIN_POOL) candidates
LANES = ("bm25", "vector")


@dataclass(frozen=True)
class SearchRequest:
    query: str
    contexts: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    limit: int = 10
    after: str | None = None
    tags: tuple[str, ...] | None = None
    since: datetime | None = None
    until: datetime | None = None
    semantic_floor: float | None = None
    lanes: tuple[str, ...] = LANES  # narrower plans are for evaluation, never chosen at query time

    def check(self) -> None:
        issues: list[Issue] = []
        if not isinstance(self.query, str):
            issues.append(Issue("query", "not a string"))
        elif len(self.query) > 4000:
            issues.append(Issue("query", f"{len(self.query)} characters, at most 4000"))
        if isinstance(self.limit, bool) or not isinstance(self.limit, int):
            issues.append(Issue("limit", "not an integer"))
        elif not 1 <= self.limit <= MAX_LIMIT:
            issues.append(Issue("limit", f"{self.limit} not in 1..{MAX_LIMIT}"))
        if not self.contexts and not self.groups:
            issues.append(Issue("contexts", "name at least one context or group"))
        if self.semantic_floor is not None and (
            isinstance(self.semantic_floor, bool)
            or not isinstance(self.semantic_floor, (int, float))
            or math.isnan(self.semantic_floor)
            or not -1.0 <= self.semantic_floor <= 1.0
        ):
            issues.append(Issue("semantic_floor", f"{self.semantic_floor!r} not in [-1, 1]"))
        if self.since and self.until and self.since >= self.until:
            issues.append(Issue("until", "must be after since"))
        if self.tags is not None:  # any of these: an empty set or an empty tag matches nothing
            if isinstance(self.tags, str) or not self.tags:
                issues.append(Issue("tags", "give at least one tag, or none at all"))
            else:
                issues.extend(
                    Issue(f"tags[{i}]", "empty or not text")
                    for i, tag in enumerate(self.tags)
                    if not isinstance(tag, str) or not tag.strip()
                )
        unknown = sorted(set(self.lanes) - set(LANES))
        if unknown or not self.lanes:
            issues.append(Issue("lanes", f"choose from {list(LANES)}"))
        if issues:
            raise InvalidInput("invalid search request", issues=issues)

    @property
    def filtered(self) -> bool:
        return self.tags is not None or self.since is not None or self.until is not None


@dataclass(frozen=True)
class LanePlan:
    ran: bool
    reason: str | None = None  # why it did not run
    hits: int = 0
    floor: float | None = None
    model: str | None = None


@dataclass(frozen=True)
class FilterPlan:
    tags: tuple[str, ...] | None
    since: datetime | None
    until: datetime | None
    eligible_sources: int
    total_sources: int


@dataclass(frozen=True)
class ContextPlan:
    context: str
    lanes: dict[str, LanePlan]
    filter: FilterPlan | None = None
    pending_embeddings: int = 0


@dataclass(frozen=True)
class SearchPlan:
    query_terms: tuple[str, ...]
    contexts: list[ContextPlan]
    pool: int
    fusion: str = FUSION  # fuse.py: each lane's score over its best, averaged
    limit: int = 10
    offset: int = 0
    notes: list[str] = field(default_factory=list)


def effective_floor(
    request: SearchRequest, context_floor: float | None, default: float | None
) -> float | None:
    """The vector lane's floor: the call's, else the context's, else the configured default."""
    if request.semantic_floor is not None:
        return request.semantic_floor
    return context_floor if context_floor is not None else default


def eligible(context_id: int, request: SearchRequest) -> Select[Any]:
    """Live source ids of a context that pass the filter: tags any-of, and a half-open
    [since, until) window over `date ?? stored_at`. A source with no tags never matches tags."""
    stmt = select(Source.id).where(Source.context_id == context_id, Source.retracted_at.is_(None))
    if request.tags is not None:
        tags = bindparam("filter_tags", list(request.tags), type_=ARRAY(Text))
        stmt = stmt.where(Source.tags.op("&&")(tags))
    when = func.coalesce(Source.date, Source.stored_at)
    if request.since is not None:
        stmt = stmt.where(when >= request.since)
    if request.until is not None:
        stmt = stmt.where(when < request.until)
    return stmt


def filter_plan(session: Session, context_id: int, request: SearchRequest) -> FilterPlan:
    live = (
        select(func.count())
        .select_from(Source)
        .where(Source.context_id == context_id, Source.retracted_at.is_(None))
    )
    count = select(func.count()).select_from(eligible(context_id, request).subquery())
    return FilterPlan(
        tags=request.tags,
        since=request.since,
        until=request.until,
        eligible_sources=int(session.scalar(count) or 0),
        total_sources=int(session.scalar(live) or 0),
    )
