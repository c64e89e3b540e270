"""Reading the RAPTOR tree: the corpus version, the nodes, and a node's members resolved.

`corpus_version` is what a build records on every node and what a read compares against, so a
read says `stale` after an ingest, a retraction, a new or closed note or a new embedding. It
covers the rows a build may read (scope set inside the context's, see derive/raptor/tree.py): the
paragraph vectors (ord 0, any model: count and id sum), the sources (count, retracted count,
newest storing and retraction), and the notes, claims with a statement (count, closed count,
vectors, newest recording and closing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tabane.derive.shared import check_number, shared
from tabane.errors import InvalidInput, Issue, NoNode
from tabane.storage.schema import (
    Claim,
    ClaimVector,
    Context,
    Paragraph,
    ParagraphVector,
    RaptorMember,
    RaptorNode,
    Source,
)

MEMBERS_SHOWN = 20  # member refs listed per node in a read (`size` counts all)

Kind = Literal["paragraph", "claim", "node", "missing"]


@dataclass(frozen=True)
class RaptorNodeInfo:
    level: int
    ordinal: int
    parent: int | None  # ordinal of the level-above node; None for a root
    size: int  # direct members
    leaves: int  # paragraphs and notes under it
    summary: str
    summarizer: str
    refs: tuple[str, ...]  # member refs the summary cites
    members: tuple[str, ...]  # the first MEMBERS_SHOWN member refs, nearest the centre first


@dataclass(frozen=True)
class RaptorTree:
    context: str
    built: bool
    built_at: datetime | None
    stale: bool  # the corpus changed after the build (or it has leaves and no build)
    corpus_version: str | None  # of the build
    current_version: str  # of the corpus now
    nodes: tuple[RaptorNodeInfo, ...]  # top level first, then by ordinal


@dataclass(frozen=True)
class RaptorMemberView:
    """One member of a node, resolved: a paragraph (source_id, paragraph index, title, text), a
    note (claim_id, text: its statement), a child node (level, ordinal, text: its summary), or
    `missing` (gone since the build, or not visible to the reader)."""

    ref: str
    rank: int
    kind: Kind
    text: str
    source_id: str | None = None
    paragraph: int | None = None
    title: str | None = None
    claim_id: int | None = None
    level: int | None = None
    ordinal: int | None = None


def _iso(at: datetime | None) -> str:
    return at.isoformat() if at is not None else "-"


def corpus_version(session: Session, ctx: Context) -> str:
    """The state of the rows a RAPTOR build reads (see the module docstring)."""
    pv, s, c, cv = ParagraphVector, Source, Claim, ClaimVector
    vectors, idsum = session.execute(
        select(func.count(), func.coalesce(func.sum(pv.paragraph_id), 0)).where(
            *shared(pv, ctx), pv.ord == 0
        )
    ).one()
    sources, retracted, stored, gone = session.execute(
        select(
            func.count(), func.count(s.retracted_at), func.max(s.stored_at),
            func.max(s.retracted_at),
        ).where(*shared(s, ctx))
    ).one()  # fmt: skip
    notes_where = [*shared(c, ctx), c.statement.is_not(None)]
    notes, closed, recorded, last = session.execute(
        select(
            func.count(), func.count(c.closed_at), func.max(c.recorded_at), func.max(c.closed_at)
        ).where(*notes_where)
    ).one()
    embedded = session.execute(
        select(func.count()).select_from(cv).join(c, c.id == cv.claim_id).where(*notes_where)
    ).scalar_one()
    return (
        f"p{vectors}/{idsum}:s{sources}/{retracted}/{_iso(stored)}/{_iso(gone)}"
        f":n{notes}/{closed}/{embedded}/{_iso(recorded)}/{_iso(last)}"
    )


def _has_leaves(version: str) -> bool:
    return not version.startswith("p0/") or not version.split(":n", 1)[1].startswith("0/")


def read(session: Session, ctx: Context, level: int | None = None) -> RaptorTree:
    """The context's RAPTOR nodes (one level, or all), top level first, with `stale`."""
    check_number("level", level, 1)
    current = corpus_version(session, ctx)
    n = RaptorNode
    where = [n.context_id == ctx.id] + ([n.level == level] if level is not None else [])
    rows = session.scalars(select(n).where(*where).order_by(n.level.desc(), n.ordinal, n.id)).all()
    probe = rows or session.scalars(select(n).where(n.context_id == ctx.id).limit(1)).all()
    if probe:
        newest = max(probe, key=lambda r: (r.built_at, r.id))
        built_at, version = newest.built_at, newest.corpus_version
        stale = version != current
    else:
        built_at, version, stale = None, None, _has_leaves(current)
    shown = _member_refs(session, [r.id for r in rows], MEMBERS_SHOWN)
    return RaptorTree(
        context=ctx.name,
        built=version is not None,
        built_at=built_at,
        stale=stale,
        corpus_version=version,
        current_version=current,
        nodes=tuple(
            RaptorNodeInfo(
                level=r.level,
                ordinal=r.ordinal,
                parent=r.parent,
                size=r.size,
                leaves=r.leaves,
                summary=r.summary,
                summarizer=r.summarizer,
                refs=tuple(r.refs),
                members=tuple(shown.get(r.id, ())),
            )
            for r in rows
        ),
    )


def _member_refs(session: Session, ids: Sequence[int], limit: int | None) -> dict[int, list[str]]:
    if not ids:
        return {}
    m = RaptorMember
    stmt = select(m.node_id, m.ref).where(m.node_id.in_(list(ids))).order_by(m.node_id, m.rank)
    if limit is not None:
        stmt = stmt.where(m.rank < limit)
    out: dict[int, list[str]] = defaultdict(list)
    for node_id, ref in session.execute(stmt):
        out[node_id].append(ref)
    return dict(out)


def members(
    session: Session, ctx: Context, level: int, ordinal: int
) -> tuple[RaptorMemberView, ...]:
    """Every member of node `level`.`ordinal`, nearest the centre first, each resolved so a
    citation can be followed down. An unknown node raises NoNode (`no_node`)."""
    if level is None:
        raise InvalidInput("level is required", issues=[Issue("level", "missing")])
    check_number("level", level, 1)
    check_number("ordinal", ordinal, 0)
    n = RaptorNode
    node = session.scalars(
        select(n)
        .where(n.context_id == ctx.id, n.level == level, n.ordinal == ordinal)
        .order_by(n.built_at.desc(), n.id.desc())
        .limit(1)
    ).one_or_none()
    if node is None:
        raise NoNode(
            f"no RAPTOR node {level}.{ordinal} in context {ctx.name!r}",
            issues=[Issue("ordinal", f"level {level} has no node {ordinal} (is the tree built?)")],
        )
    refs = _member_refs(session, [node.id], None).get(node.id, [])
    found = _resolve(session, ctx, level, refs)
    return tuple(
        found.get(ref) or RaptorMemberView(ref, rank, "missing", "")
        for rank, ref in enumerate(refs)
    )


def _ids(refs: Sequence[str], kind: str) -> list[int]:
    return sorted(int(r[2:]) for r in refs if r.startswith(kind) and r[2:].isdigit())


def _resolve(
    session: Session, ctx: Context, level: int, refs: Sequence[str]
) -> dict[str, RaptorMemberView]:
    rank = {ref: i for i, ref in enumerate(refs)}
    out: dict[str, RaptorMemberView] = {}
    p, s, c, n = Paragraph, Source, Claim, RaptorNode
    pids = _ids(refs, "p:")
    if pids:
        rows = session.execute(
            select(p.id, p.idx, p.text, s.source_id, s.title)
            .join(s, s.id == p.source_pk)
            .where(p.id.in_(pids), p.context_id == ctx.id, s.retracted_at.is_(None))
        )
        for pid, idx, text, source_id, title in rows:
            ref = f"p:{pid}"
            out[ref] = RaptorMemberView(
                ref, rank[ref], "paragraph", text, source_id=source_id, paragraph=idx, title=title
            )
    cids = _ids(refs, "c:")
    if cids:
        notes = session.execute(
            select(c.id, c.statement).where(
                c.id.in_(cids), c.context_id == ctx.id, c.closed_at.is_(None)
            )
        )
        for cid, statement in notes:
            ref = f"c:{cid}"
            out[ref] = RaptorMemberView(ref, rank[ref], "claim", statement or "", claim_id=cid)
    below = f"r:{level - 1}."
    ordinals = sorted(int(r[len(below) :]) for r in refs if r.startswith(below))
    if ordinals:
        nodes = session.execute(
            select(n.ordinal, n.summary)
            .where(n.context_id == ctx.id, n.level == level - 1, n.ordinal.in_(ordinals))
            .order_by(n.ordinal, n.built_at.desc(), n.id.desc())
        )
        for o, summary in nodes:
            ref = f"{below}{o}"
            out.setdefault(
                ref, RaptorMemberView(ref, rank[ref], "node", summary, level=level - 1, ordinal=o)
            )
    return out
