"""resolve/explain: why an expected spelling is or is not among resolve's candidates.

The first verdict that applies: `not_in_vocabulary` (with the nearest stored spellings — an
invisible spelling looks exactly like one that does not exist), `served` (rank, score, kind,
tier), `eclipsed_by_exact` (the cue is another stored spelling, so nothing else was scored),
`below_floor` (the Dice score, the floor in effect and the floor that would admit it),
`cut_by_limit` (its rank and a limit verified by re-running resolve), `semantic_never_ran` (why),
`semantic_below_floor` (the cosine and the floor). It scores with resolve's own code
(`resolve.lexical`, `resolve_cue.score_key`, `resolve.semantic`), so the numbers agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue
from tabane.graph.resolve import cue as rc
from tabane.graph.resolve import resolver as res
from tabane.graph.resolve.resolver import Floor, Request, Resolution
from tabane.graph.vocabulary import check_spelling
from tabane.models.embedder import Embedder
from tabane.storage.schema import Context, VocabEntry
from tabane.text.spelling import char_grams

NEAREST = 5
ROUTES = {  # what a served match of another script says it read
    "variant": ": the cue with variant kanji is {name}",
    "reading": ": the cue's reading is that of {name} ({key})",
    "romanisation": ": the cue's romanisation is that of {name} ({key})",
    "acronym": ": the cue is the initials of {name}",
}


@dataclass(frozen=True)
class ResolveExplanation:
    verdict: str
    detail: str
    cue: str
    expected: str  # as asked
    canonical: str | None  # what `expected` resolves to (None when not in the vocabulary)
    kind: str
    rank: int | None = None
    score: float | None = None
    match: str | None = None  # a resolve Candidate's kind
    tier: str | None = None
    dice_floor: Floor | None = None
    admitting_floor: float | None = None  # the dice floor that would admit it
    limit: int | None = None
    limit_to_reach: int | None = None  # verified by re-running resolve
    eclipsed_by: tuple[str, ...] = ()
    semantic_reason: str | None = None
    cosine: float | None = None
    semantic_floor: Floor | None = None
    nearest: tuple[str, ...] = ()


Rerun = Callable[[Request], Resolution]


def _canonical(session: Session, ctx: Context, kind: str, name: str) -> tuple[str, str] | None:
    """(canonical, key) of a visible spelling, or None."""
    rows = session.execute(
        select(VocabEntry.name, VocabEntry.alias_of, VocabEntry.key)
        .where(VocabEntry.context_id == ctx.id, VocabEntry.kind == kind, VocabEntry.name == name)
        .order_by(VocabEntry.alias_of.is_not(None), VocabEntry.id)
    ).all()
    if not rows:
        return None
    row = rows[0]
    return (row.alias_of or row.name, row.key)


def _keys_of(session: Session, ctx: Context, kind: str, canonical: str) -> list[tuple[str, str]]:
    """(spelling, key) of the canonical spelling and every alias of it the caller can see."""
    v = VocabEntry
    rows = session.execute(
        select(v.name, v.key).where(
            v.context_id == ctx.id,
            v.kind == kind,
            (v.name == canonical) | (v.alias_of == canonical),
        )
    )
    return sorted({(r.name, r.key) for r in rows})


def explain(
    session: Session,
    ctx: Context,
    request: Request,
    expected: str,
    *,
    embedder: Embedder | None,
    default_semantic_floor: float | None,
    rerun: Rerun,
) -> ResolveExplanation:
    request.check()
    issues: list[Issue] = []
    normal = check_spelling(expected, "expected", issues)  # as a write would store it
    if normal is None:
        raise InvalidInput("invalid expected spelling", issues=issues)
    expected = normal
    dice, sem_floor = res.floors(ctx, request, default_semantic_floor)
    assert dice.value is not None
    base = {"cue": request.cue, "expected": expected, "kind": request.kind, "dice_floor": dice}
    found = _canonical(session, ctx, request.kind, expected)
    if found is None:
        return _not_stored(session, ctx, request.kind, expected, base)
    canonical = found[0]
    base["canonical"] = canonical
    lexed = res.lexical(
        session, ctx, request.kind, request.cue, dice.value, request.limit, every=True
    )
    ranks = {s.canonical: (i, s) for i, s in enumerate(lexed.ranked, start=1)}
    if canonical in ranks:
        return _ranked(*ranks[canonical], request, canonical, rerun, base)
    if lexed.eclipsed:
        others = tuple(sorted({s.canonical for s in lexed.exact}))
        return ResolveExplanation(
            "eclipsed_by_exact",
            f"the cue is the stored spelling of {', '.join(others)}: nothing else was scored",
            eclipsed_by=others,
            **base,  # type: ignore[arg-type]
        )
    best = _own_best(session, ctx, request.kind, canonical, lexed.cue)
    if best.score > 0 and best.score < dice.value:
        return ResolveExplanation(
            "below_floor",
            f"Dice {best.score:.3f} is under the dice floor {dice.value} ({dice.source}); "
            f"dice_floor {best.score:.3f} admits it",
            score=best.score,
            match=best.kind,
            tier="lexical",
            admitting_floor=best.score,
            **base,  # type: ignore[arg-type]
        )
    reason, _ = res.semantic_blocker(session, ctx, request.kind, lexed.best, embedder)
    if reason is not None:
        shared = sorted(lexed.cue.stop & char_grams(best.key))  # all it shared: over-common
        return _never_ran(reason, shared, sem_floor, base)
    assert embedder is not None
    return _semantic_verdict(session, ctx, request, canonical, embedder, sem_floor, rerun, base)


def _not_stored(
    session: Session, ctx: Context, kind: str, expected: str, base: dict[str, object]
) -> ResolveExplanation:
    """No such spelling in the vocabulary the caller sees: with the nearest stored ones (an
    invisible spelling looks exactly like one that does not exist)."""
    near = res.lexical(session, ctx, kind, expected, 0.0, NEAREST)
    return ResolveExplanation(
        "not_in_vocabulary",
        f"no {kind} spelled {expected!r} is stored where you can see it",
        canonical=None,
        nearest=tuple(s.canonical for s in near.ranked[:NEAREST]),
        **base,  # type: ignore[arg-type]
    )


def _never_ran(
    reason: str, shared: list[str], sem_floor: Floor, base: dict[str, object]
) -> ResolveExplanation:
    """No lexical overlap that counts (none, or only over-common bigrams), and the semantic
    tier did not run (`reason`)."""
    overlap = (
        f"its only shared bigrams ({', '.join(shared)}) are over-common, left out of Dice"
        if shared
        else "no lexical overlap"
    )
    return ResolveExplanation(
        "semantic_never_ran",
        f"{overlap}, and the semantic tier did not run: {reason}",
        semantic_reason=reason,
        semantic_floor=sem_floor,
        **base,  # type: ignore[arg-type]
    )


def _ranked(
    rank: int,
    s: rc.Scored,
    request: Request,
    canonical: str,
    rerun: Rerun,
    base: dict[str, object],
) -> ResolveExplanation:
    """The expected spelling the lexical tiers ranked: served, or cut by the limit (with the
    limit that would serve it, checked by resolving again)."""
    if rank <= request.limit:
        route = ROUTES[s.kind].format(name=s.name, key=s.key) if s.kind in ROUTES else ""
        return ResolveExplanation(
            "served",
            f"served at rank {rank} ({s.kind}, {s.score:.3f}){route}",
            rank=rank,
            score=s.score,
            match=s.kind,
            tier="lexical",
            limit=request.limit,
            **base,  # type: ignore[arg-type]
        )
    reach = _verified_limit(rerun, request, canonical, rank, "lexical")
    return ResolveExplanation(
        "cut_by_limit",
        f"ranked {rank}, past the limit of {request.limit}",
        rank=rank,
        score=s.score,
        match=s.kind,
        tier="lexical",
        limit=request.limit,
        limit_to_reach=reach,
        **base,  # type: ignore[arg-type]
    )


def _own_best(session: Session, ctx: Context, kind: str, canonical: str, cue: rc.Cue) -> rc.Scored:
    """The expected concept's own best spelling against the cue, by the same scoring function
    resolve ranks with."""
    best: rc.Scored | None = None
    for name, key in _keys_of(session, ctx, kind, canonical):
        score, how = rc.score_key(cue, key)
        cand = rc.Scored(name, canonical, key, score, how)
        if best is None or (score, -rc.KIND_ORDER[how]) > (best.score, -rc.KIND_ORDER[best.kind]):
            best = cand
    assert best is not None
    return best


def _semantic_verdict(
    session: Session,
    ctx: Context,
    request: Request,
    canonical: str,
    embedder: Embedder,
    sem_floor: Floor,
    rerun: Rerun,
    base: dict[str, object],
) -> ResolveExplanation:
    """The semantic tier's verdict on `canonical`: its rank among the floored glosses (served
    within the limit, else cut with a verified limit), or its cosine under the floor."""
    vector = embedder.embed_query(request.cue)
    cosine = res.cosine_of(session, ctx, embedder, vector, canonical, request.kind)
    if cosine is None:
        return ResolveExplanation(
            "semantic_never_ran",
            f"{canonical!r} has no gloss vector of {embedder.name} yet",
            semantic_reason="no_gloss_vector",
            semantic_floor=sem_floor,
            **base,  # type: ignore[arg-type]
        )
    hits = res.semantic(
        session, ctx, embedder, vector, sem_floor.value, res.MAX_LIMIT, request.kind
    )
    rank = next((i for i, (name, _) in enumerate(hits, start=1) if name == canonical), None)
    if rank is None and sem_floor.value is not None and cosine < sem_floor.value:
        return ResolveExplanation(
            "semantic_below_floor",
            f"gloss cosine {cosine:.3f} is under the semantic floor {sem_floor.value} "
            f"({sem_floor.source})",
            score=cosine,
            cosine=cosine,
            tier="semantic",
            semantic_floor=sem_floor,
            **base,  # type: ignore[arg-type]
        )
    return _semantic_ranked(request, canonical, rank, cosine, sem_floor, rerun, base)


def _semantic_ranked(
    request: Request,
    canonical: str,
    rank: int | None,
    cosine: float,
    sem_floor: Floor,
    rerun: Rerun,
    base: dict[str, object],
) -> ResolveExplanation:
    """A gloss the floor admits: served within the limit, else cut (with a verified limit when
    it ranked within the best MAX_LIMIT)."""
    common = {
        "rank": rank,
        "score": cosine,
        "cosine": cosine,
        "tier": "semantic",
        "match": "semantic",
        "limit": request.limit,
        "semantic_floor": sem_floor,
    }
    if rank is not None and rank <= request.limit:
        return ResolveExplanation(
            "served",
            f"served by the semantic tier at rank {rank} (cosine {cosine:.3f})",
            **common,  # type: ignore[arg-type]
            **base,  # type: ignore[arg-type]
        )
    where = f"ranked {rank}" if rank is not None else f"outside the best {res.MAX_LIMIT}"
    reach = None if rank is None else _verified_limit(rerun, request, canonical, rank, "semantic")
    return ResolveExplanation(
        "cut_by_limit",
        f"gloss cosine {cosine:.3f} is above the floor but {where} in the semantic tier, "
        f"past the limit of {request.limit}",
        limit_to_reach=reach,
        **common,  # type: ignore[arg-type]
        **base,  # type: ignore[arg-type]
    )


def _verified_limit(
    rerun: Rerun, request: Request, canonical: str, rank: int, tier: str
) -> int | None:
    """The smallest limit at which a fresh resolve serves it in `tier` (checked, not assumed)."""
    for limit in (rank, min(res.MAX_LIMIT, rank + 5)):
        if limit > res.MAX_LIMIT:
            return None
        got = rerun(replace(request, limit=limit))
        served = got.candidates if tier == "lexical" else got.semantic
        if any(c.name == canonical for c in served):
            return limit
    return None
