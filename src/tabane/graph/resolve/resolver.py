"""resolve / resolve_label: from a cue (any spelling) to the stored canonical spellings.

Tiers, in order (ARCHITECTURE.md §2): exact key of a canonical spelling (`exact`, 1.0) or of an
alias (`alias`, 1.0, the alias in `via`) — when any exists nothing else is scored (eclipsed);
else the key written with variant kanji (`variant`, 1.0, text/itaiji.py: 髙﨑 for 高崎), the
cue's reading or romanisation against the stored readings (`reading` / `romanisation`: 1.0, or
shorter/longer for a reading it begins: ふじの or Fujino-san for 藤野雪) and a cue of capitals
against the initials of multi-word spellings (`acronym`, 1.0: BSW for BlobStoreWriter),
containment (`containment`, shorter/longer) and Dice over informative bigrams (`fuzzy`, at or
above the dice floor); then, only when the best lexical score is under 0.5 (or there is none),
the `semantic` tier: cosine between the cue and the gloss vectors of its kind (concepts and labels
alike), floored, top `limit`. The tiers come back as separate lists and are never compared. The
top candidates carry a gloss; either spelling of a pair recorded as distinct carries a warning.
The result says what it did.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tabane.checks import text_problem
from tabane.errors import InvalidInput, Issue
from tabane.graph import gloss as gloss_mod
from tabane.graph.resolve import tiers as lex
from tabane.graph.resolve.cue import Cue, Scored, best_per_canonical
from tabane.graph.vocabulary import Kind, check_kind
from tabane.models.embedder import Embedder, Vectors
from tabane.storage.schema import Context, Job, VocabEntry, VocabVector
from tabane.text.reading import has_kanji
from tabane.text.spelling import char_grams

MAX_LIMIT = 100
DEFAULT_DICE_FLOOR = 0.3
SEMANTIC_BELOW = 0.5  # the semantic tier joins when the best lexical score is under this
GLOSSED = 5  # candidates (per tier) that carry a gloss
MAX_CUE = 300
GLOSS_JOB = "embed_glosses"


@dataclass(frozen=True)
class Candidate:
    name: str  # always the canonical spelling
    score: float  # lexical: 1.0, containment or Dice; semantic: cosine — never compare the two
    kind: str  # exact | alias | variant | reading | romanisation | acronym | containment | fuzzy
    # | semantic
    tier: str  # lexical | semantic
    rank: int  # 1-based within its tier
    via: str | None = None  # the stored spelling that matched, when not the canonical one
    gloss: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Floor:
    value: float | None
    source: str  # call | context | default | none


@dataclass(frozen=True)
class SemanticPlan:
    ran: bool
    reason: str | None  # lexical_strong, no_embedder, no_gloss_vectors, gloss_vectors_pending
    model: str | None
    floor: Floor
    pending_jobs: int = 0


@dataclass(frozen=True)
class Resolution:
    context: str
    cue: str
    kind: str
    key: str
    candidates: list[Candidate]  # the lexical tier, ranked
    semantic: list[Candidate]  # the semantic tier, ranked (never merged with the above)
    eclipsed: bool  # an exact/alias match exists: nothing else was scored
    dice_floor: Floor
    semantic_plan: SemanticPlan
    stop_grams: tuple[str, ...]  # the cue's over-common bigrams, left out of Dice
    total: int  # lexical candidates before the limit: exact when `total_exact`, else a lower
    # bound (≥ limit) — past the limit only what ranking the shown ones needed was scored
    limit: int
    total_exact: bool = True


@dataclass(frozen=True)
class Request:
    cue: str
    kind: Kind = "concept"
    limit: int = 10
    dice_floor: float | None = None
    semantic_floor: float | None = None

    def check(self) -> None:
        issues: list[Issue] = []
        if not isinstance(self.cue, str):
            issues.append(Issue("cue", "not a string"))
        elif not self.cue.strip():
            issues.append(Issue("cue", "empty"))
        elif len(self.cue) > MAX_CUE:
            issues.append(Issue("cue", f"{len(self.cue)} characters, at most {MAX_CUE}"))
        elif problem := text_problem(self.cue):  # NUL, a lone surrogate (an undecodable byte)
            issues.append(Issue("cue", problem))
        elif any(unicodedata.category(ch) == "Cc" for ch in self.cue):
            issues.append(Issue("cue", "contains control characters"))
        if isinstance(self.limit, bool) or not isinstance(self.limit, int):
            issues.append(Issue("limit", "not an integer"))
        elif not 1 <= self.limit <= MAX_LIMIT:
            issues.append(Issue("limit", f"{self.limit} not in 1..{MAX_LIMIT}"))
        for name, lo in (("dice_floor", 0.0), ("semantic_floor", -1.0)):
            value = getattr(self, name)
            if value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not lo <= value <= 1.0
            ):
                issues.append(Issue(name, f"{value!r} not in [{lo}, 1]"))
        if issues:
            raise InvalidInput("invalid resolve request", issues=issues)
        check_kind(self.kind)


def floors(ctx: Context, request: Request, default_semantic: float | None) -> tuple[Floor, Floor]:
    """The dice and semantic floors in effect and where each came from."""
    if request.dice_floor is not None:
        dice = Floor(float(request.dice_floor), "call")
    elif ctx.dice_floor is not None:
        dice = Floor(float(ctx.dice_floor), "context")
    else:
        dice = Floor(DEFAULT_DICE_FLOOR, "default")
    if request.semantic_floor is not None:
        sem = Floor(float(request.semantic_floor), "call")
    elif ctx.semantic_floor is not None:
        sem = Floor(float(ctx.semantic_floor), "context")
    elif default_semantic is not None:
        sem = Floor(default_semantic, "default")
    else:
        sem = Floor(None, "none")
    return dice, sem


@dataclass(frozen=True)
class Lexical:
    cue: Cue
    exact: list[Scored]
    ranked: list[Scored]  # best per canonical (all of them, or enough for the top `limit`)
    complete: bool = True  # `ranked` holds every candidate at or above the floor

    @property
    def eclipsed(self) -> bool:
        return bool(self.exact)

    @property
    def best(self) -> float:
        return self.ranked[0].score if self.ranked else 0.0


def lexical(
    session: Session,
    ctx: Context,
    kind: str,
    cue: str,
    dice_floor: float,
    limit: int,
    *,
    every: bool = False,
) -> Lexical:
    """The lexical tiers (the code resolve and its explain twin share). The first `limit` of
    `ranked` are exact; `every` ranks every candidate (explain needs ranks past the limit)."""
    looked = lex.look_up(session, ctx.id, kind, cue)
    if looked.exact:
        # Eclipsed: nothing else is scored, and no gram is reported over-common.
        key = looked.cue.key
        bare = Cue(cue, key, char_grams(key), frozenset(), {}, 0)
        return Lexical(bare, looked.exact, best_per_canonical(looked.exact, cue))
    pool = max(4 * limit, 4 * MAX_LIMIT)
    found = lex.lexical(
        session, ctx.id, kind, looked.cue, dice_floor, pool, None if every else limit
    )
    variant = lex.variants(session, ctx.id, kind, looked.cue.key)
    spelled = {s.canonical for s in [*variant, *found.scored]}
    # A reading yields to a match of the spellings themselves when the cue was written with
    # kanji (a homophone is another name: 高崎稔 stays fuzzy for 高崎実) or only begins it (the
    # lengths are in other units: 東京 stays containment in 東京都, not a prefix of tokyoto).
    yields = has_kanji(cue)
    read = [
        s
        for s in lex.read(session, ctx.id, kind, cue)
        if s.canonical not in spelled or (s.score == 1.0 and not yields)
    ]
    ranked = best_per_canonical([*variant, *read, *found.scored], cue)
    return Lexical(looked.cue, [], ranked, found.complete)


QueryVector = Callable[[], Vectors]


def semantic_blocker(
    session: Session, ctx: Context, kind: str, lexical_best: float, embedder: Embedder | None
) -> tuple[str | None, int]:
    """Why the semantic tier does not run (or None), and the gloss jobs still pending."""
    if lexical_best >= SEMANTIC_BELOW:
        return "lexical_strong", 0
    if embedder is None:
        return "no_embedder", 0
    pending = int(
        session.scalar(
            select(func.count())
            .select_from(Job)
            .where(
                Job.kind == GLOSS_JOB,
                Job.context_id == ctx.id,
                Job.state.in_(("queued", "running")),
            )
        )
        or 0
    )
    held = session.scalar(
        select(VocabVector.entry_id)
        .join(VocabEntry, VocabEntry.id == VocabVector.entry_id)
        .where(
            VocabVector.context_id == ctx.id,
            VocabVector.model == embedder.name,
            VocabEntry.kind == kind,
        )
        .limit(1)
    )
    if held is None:
        return ("gloss_vectors_pending" if pending else "no_gloss_vectors"), pending
    return None, pending


def _distance(embedder: Embedder, vector: Vectors) -> Any:
    return VocabVector.embedding.cast(Vector(embedder.dim)).cosine_distance(
        np.asarray(vector, dtype=np.float32)
    )


def semantic(
    session: Session,
    ctx: Context,
    embedder: Embedder,
    vector: Vectors,
    floor: float | None,
    top: int,
    kind: str = "concept",
) -> list[tuple[str, float]]:
    """(canonical name, cosine) of the best glosses, at or above `floor`, the best `top`."""
    d = _distance(embedder, vector)
    stmt = (
        select(VocabEntry.name, d.label("d"))
        .join(VocabEntry, VocabEntry.id == VocabVector.entry_id)
        .where(
            VocabVector.context_id == ctx.id,
            VocabVector.model == embedder.name,
            VocabVector.dim == embedder.dim,
            VocabEntry.kind == kind,
        )
        .order_by(d, VocabEntry.name)
        .limit(top * 4)
    )
    best: dict[str, float] = {}
    for name, dist in session.execute(stmt):
        best[name] = max(best.get(name, -2.0), 1.0 - float(dist))
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(n, c) for n, c in ranked if floor is None or c >= floor][:top]


def cosine_of(
    session: Session,
    ctx: Context,
    embedder: Embedder,
    vector: Vectors,
    name: str,
    kind: str = "concept",
) -> float | None:
    """The best gloss cosine of one canonical spelling (explain's evidence)."""
    d = _distance(embedder, vector)
    dist = session.scalar(
        select(func.min(d))
        .join(VocabEntry, VocabEntry.id == VocabVector.entry_id)
        .where(
            VocabVector.context_id == ctx.id,
            VocabVector.model == embedder.name,
            VocabEntry.kind == kind,
            VocabEntry.name == name,
        )
    )
    return None if dist is None else 1.0 - float(dist)


def _candidates(
    shown: list[Scored],
    sem_hits: list[tuple[str, float]],
    glossed: dict[str, str],
    distinct: dict[str, set[str]],
) -> tuple[list[Candidate], list[Candidate]]:
    """The served candidates of both tiers, ranked, glossed and warned of recorded distinctions."""

    def warnings(name: str) -> tuple[str, ...]:
        return tuple(f"distinct from {other}" for other in sorted(distinct.get(name, ())))

    lexical_out = [
        Candidate(
            name=s.canonical,
            score=s.score,
            kind=s.kind,
            tier="lexical",
            rank=i,
            via=s.name if s.name != s.canonical else None,
            gloss=glossed.get(s.canonical) if i <= GLOSSED else None,
            warnings=warnings(s.canonical),
        )
        for i, s in enumerate(shown, start=1)
    ]
    semantic_out = [
        Candidate(n, c, "semantic", "semantic", i, None, glossed.get(n), warnings(n))
        for i, (n, c) in enumerate(sem_hits, start=1)
    ]
    return lexical_out, semantic_out


def resolve(
    session: Session,
    ctx: Context,
    request: Request,
    *,
    embedder: Embedder | None,
    default_semantic_floor: float | None,
    query_vector: QueryVector | None = None,
) -> Resolution:
    """Resolve `request.cue` in `ctx` (see the module docstring)."""
    request.check()
    dice, sem_floor = floors(ctx, request, default_semantic_floor)
    assert dice.value is not None
    lexed = lexical(session, ctx, request.kind, request.cue, dice.value, request.limit)
    reason, pending = semantic_blocker(session, ctx, request.kind, lexed.best, embedder)
    sem_hits: list[tuple[str, float]] = []
    if reason is None:
        assert embedder is not None
        vector = query_vector() if query_vector else embedder.embed_query(request.cue)
        sem_hits = semantic(
            session, ctx, embedder, vector, sem_floor.value, request.limit, request.kind
        )
    plan = SemanticPlan(
        reason is None, reason, embedder.name if embedder else None, sem_floor, pending
    )
    shown = lexed.ranked[: request.limit]
    names = {s.canonical for s in shown[:GLOSSED]} | {n for n, _ in sem_hits}
    distinct: dict[str, set[str]] = {}  # pairs recorded as distinct: concepts only
    if request.kind == "label":
        glossed = gloss_mod.annotate_labels(session, ctx.id, names)
    else:
        glossed, distinct = gloss_mod.annotate(
            session, ctx.id, names, {s.canonical for s in shown} | {n for n, _ in sem_hits}
        )
    lexical_out, semantic_out = _candidates(shown, sem_hits, glossed, distinct)
    return Resolution(
        context=ctx.name,
        cue=request.cue,
        kind=request.kind,
        key=lexed.cue.key,
        candidates=lexical_out,
        semantic=semantic_out,
        eclipsed=lexed.eclipsed,
        dice_floor=dice,
        semantic_plan=plan,
        stop_grams=tuple(sorted(lexed.cue.stop)),
        total=len(lexed.ranked),
        limit=request.limit,
        total_exact=lexed.complete,
    )
