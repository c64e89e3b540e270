"""Writing and closing claims, and keeping the associations they net into.

An association row holds, per scope set, the sum and count of its open claims; every change to a
claim re-nets the touched rows from the claims themselves in the same transaction, so the net
weight always equals the sum of the live claims (no drift from adding and subtracting floats).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import (
    and_,
    false,
    func,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from tabane.checks import EdgeKey
from tabane.contexts.contexts import bump
from tabane.errors import Forbidden, InvalidInput, Issue, NoClaim
from tabane.graph import schema, vocabulary
from tabane.graph.claims.parse import ClaimInput, spelled
from tabane.graph.netting import renet
from tabane.principal import PUBLIC, Principal
from tabane.storage.bulk import insert_columns
from tabane.storage.schema import Claim, Context, Source


@dataclass(frozen=True)
class WriteReport:
    """What a batch wrote: claim ids in input order, spellings minted, associations touched."""

    claims: tuple[int, ...]
    associations: int
    minted_concepts: tuple[str, ...]
    minted_labels: tuple[str, ...]
    aliased: dict[str, str] = field(default_factory=dict)
    closed: int = 0


@dataclass(frozen=True)
class CloseReport:
    claims: int
    associations: int
    dry_run: bool = False


def perspective_of(claim: ClaimInput, author: str) -> str:
    """World claims share one partition (''); the personal kinds get one per holder."""
    if claim.kind == "world":
        return ""
    return claim.perspective or author


def _claim_rows(
    principal: Principal,
    ids: Sequence[int],
    claims: Sequence[ClaimInput],
    concept_alias: Mapping[str, str],
    label_alias: Mapping[str, str],
) -> tuple[dict[str, list[object]], set[EdgeKey]]:
    """The claims' rows, column by column (names and labels canonical, author and perspective
    filled in), and the edge keys their triples carry."""
    rows: dict[str, list[object]] = defaultdict(list)
    keys: set[EdgeKey] = set()
    for claim_id, claim in zip(ids, claims, strict=True):
        author = claim.author or principal.name
        subject = concept_alias.get(claim.subject, claim.subject) if claim.subject else None
        obj = concept_alias.get(claim.object, claim.object) if claim.object else None
        label = label_alias.get(claim.label, claim.label) if claim.label else None
        perspective = perspective_of(claim, author)
        values = {
            "id": claim_id,
            "subject": subject,
            "label": label,
            "object": obj,
            "weight": claim.weight,
            "statement": claim.statement,
            "in_reply_to": claim.in_reply_to,
            "source": claim.source,
            "paragraph": claim.paragraph,
            "author": author,
            "role": claim.role,
            "kind": claim.kind,
            "perspective": perspective,
            "valid_from": claim.valid_from,
            "valid_until": claim.valid_until,
        }
        for name, value in values.items():
            rows[name].append(value)
        if subject and label and obj:
            keys.add((perspective, subject, label, obj))
    return rows, keys


def write_batch(
    session: Session,
    principal: Principal,
    ctx: Context,
    claims: Sequence[ClaimInput],
    scopes: Sequence[str],
) -> WriteReport:
    """Write every claim or none (the caller's transaction rolls back on any error)."""
    if not principal.can_write(tuple(scopes)):
        missing = sorted(set(scopes) - principal.write)
        raise Forbidden("you may not write these scopes", issues=[Issue("scopes", f"{missing}")])
    claims = spelled(claims)
    concepts = {n for c in claims if c.triple for n in (c.subject, c.object) if n is not None}
    labels = {c.label for c in claims if c.label is not None}
    concept_alias = vocabulary.canonical(session, ctx.id, "concept", concepts)
    label_alias = vocabulary.canonical(session, ctx.id, "label", labels)
    _check_attributions(session, ctx, claims)
    schema.check_writes(
        session,
        ctx,
        [
            (i, concept_alias.get(s, s), label_alias.get(lb, lb), concept_alias.get(o, o), w or 0.0)
            for i, c in enumerate(claims)
            if c.triple
            for s, lb, o, w in [(*c.triple, c.weight)]
        ],
    )
    ids = _new_ids(session, len(claims))
    rows, keys = _claim_rows(principal, ids, claims, concept_alias, label_alias)
    insert_columns(
        session,
        Claim.__table__,  # type: ignore[arg-type]
        rows,
        {"context_id": ctx.id, "scopes": list(scopes), "written_by": principal.user_id},
    )
    closed = _supersede(session, principal, ctx, claims, ids, scopes)
    minted_concepts = vocabulary.ensure(
        session, ctx.id, "concept", {n for k in keys for n in (k[1], k[3])}, scopes
    )
    minted_labels = vocabulary.ensure(session, ctx.id, "label", {k[2] for k in keys}, scopes)
    renet(session, ctx.id, scopes, keys)
    bump(session, ctx.id, writes=1)
    return WriteReport(
        claims=tuple(ids),
        associations=len(keys),
        minted_concepts=tuple(minted_concepts),
        minted_labels=tuple(minted_labels),
        aliased={**concept_alias, **label_alias},
        closed=closed,
    )


def _new_ids(session: Session, n: int) -> list[int]:
    seq = func.nextval(literal("claims_id_seq"))
    return list(session.scalars(select(seq).select_from(func.generate_series(1, n))))


def _check_attributions(session: Session, ctx: Context, claims: Sequence[ClaimInput]) -> None:
    """A paragraph index must point into a stored, live source of this context."""
    named = {c.source for c in claims if c.paragraph is not None and c.source is not None}
    if not named:
        return
    rows = session.execute(
        select(Source.source_id, Source.paragraph_count).where(
            Source.context_id == ctx.id,
            Source.source_id.in_(named),
            Source.retracted_at.is_(None),
        )
    )
    counts = {row.source_id: row.paragraph_count for row in rows}
    issues: list[Issue] = []
    for i, claim in enumerate(claims):
        if claim.paragraph is None or claim.source is None:
            continue
        if claim.source not in counts:
            issues.append(Issue(f"associations[{i}].source", "not a stored source of this context"))
        elif claim.paragraph >= counts[claim.source]:
            issues.append(
                Issue(
                    f"associations[{i}].paragraph",
                    f"out of range: the source has {counts[claim.source]} paragraphs",
                )
            )
    if issues:
        raise InvalidInput("attributions point nowhere; nothing written", issues=issues)


def _supersede(
    session: Session,
    principal: Principal,
    ctx: Context,
    claims: Sequence[ClaimInput],
    ids: Sequence[int],
    scopes: Sequence[str],
) -> int:
    """A claim that `closes` earlier ones ends their validity where its own begins (an earlier
    end stays; the end they had is kept in `valid_until_before`). A correction must be readable
    by whoever could read what it closes (its scopes among theirs, or `public`): else a note
    fewer people see would silently take a shared one away from the rest."""
    closed = 0
    for i, (claim_id, claim) in enumerate(zip(ids, claims, strict=True)):
        if not claim.closes:
            continue
        earlier = session.scalars(
            select(Claim).where(
                Claim.context_id == ctx.id,
                Claim.id.in_(claim.closes),
                Claim.closed_at.is_(None),
            )
        ).all()
        found = {c.id for c in earlier}
        missing = [cid for cid in claim.closes if cid not in found]
        if missing:
            raise NoClaim(
                f"no open claim {missing} in context {ctx.name!r}",
                issues=[Issue(f"associations[{i}].closes", f"unknown or closed: {missing}")],
            )
        for old in earlier:
            if not principal.can_write(tuple(old.scopes)):
                raise Forbidden(
                    f"you may not close claim {old.id}",
                    issues=[Issue(f"associations[{i}].closes", "its scopes are not writable")],
                )
            if not set(scopes) <= {*old.scopes, PUBLIC}:
                raise Forbidden(
                    f"claim {old.id} is read in {sorted(old.scopes)}: its correction must be "
                    f"readable there, not only in {sorted(scopes)}",
                    issues=[
                        Issue(
                            f"associations[{i}].closes",
                            "the correction's scopes are narrower than the closed claim's",
                        )
                    ],
                )
            old.closed_at = func.now()
            old.close_reason = "superseded"
            old.closed_by = claim_id
            old.valid_until_before = old.valid_until
            # ends where the correction begins, unless it had ended before; never before it
            # began (a correction from before then leaves it valid for no time)
            ends = func.least(old.valid_until, claim.valid_from or func.now())
            old.valid_until = func.greatest(old.valid_from, ends)  # NULL: no start to keep
        session.flush()
        closed += len(earlier)
        _renet_claims(session, ctx.id, earlier)
    return closed


def _renet_claims(session: Session, context_id: int, claims: Iterable[Claim]) -> None:
    by_scopes: dict[tuple[str, ...], set[EdgeKey]] = defaultdict(set)
    for c in claims:
        if c.subject and c.label and c.object:
            by_scopes[tuple(c.scopes)].add((c.perspective, c.subject, c.label, c.object))
    for scopes, keys in by_scopes.items():
        renet(session, context_id, scopes, keys)


def close_where(
    session: Session,
    principal: Principal,
    ctx: Context,
    condition: object,
    *,
    reason: str = "retracted",
    dry_run: bool = False,
    path: str = "scopes",
) -> CloseReport:
    """Close every open claim of the context matching `condition` that the caller may write;
    `path` names the request's field a refusal is about."""
    found = session.scalars(
        select(Claim)
        .where(Claim.context_id == ctx.id, Claim.closed_at.is_(None), condition)  # type: ignore[arg-type]
        .order_by(Claim.id)
    ).all()
    mine = [c for c in found if principal.can_write(tuple(c.scopes))]
    if len(mine) < len(found):
        raise Forbidden(
            f"{len(found) - len(mine)} of the matching claims are not writable by you",
            issues=[Issue(path, "some claims' scopes are not all writable; nothing closed")],
        )
    edges = {
        (c.perspective, c.subject, c.label, c.object)
        for c in mine
        if c.subject and c.label and c.object
    }
    if dry_run or not mine:
        return CloseReport(len(mine), len(edges), dry_run)
    session.execute(
        update(Claim)
        .where(Claim.id.in_([c.id for c in mine]))
        .values(closed_at=func.now(), close_reason=reason)
    )
    session.flush()
    _renet_claims(session, ctx.id, mine)
    bump(session, ctx.id, writes=1)
    return CloseReport(len(mine), len(edges), dry_run)


def closed_now(session: Session, context_id: int) -> list[tuple[str, ...]]:
    """The scope sets of the context's claims this transaction closed (their `closed_at` is the
    transaction's `now()`)."""
    stmt = select(Claim.scopes).where(Claim.context_id == context_id, Claim.closed_at == func.now())
    return sorted({tuple(scopes) for scopes in session.scalars(stmt.distinct())})


def retract_edges(
    session: Session,
    principal: Principal,
    ctx: Context,
    edges: Sequence[tuple[str, str, str, str | None, str | None]],
    *,
    dry_run: bool = False,
) -> CloseReport:
    """Close the claims of each (subject, label, object[, perspective][, source]) edge."""
    concepts = {e[0] for e in edges} | {e[2] for e in edges}
    c_alias = vocabulary.canonical(session, ctx.id, "concept", concepts)
    l_alias = vocabulary.canonical(session, ctx.id, "label", {e[1] for e in edges})
    clauses = []
    for subject, label, obj, perspective, source in edges:
        parts = [
            Claim.subject == c_alias.get(subject, subject),
            Claim.label == l_alias.get(label, label),
            Claim.object == c_alias.get(obj, obj),
        ]
        if perspective is not None:
            parts.append(Claim.perspective == perspective)
        if source is not None:
            parts.append(Claim.source == source)
        clauses.append(and_(*parts))
    # or_() of nothing would be no condition at all: every open claim of the context.
    matching = or_(false(), *clauses)
    return close_where(session, principal, ctx, matching, dry_run=dry_run, path="associations")


def touch(session: Session, claim_ids: Sequence[int]) -> None:
    """Count one more access of each claim (a recall served them), stamped now."""
    if claim_ids:
        session.execute(
            update(Claim)
            .where(Claim.id.in_(claim_ids))
            .values(access_count=Claim.access_count + 1, last_access=func.now())
        )
