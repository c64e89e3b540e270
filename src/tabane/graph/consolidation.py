"""audit_consolidation: what in a context could be merged — candidates with their reasons, never
applied. Nothing is written. Three sections:

- `twins`: concept pairs from the vocabulary audit (graph/audit.py: lexical Dice, and gloss
  cosine where an embedder is configured), corroborated by structure — the Jaccard overlap of
  the two concepts' live neighbourhoods ((label, object) out, (subject, label) in). The action
  says how it could be applied: `alias` when one side has no live edge (aliasing it is
  allowed), `reattribute` when both do (an alias cannot join two concepts: retract the sources
  of one and re-ingest them under the other), `keep` when the pair is recorded as distinct.
- `duplicates`: one source asserting one edge several times in open claims — its weight then
  counts that many times (one document should state a fact once; corroboration is several
  sources).
- `aliases`: an alias whose normalized key is also another concept's key (two concepts one
  spelling apart, resolve finds both), and a key aliased to different concepts under different
  scope sets.

Twins are bounded by the audit's own work bounds; the other two are SQL pages with totals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from tabane.graph.audit import Twin
from tabane.storage.schema import Association, Claim, Context, VocabEntry

SECTIONS = ("twins", "duplicates", "aliases")


@dataclass(frozen=True)
class MergeCandidate:
    a: str
    b: str
    tier: str  # lexical | semantic
    score: float  # Dice or cosine (never compared across tiers)
    overlap: float  # Jaccard of the live neighbourhoods
    shared: int  # neighbourhood entries both have
    edges_a: int  # live edges of a
    edges_b: int
    distinct: bool
    action: str  # alias | reattribute | keep
    reason: str


@dataclass(frozen=True)
class DuplicateClaims:
    subject: str
    label: str
    object: str
    source: str
    perspective: str
    claims: int
    weight: float  # their sum: what the edge gets from this one source
    reason: str


@dataclass(frozen=True)
class AliasOverlap:
    rule: str  # alias_is_concept | alias_split
    alias: str
    targets: tuple[str, ...]  # the concept(s) the alias points at
    other: str | None  # the concept whose key the alias shares (alias_is_concept)
    reason: str


@dataclass(frozen=True)
class Section:
    total: int
    next_cursor: int | None
    capped: bool = False  # the twin search hit a work bound


@dataclass(frozen=True)
class Consolidation:
    context: str
    twins: list[MergeCandidate]
    duplicates: list[DuplicateClaims]
    aliases: list[AliasOverlap]
    sections: dict[str, Section]
    semantic_reason: str | None  # why no semantic twins were looked for
    cursor: int
    limit: int


def section(total: int, cursor: int, got: int, capped: bool = False) -> Section:
    after = cursor + got
    return Section(total=total, next_cursor=after if after < total else None, capped=capped)


def _neighbourhoods(
    session: Session, ctx: Context, names: set[str]
) -> dict[str, set[tuple[str, ...]]]:
    a = Association
    rows = session.execute(
        select(a.subject, a.label, a.object)
        .where(a.context_id == ctx.id, a.subject.in_(names) | a.object.in_(names))
        .group_by(a.subject, a.label, a.object)
        .having(func.sum(a.claims) > 0)
    )
    found: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for s, lb, o in rows:
        if s in names:
            found[s].add(("out", lb, o))
        if o in names:
            found[o].add(("in", s, lb))
    return found


def merge_candidates(session: Session, ctx: Context, twins: Sequence[Twin]) -> list[MergeCandidate]:
    near = _neighbourhoods(session, ctx, {n for t in twins for n in (t.a, t.b)})
    found = []
    for t in twins:
        na, nb = near.get(t.a, set()), near.get(t.b, set())
        shared = len(na & nb)
        union = len(na | nb)
        overlap = shared / union if union else 0.0
        if t.distinct:
            action, why = "keep", "recorded as different referents (別物 / distinct_from)"
        elif not na or not nb:
            lone = t.a if not na else t.b
            action, why = "alias", f"{lone!r} has no live edge: it can become an alias"
        else:
            action = "reattribute"
            why = "both have live edges: an alias cannot join them; re-ingest one under the other"
        ruler = "Dice" if t.tier == "lexical" else "gloss cosine"
        found.append(
            MergeCandidate(
                a=t.a,
                b=t.b,
                tier=t.tier,
                score=round(t.score, 4),
                overlap=round(overlap, 4),
                shared=shared,
                edges_a=len(na),
                edges_b=len(nb),
                distinct=t.distinct,
                action=action,
                reason=f"{ruler} {t.score:.2f}, {shared} shared neighbour(s); {why}",
            )
        )
    order = {"reattribute": 0, "alias": 0, "keep": 1}
    return sorted(found, key=lambda m: (order[m.action], -m.overlap, -m.score, m.a, m.b))


def duplicates(
    session: Session, ctx: Context, limit: int, cursor: int
) -> tuple[list[DuplicateClaims], Section]:
    c = Claim
    groups = (
        select(
            c.perspective,
            c.subject,
            c.label,
            c.object,
            c.source,
            func.count().label("n"),
            func.sum(c.weight).label("w"),
        )
        .where(
            c.context_id == ctx.id,
            c.closed_at.is_(None),
            c.subject.is_not(None),
            c.source.is_not(None),
        )
        .group_by(c.perspective, c.subject, c.label, c.object, c.source)
        .having(func.count() > 1)
        .subquery()
    )
    total = session.scalar(select(func.count()).select_from(groups)) or 0
    g = groups.c
    rows = session.execute(
        select(groups)
        .order_by(g.n.desc(), g.subject, g.label, g.object, g.source, g.perspective)
        .limit(limit)
        .offset(cursor)
    ).all()
    found = [
        DuplicateClaims(
            subject=r.subject,
            label=r.label,
            object=r.object,
            source=r.source,
            perspective=r.perspective,
            claims=int(r.n),
            weight=round(float(r.w), 6),
            reason=(
                f"source {r.source!r} asserts this edge {r.n} times: its weight counts {r.n}"
                " times (corroboration is several sources, not one source repeating)"
            ),
        )
        for r in rows
    ]
    return found, section(int(total), cursor, len(found))


def alias_overlaps(session: Session, ctx: Context) -> list[AliasOverlap]:
    al, other = aliased(VocabEntry), aliased(VocabEntry)
    shared_key = session.execute(
        select(al.name, al.alias_of, other.name)
        .join(
            other,
            (other.context_id == al.context_id)
            & (other.kind == al.kind)
            & (other.key == al.key)
            & other.alias_of.is_(None)
            & (other.name != al.alias_of),
        )
        .where(al.context_id == ctx.id, al.kind == "concept", al.alias_of.is_not(None))
        .distinct()
    )
    found = [
        AliasOverlap(
            rule="alias_is_concept",
            alias=alias,
            targets=(str(target),),
            other=concept,
            reason=(
                f"alias {alias!r} → {target!r} is one spelling (up to case, width or kana) with"
                f" the concept {concept!r}: resolve finds both — the same referent?"
            ),
        )
        for alias, target, concept in shared_key
    ]
    split = session.execute(
        select(func.min(VocabEntry.name), func.array_agg(VocabEntry.alias_of.distinct()))
        .where(
            VocabEntry.context_id == ctx.id,
            VocabEntry.kind == "concept",
            VocabEntry.alias_of.is_not(None),
        )
        .group_by(VocabEntry.key)
        .having(func.count(VocabEntry.alias_of.distinct()) > 1)
    )
    found += [
        AliasOverlap(
            rule="alias_split",
            alias=alias,
            targets=tuple(sorted(str(t) for t in targets)),
            other=None,
            reason=f"alias {alias!r} points at {len(targets)} concepts under different scope sets",
        )
        for alias, targets in split
    ]
    return sorted(found, key=lambda x: (x.rule, x.alias, x.targets))
