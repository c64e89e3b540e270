"""Communities of a context's association graph: build, read, search.

What a build clusters (the visibility rule): the context's association rows whose scope set lies
inside the context's scope set — exactly the rows every reader of the context can see. The build
runs under RLS as a writer of the context (who can see all of them); rows in narrower scope sets
(say a note scoped {org:x, user:alice} in an org:x context) are left out, so a community, which
carries the context's scope set, never names a concept that one of its readers could not see,
and every writer builds the same communities.

Edges: per (perspective, subject, label, object) the sum of its rows' weights (summed in a fixed
order, so floats repeat exactly); partitions of one triple merge by |weight| (the heaviest one
stands); the undirected graph sums |weight| over a pair's triples (community_graph.undirected).

Freshness: `graph_version` is the row count and the newest `updated_at` of those rows (every
claim write re-nets its associations and stamps them); a read whose current version differs
from the build's says `stale`. Rebuilds run as the debounced `derive_communities` job after
claim writes and retractions (jobs/worker.py), which then embeds the summaries
(derive/communities/vectors.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from tabane.derive.communities import graph as cg
from tabane.derive.communities import vectors as community_vectors
from tabane.derive.shared import check_number, shared
from tabane.errors import InvalidInput, Issue
from tabane.storage.schema import Association, Community, CommunityMember, Context
from tabane.text.tokenize import tokenize

_LOCK = 0x636F_6D6D  # advisory lock class of community builds (the context id is the other key)
MAX_LIMIT = 100
MEMBERS_SHOWN = 50  # members listed per community in a read (`size` counts all)
_NO_VECTOR: dict[str, Any] = {"model": None, "dim": None, "embedding": None}


@dataclass(frozen=True)
class CommunityBuild:
    context: str
    graph_version: str
    concepts: int
    edges: int
    communities: tuple[int, ...]  # per level
    summarizer: str
    built_at: datetime
    seconds: float


@dataclass(frozen=True)
class Member:
    concept: str
    weight: float


@dataclass(frozen=True)
class CommunityInfo:
    level: int
    ordinal: int
    parent: int | None
    size: int
    summary: str
    summarizer: str
    members: tuple[Member, ...]


@dataclass(frozen=True)
class Communities:
    context: str
    built: bool
    built_at: datetime | None
    stale: bool
    graph_version: str | None  # of the build
    current_version: str  # of the graph now
    communities: tuple[CommunityInfo, ...]


@dataclass(frozen=True)
class CommunityHit:
    community: CommunityInfo
    score: float  # the share of the query's terms found in its member names or summary
    matched: tuple[str, ...]  # members sharing a term with the query, heaviest first


@dataclass(frozen=True)
class CommunitySearch:
    context: str
    query: str
    terms: tuple[str, ...]
    built: bool
    built_at: datetime | None
    stale: bool
    total: int  # communities that matched, before `limit`
    hits: tuple[CommunityHit, ...]


def _rows(ctx: Context) -> list[Any]:
    return shared(Association, ctx)


def graph_version(session: Session, ctx: Context) -> str:
    """The state of the context's shared graph: its row count and newest change."""
    n, newest = session.execute(
        select(func.count(), func.max(Association.updated_at)).where(*_rows(ctx))
    ).one()
    return f"{n}:{newest.isoformat() if newest is not None else '-'}"


def triples(session: Session, ctx: Context) -> dict[cg.Triple, float]:
    """The shared graph's triples, partitions merged by |weight| (zero-weight ones dropped)."""
    a = Association
    stmt = (
        select(a.perspective, a.subject, a.label, a.object, a.weight)
        .where(*_rows(ctx))
        .order_by(a.perspective, a.subject, a.label, a.object, a.scopes)
    )
    net: dict[tuple[str, str, str, str], float] = defaultdict(float)
    for p, s, label, o, w in session.execute(stmt):
        net[(p, s, label, o)] += w
    merged: dict[cg.Triple, float] = {}
    for (_p, s, label, o), w in net.items():  # in perspective order: the first heaviest stands
        if w != 0 and abs(w) > abs(merged.get((s, label, o), 0.0)):
            merged[(s, label, o)] = w
    return merged


def build(
    session: Session, ctx: Context, *, level_up_after: int = cg.LEVEL_UP_AFTER
) -> CommunityBuild:
    """Replace the context's communities with ones built from its graph now. The caller checks
    that the principal may write the context; RLS checks it again on every row."""
    started = datetime.now().astimezone()
    session.execute(select(func.pg_advisory_xact_lock(_LOCK, ctx.id)))
    version = graph_version(session, ctx)
    found = triples(session, ctx)
    edges = cg.undirected(found)
    groups = cg.partition(edges, level_up_after=level_up_after) if edges else []
    summaries = [cg.summarize(g, t) for g, t in zip(groups, cg.inside(groups, found), strict=True)]
    vectors = community_vectors.kept(session, ctx.id)  # an unchanged summary keeps its vector
    session.execute(delete(Community).where(Community.context_id == ctx.id))
    scopes = list(ctx.scopes)
    built_at = session.execute(select(func.now())).scalar_one()
    if groups:
        rows = [
            {
                "context_id": ctx.id,
                "level": g.level,
                "ordinal": g.ordinal,
                "parent": g.parent,
                "size": len(g.members),
                "summary": text,
                "summarizer": cg.SUMMARIZER,
                "graph_version": version,
                "graph_edges": len(edges),
                "built_at": built_at,
                "scopes": scopes,
                **vectors.get(text, _NO_VECTOR),
            }
            for g, text in zip(groups, summaries, strict=True)
        ]
        stmt = insert(Community).returning(Community.id, sort_by_parameter_order=True)
        ids = list(session.execute(stmt, rows).scalars())
        members = [
            {
                "community_id": cid,
                "concept": name,
                "context_id": ctx.id,
                "rank": rank,
                "weight": weight,
                "scopes": scopes,
            }
            for cid, g in zip(ids, groups, strict=True)
            for rank, (name, weight) in enumerate(g.members)
        ]
        session.execute(insert(CommunityMember), members)
    levels = sorted({g.level for g in groups})
    return CommunityBuild(
        context=ctx.name,
        graph_version=version,
        concepts=len(cg.degrees(edges)),
        edges=len(edges),
        communities=tuple(sum(1 for g in groups if g.level == lv) for lv in levels),
        summarizer=cg.SUMMARIZER,
        built_at=built_at,
        seconds=round((datetime.now().astimezone() - started).total_seconds(), 3),
    )


def _load(
    session: Session, ctx: Context, level: int | None, members: int | None
) -> list[tuple[Community, tuple[Member, ...]]]:
    c, m = Community, CommunityMember
    where = [c.context_id == ctx.id] + ([c.level == level] if level is not None else [])
    found = session.scalars(select(c).where(*where).order_by(c.level, c.ordinal, c.id)).all()
    if not found:
        return []
    stmt = (
        select(m.community_id, m.concept, m.weight)
        .where(m.community_id.in_([x.id for x in found]))
        .order_by(m.community_id, m.rank)  # rank: heaviest first, then by name
    )
    if members is not None:
        stmt = stmt.where(m.rank < members)
    by: dict[int, list[Member]] = defaultdict(list)
    for cid, concept, weight in session.execute(stmt):
        by[cid].append(Member(concept, weight))
    return [(x, tuple(by.get(x.id, ()))) for x in found]


def _info(row: Community, members: tuple[Member, ...]) -> CommunityInfo:
    return CommunityInfo(
        level=row.level,
        ordinal=row.ordinal,
        parent=row.parent,
        size=row.size,
        summary=row.summary,
        summarizer=row.summarizer,
        members=members,
    )


def _state(
    loaded: Sequence[tuple[Community, tuple[Member, ...]]], current: str
) -> tuple[datetime | None, str | None, bool]:
    """When the build ran, the graph version it saw, and whether the graph changed since or the
    summaries were written by another summarizer version (a graph with rows and no build is
    stale too)."""
    if not loaded:
        return None, None, not current.startswith("0:")
    newest = max(loaded, key=lambda r: (r[0].built_at, r[0].id))[0]
    stale = newest.graph_version != current or newest.summarizer != cg.SUMMARIZER
    return newest.built_at, newest.graph_version, stale


def read(session: Session, ctx: Context, level: int | None = None) -> Communities:
    """The context's communities (one level, or all), each with its heaviest members."""
    check_number("level", level, 0)
    current = graph_version(session, ctx)
    loaded = _load(session, ctx, level, MEMBERS_SHOWN)
    if not loaded and level is not None:  # is there a build at all (another level)?
        probe = session.scalars(
            select(Community).where(Community.context_id == ctx.id).limit(1)
        ).all()
        built_at, version, stale = _state([(p, ()) for p in probe], current)
    else:
        built_at, version, stale = _state(loaded, current)
    return Communities(
        context=ctx.name,
        built=version is not None,
        built_at=built_at,
        stale=stale,
        graph_version=version,
        current_version=current,
        communities=tuple(_info(row, members) for row, members in loaded),
    )


def search(session: Session, ctx: Context, query: str, limit: int = 10) -> CommunitySearch:
    """Communities whose member names or summary share terms with `query` (tabane's tokenizer
    on both sides): by the share of the query's terms found, then the summed weight of the
    matching members, then level and ordinal."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must not be blank", issues=[Issue("query", "blank")])
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(
            f"limit must be in 1..{MAX_LIMIT}", issues=[Issue("limit", f"not in 1..{MAX_LIMIT}")]
        )
    terms = tuple(sorted(set(tokenize(query))))
    current = graph_version(session, ctx)
    loaded = _load(session, ctx, None, None)
    built_at, version, stale = _state(loaded, current)
    wanted = set(terms)
    scored: list[tuple[float, float, int, int, CommunityHit]] = []
    for row, members in loaded if wanted else ():
        matched = [mem for mem in members if wanted & set(tokenize(mem.concept))]
        names = {t for mem in matched for t in tokenize(mem.concept)}
        found = wanted & (names | set(tokenize(row.summary)))
        if not found:
            continue
        score = round(len(found) / len(wanted), 6)
        weight = sum(mem.weight for mem in matched)
        hit = CommunityHit(
            _info(row, members[:MEMBERS_SHOWN]), score, tuple(mem.concept for mem in matched)
        )
        scored.append((-score, -weight, row.level, row.ordinal, hit))
    scored.sort(key=lambda s: s[:4])
    return CommunitySearch(
        context=ctx.name,
        query=query,
        terms=terms,
        built=version is not None,
        built_at=built_at,
        stale=stale,
        total=len(scored),
        hits=tuple(s[4] for s in scored[:limit]),
    )
