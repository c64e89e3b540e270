"""`build_recall_statement`: recall's one SQLAlchemy statement over every lane of a plan shape.

The lanes (recall/lanes/lanes.py) are unioned in a CTE; every candidate is fused (fusion.py) by
reciprocal rank fusion over the lanes that found it (a hit at rank r adds 1/(rrf_k + r), so a
paragraph found by BM25 and by vector gets both), the best `candidates` are kept, and only then
are paragraphs, sources, claims, edges and turns joined for their text, citation and scopes (an
area item, with its counts and newest titles, through `lanes_catalog.area_detail`). A paragraph
or turn that asks a question gives its place to its reply (`_replies`, evidence.py). The
statement is built once per shape (which lanes, which vector width) and cached; everything else
is a bound parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    Select,
    and_,
    case,
    func,
    select,
    true,
    union_all,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import aliased

from tabane.recall.fusion import fuse
from tabane.recall.lanes import catalog as catalog_lanes
from tabane.recall.lanes import derived as derived_lanes
from tabane.recall.lanes import graph as graph_lanes
from tabane.recall.lanes import lanes as lane_mod
from tabane.recall.lanes import memory as memory_lanes
from tabane.recall.lanes.lanes import fixed
from tabane.recall.scale import on_one_scale
from tabane.storage.schema import (
    Association,
    Claim,
    Community,
    Paragraph,
    Profile,
    RaptorNode,
    SessionTurn,
    Source,
)

# Every lane recall knows, in the order the trace reports them.
LANES = (
    "vector",
    "bm25",
    "title",
    "claims",
    "walk",
    "turns",
    "catalog",
    "areas",
    "navigation",
    "communities",
    "profiles",
    "raptor",
)
# The lanes that need a query vector (walk and turns use one when there is one).
VECTOR_LANES = frozenset({"vector", "claims", "communities", "profiles", "raptor"})


@dataclass(frozen=True)
class Shape:
    """What changes the statement's SQL: the lanes present and the query vector's width."""

    lanes: tuple[str, ...]
    dim: int | None = None

    def __post_init__(self) -> None:
        unknown = set(self.lanes) - set(LANES)
        if unknown or not self.lanes:
            raise ValueError(f"lanes must be a non-empty subset of {LANES}")
        if VECTOR_LANES & set(self.lanes) and self.dim is None:
            raise ValueError("vector lanes need the query vector's width")


def _lane(name: str, dim: int | None) -> Select[Any]:
    if name == "vector":
        assert dim is not None
        return lane_mod.vector_lane(dim)
    if name == "turns":
        return memory_lanes.turns_lane(dim)
    if name == "walk":
        return graph_lanes.walk_lane()
    if name == "communities":
        assert dim is not None
        return derived_lanes.communities_lane(dim)
    if name == "profiles":
        assert dim is not None
        return derived_lanes.profiles_lane(dim)
    if name == "raptor":
        assert dim is not None
        return derived_lanes.raptor_lane(dim)
    if name == "claims":
        assert dim is not None
        return memory_lanes.claims_lane(dim)
    builders = {
        "bm25": lane_mod.bm25_lane,
        "title": lane_mod.title_lane,
        "catalog": catalog_lanes.catalog_lane,
        "areas": catalog_lanes.areas_lane,
        "navigation": catalog_lanes.navigation_lane,
    }
    return builders[name]()


# What a reply shows in its question's place, per kind: the statement's detail column (the row
# field evidence.py reads) → the reply's own column, read beside it as `reply_<kind>_<column>`.
REPLY_FIELDS: dict[str, dict[str, str]] = {
    "paragraph": {
        "paragraph_text": "text",
        "idx": "idx",
        "section_path": "section_path",
        "locator": "locator",
        "paragraph_kind": "kind",
        "scopes": "scopes",
    },
    "turn": {
        "turn_text": "text",
        "seq": "seq",
        "speaker": "speaker",
        "role": "role",
        "at": "at",
        "scopes": "scopes",
    },
}


def _replies(fused: Any) -> tuple[list[Any], list[Any]]:
    """Laterals after the detail joins, and their columns. A question asserts nothing: in a
    conversation or a FAQ the answer follows it. So for a paragraph or turn that asks (its text
    ends with a question mark) they read its reply — the next paragraph of its source that
    continues the exchange (`lanes.continues`), the next turn of its session, when the caller may
    see it and it does not ask in turn — which evidence.py serves in its place; and for one that
    does not ask, the question just before it that it continues, if any (its `in_reply_to`).
    Bound `replies` false reads neither. Each lateral is LIMIT 1 (it finds at most one row by a
    unique key anyway): a plain lateral is pulled up into the join, and PostgreSQL then hashed
    every paragraph of the store for 60 candidates (280 ms at 100k paragraphs, not 0.2)."""
    replies = lane_mod.p("replies", Boolean)
    laterals: list[Any] = []
    columns: list[Any] = []
    asked: list[Any] = []
    kinds: tuple[tuple[str, Any, str, str], ...] = (
        ("paragraph", Paragraph, "source_pk", "idx"),  # (kind, table, parent key, order key)
        ("turn", SessionTurn, "session_pk", "seq"),
    )
    for kind, table, parent, order in kinds:
        asks = table.text.regexp_match(lane_mod.ASKS)
        reply, before = aliased(table, name=f"reply_{kind}"), aliased(table, name=f"asked_{kind}")
        own = [replies, fused.c.kind == kind]
        after = [getattr(reply, parent) == getattr(table, parent)]
        after += [getattr(reply, order) == getattr(table, order) + 1]
        earlier = [getattr(before, parent) == getattr(table, parent)]
        earlier += [getattr(before, order) == getattr(table, order) - 1]
        if kind == "paragraph":  # sections: the exchange must go on (`lanes.continues`)
            after.append(lane_mod.continues(reply, table))
            earlier.append(lane_mod.continues(table, before))
        else:  # working memory is the window: a turn said before it is not served from it
            since = lane_mod.p("turns_since", DateTime(timezone=True))
            after.append(reply.at >= since)
            earlier.append(before.at >= since)
        fields = sorted(set(REPLY_FIELDS[kind].values()))
        read = (
            select(reply.id, *(getattr(reply, f) for f in fields))
            .where(*own, *after, asks, ~reply.text.regexp_match(lane_mod.ASKS))
            .limit(fixed(1))
            .lateral(f"reply_{kind}s")
        )
        back = (
            select(before.id, before.text)
            .where(*own, *earlier, ~asks, before.text.regexp_match(lane_mod.ASKS))
            .limit(fixed(1))
            .lateral(f"asked_{kind}s")
        )
        laterals += [read, back]
        columns += [read.c.id.label(f"reply_{kind}")]
        columns += [read.c[f].label(f"reply_{kind}_{f}") for f in fields]
        asked.append(back)
    columns += [
        func.coalesce(*(b.c.id for b in asked)).label("asked_id"),
        func.coalesce(*(b.c.text for b in asked)).label("asked_text"),
    ]
    return laterals, columns


def _edge_citation(fused: Any) -> Any:
    """An edge cites its heaviest current claim that names a source (its evidence in the text)."""
    ec = aliased(Claim, name="edge_claim")
    return (
        select(ec.source, ec.paragraph)
        .where(
            fused.c.kind == "association",
            ec.context_id == Association.context_id,
            ec.subject == Association.subject,
            ec.label == Association.label,
            ec.object == Association.object,
            ec.perspective == Association.perspective,
            ec.closed_at.is_(None),
            ec.source.is_not(None),
        )
        .order_by(func.abs(ec.weight).desc(), ec.id)
        .limit(fixed(1))
        .lateral("edge_citation")
    )


def _item_source(fused: Any) -> Any:
    """The source of a paragraph, catalog or area item, as a LIMIT 1 lateral by its key."""
    source_pk = case(
        (fused.c.kind == "paragraph", Paragraph.source_pk),
        (fused.c.kind == "catalog", fused.c.item_id),
        (fused.c.kind == "area", fused.c.item_id),
    )
    # The item's source by its key, LIMIT 1 like the reply laterals: joined on the CASE, no
    # index could take it and PostgreSQL read every source of the store for the candidates
    # (tests/recall/test_statement_plan.py).
    src = aliased(Source, name="item_source")
    return (
        select(src.context_id, src.source_id, src.title, src.area, src.state, src.date)
        .add_columns(src.stored_at, src.scopes)
        .where(src.id == source_pk)
        .limit(fixed(1))
        .lateral("item_sources")
    )


def _lane_counts(hits: Any) -> tuple[Any, Any]:
    """What each lane found and how many items fusion ranked, before the `candidates` cap (the
    trace's hits and its note on the cap): one value each, the same on every row."""
    per_lane = select(hits.c.lane, func.count().label("n")).group_by(hits.c.lane).subquery()
    items = select(hits.c.kind, hits.c.item_id).distinct().subquery()
    lane_rows = select(func.jsonb_object_agg(per_lane.c.lane, per_lane.c.n, type_=JSONB))
    fused_total = select(func.count()).select_from(items)
    return lane_rows, fused_total


def _document_columns(source: Any) -> list[Any]:
    """The detail of a paragraph, its source and a claim."""
    return [
        Paragraph.source_pk,
        Paragraph.idx,
        Paragraph.text.label("paragraph_text"),
        Paragraph.section_path,
        Paragraph.locator,
        Paragraph.kind.label("paragraph_kind"),
        source.c.source_id,
        source.c.title,
        source.c.area,
        source.c.state,
        source.c.date.label("source_date"),
        source.c.stored_at,
        Claim.statement,
        Claim.subject.label("claim_subject"),
        Claim.label.label("claim_label"),
        Claim.object.label("claim_object"),
        Claim.weight.label("claim_weight"),
        Claim.author,
        Claim.kind.label("claim_kind"),
        Claim.role.label("claim_role"),
        Claim.perspective.label("claim_perspective"),
        Claim.source.label("claim_source"),
        Claim.paragraph.label("claim_paragraph"),
        Claim.valid_from,
        Claim.recorded_at,
    ]


def _derived_columns(attributed: Any, area: Any) -> list[Any]:
    """The detail of an edge (with its citation), a community, a profile, a RAPTOR node, an area."""
    return [
        Association.subject.label("edge_subject"),
        Association.label.label("edge_label"),
        Association.object.label("edge_object"),
        Association.perspective.label("edge_perspective"),
        attributed.c.source.label("edge_source"),
        attributed.c.paragraph.label("edge_paragraph"),
        Community.summary.label("community_summary"),
        Community.level.label("community_level"),
        Community.ordinal.label("community_ordinal"),
        Community.built_at.label("community_built_at"),
        Profile.concept.label("profile_concept"),
        Profile.summary.label("profile_summary"),
        Profile.built_at.label("profile_built_at"),
        RaptorNode.summary.label("raptor_summary"),
        RaptorNode.level.label("raptor_level"),
        RaptorNode.ordinal.label("raptor_ordinal"),
        RaptorNode.leaves.label("raptor_leaves"),
        RaptorNode.built_at.label("raptor_built_at"),
        area.c.area_states,
        area.c.area_titles,
        area.c.area_newest,
    ]


def _turn_columns(area: Any, source: Any) -> list[Any]:
    """The detail of a turn, and every kind's scopes."""
    return [
        SessionTurn.speaker,
        SessionTurn.role,
        SessionTurn.text.label("turn_text"),
        SessionTurn.seq,
        SessionTurn.at,
        func.coalesce(
            Paragraph.scopes,
            Claim.scopes,
            Association.scopes,
            SessionTurn.scopes,
            Community.scopes,
            Profile.scopes,
            RaptorNode.scopes,
            area.c.area_scopes,
            source.c.scopes,
        ).label("scopes"),
    ]


@lru_cache(maxsize=64)
def build_recall_statement(shape: Shape) -> Select[Any]:
    """The statement for a shape; execute it with `params.bind(...)`'s parameters."""
    lanes = union_all(*(_lane(name, shape.dim) for name in LANES if name in shape.lanes))
    hits = on_one_scale(lanes.cte("lanes"))
    fused = fuse(hits)
    attributed = _edge_citation(fused)
    source = _item_source(fused)
    area = catalog_lanes.area_detail(fused, source)
    reply_laterals, reply_columns = _replies(fused)
    lane_rows, fused_total = _lane_counts(hits)
    stmt = (
        select(
            fused,
            *_document_columns(source),
            *_derived_columns(attributed, area),
            *_turn_columns(area, source),
            *reply_columns,
            lane_rows.scalar_subquery().label("lane_rows"),
            fused_total.scalar_subquery().label("fused_total"),
        )
        .select_from(fused)
        .outerjoin(Paragraph, and_(fused.c.kind == "paragraph", Paragraph.id == fused.c.item_id))
        .outerjoin(source, true())
        .outerjoin(Claim, and_(fused.c.kind == "claim", Claim.id == fused.c.item_id))
        .outerjoin(
            Association, and_(fused.c.kind == "association", Association.id == fused.c.item_id)
        )
        .outerjoin(SessionTurn, and_(fused.c.kind == "turn", SessionTurn.id == fused.c.item_id))
        .outerjoin(Community, and_(fused.c.kind == "community", Community.id == fused.c.item_id))
        .outerjoin(Profile, and_(fused.c.kind == "profile", Profile.id == fused.c.item_id))
        .outerjoin(RaptorNode, and_(fused.c.kind == "raptor", RaptorNode.id == fused.c.item_id))
        .outerjoin(attributed, true())
        .outerjoin(area, true())
    )
    for lateral in reply_laterals:
        stmt = stmt.outerjoin(lateral, true())
    return stmt.order_by(
        fused.c.fused.desc(), fused.c.group_rank, fused.c.kind, fused.c.tie, fused.c.item_id
    )
