"""Citations of one association: its live claims with the cited paragraph's text, the source
title, the section and the locator — the original sentence to verify an edge against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from tabane.errors import Issue, NotFound
from tabane.graph import edges as edges_mod
from tabane.plain import shown_weight
from tabane.storage.schema import Claim, Context, Paragraph, Source

MAX_CITATIONS = 100  # per association partition, heaviest claims first


@dataclass(frozen=True)
class ClaimCitation:
    claim: int
    weight: float
    author: str
    kind: str
    statement: str | None
    source: str | None
    paragraph: int | None
    title: str | None  # None: no source, or the source is retracted or not visible
    text: str | None  # the cited paragraph's text
    section: tuple[str, ...]
    locator: dict[str, Any] | None


@dataclass(frozen=True)
class CitedAssociation:
    """One perspective partition of the edge: its net weight and its claims, cited."""

    perspective: str | None
    weight: float
    claims: int
    citations: tuple[ClaimCitation, ...]


@dataclass(frozen=True)
class AssociationCitations:
    context: str
    subject: str
    label: str
    object: str
    associations: tuple[CitedAssociation, ...]


def citations(
    session: Session,
    ctx: Context,
    subject: str,
    label: str,
    obj: str,
    perspective: str | None = None,
) -> AssociationCitations:
    """Spellings must be canonical (the service maps aliases). `not_found` when the caller sees
    no live edge (subject, label, object) in the context (in `perspective`, when given)."""
    e = edges_mod.net([ctx.id], None)
    stmt = select(e.c.perspective, e.c.weight, e.c.claims).where(
        e.c.subject == subject, e.c.label == label, e.c.object == obj, e.c.claims > 0
    )
    if perspective is not None:
        stmt = stmt.where(e.c.perspective == perspective)
    parts = session.execute(stmt.order_by(func.abs(e.c.weight).desc(), e.c.perspective)).all()
    if not parts:
        raise NotFound(
            f"no association ({subject!r}, {label!r}, {obj!r}) in context {ctx.name!r}",
            issues=[Issue("label", "no live edge with this subject, label and object")],
        )
    perspectives = [p.perspective for p in parts]
    rows = _claim_rows(session, ctx, (subject, label, obj), perspectives)
    by_part: dict[str, list[ClaimCitation]] = {}
    for r in rows:
        bucket = by_part.setdefault(r.perspective, [])
        if len(bucket) < MAX_CITATIONS:
            bucket.append(
                ClaimCitation(
                    claim=r.id,
                    weight=shown_weight(r.weight),
                    author=r.author,
                    kind=r.kind,
                    statement=r.statement,
                    source=r.source,
                    paragraph=r.paragraph,
                    title=r.title,
                    text=r.text,
                    section=tuple(r.section_path or ()),
                    locator=r.locator,
                )
            )
    return AssociationCitations(
        ctx.name,
        subject,
        label,
        obj,
        tuple(
            CitedAssociation(
                p.perspective or None,
                shown_weight(p.weight),
                int(p.claims),
                tuple(by_part.get(p.perspective, ())),
            )
            for p in parts
        ),
    )


def _claim_rows(
    session: Session, ctx: Context, triple: tuple[str, str, str], perspectives: list[Any]
) -> Sequence[Any]:
    """The live claims of the edge in those perspectives, strongest first, each with the
    paragraph it cites (when its source is live) and that source's title."""
    subject, label, obj = triple
    c = Claim
    return session.execute(
        select(
            c.id,
            c.perspective,
            c.weight,
            c.author,
            c.kind,
            c.statement,
            c.source,
            c.paragraph,
            Source.title,
            Paragraph.text,
            Paragraph.section_path,
            Paragraph.locator,
        )
        .outerjoin(
            Source,
            and_(
                Source.context_id == c.context_id,
                Source.source_id == c.source,
                Source.retracted_at.is_(None),
            ),
        )
        .outerjoin(Paragraph, and_(Paragraph.source_pk == Source.id, Paragraph.idx == c.paragraph))
        .where(
            c.context_id == ctx.id,
            c.subject == subject,
            c.label == label,
            c.object == obj,
            c.perspective.in_(perspectives),
            *edges_mod.in_window(None),
        )
        .order_by(func.abs(c.weight).desc(), c.id)
    ).all()
