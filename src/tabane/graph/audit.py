"""vocabulary/audit: pairs of spellings that may be one referent split in two — candidates, not
verdicts.

Lexical twins: different canonical spellings of one kind whose keys reach Dice ≥ 0.6 over
informative bigrams (resolve's over-common rule, applied to the vocabulary's own document
frequencies). Semantic twins: concepts (or labels) whose gloss vectors reach the semantic floor.
A pair recorded as distinct (`別物` / `distinct_from`) is kept but flagged `distinct`, so a
reviewer sees why it stays split. Cost is bounded at 100k concepts: pairs are counted in
PostgreSQL over the rarest bigrams first until PAIR_WORK pair-postings are spent, and at most
SEMANTIC_VECTORS gloss vectors of a kind are compared; either bound sets `capped`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from tabane.graph import gloss as gloss_mod
from tabane.graph.resolve.tiers import STOP_MIN, STOP_SHARE
from tabane.models.embedder import Embedder
from tabane.storage.schema import Context, VocabEntry, VocabGram, VocabVector
from tabane.text.spelling import char_grams

LEXICAL_TWIN = 0.6  # Dice at which two spellings are reported (Taguru's audit default)
PAIR_WORK = 2_000_000  # Σ df·(df−1)/2 over the bigrams whose pairs are counted
SEMANTIC_VECTORS = 4_000  # gloss vectors compared all-pairs (a 4k×4k product: ~0.2 s)


@dataclass(frozen=True)
class Twin:
    a: str
    b: str
    kind: str  # concept | label
    tier: str  # lexical | semantic
    score: float  # Dice (lexical) or cosine (semantic); never compared across tiers
    distinct: bool  # recorded as different referents


@dataclass(frozen=True)
class Audit:
    context: str
    lexical: list[Twin]
    semantic: list[Twin]
    lexical_floor: float
    semantic_floor: float | None
    semantic_reason: str | None  # why no semantic twins were looked for
    capped: bool
    limit: int


def _informative_grams(df: dict[str, int], threshold: int) -> tuple[list[str], bool]:
    """The grams shared by few enough entries to pair within PAIR_WORK; capped if any were left."""
    informative = sorted((n, gram) for gram, n in df.items() if 1 < n <= threshold)
    chosen: list[str] = []
    work = 0
    capped = any(n > threshold for n in df.values())
    for n, gram in informative:
        work += n * (n - 1) // 2
        if work > PAIR_WORK:
            capped = True
            break
        chosen.append(gram)
    return chosen, capped


def _sharing_pairs(
    session: Session, ctx: Context, kind: str, chosen: list[str]
) -> list[tuple[int, int]]:
    """Entry id pairs that share at least one chosen gram."""
    if not chosen:
        return []
    a, b = aliased(VocabGram), aliased(VocabGram)
    stmt = (
        select(a.entry_id, b.entry_id)
        .join(b, (b.context_id == a.context_id) & (b.kind == a.kind) & (b.gram == a.gram))
        .where(
            a.context_id == ctx.id,
            a.kind == kind,
            a.gram.in_(chosen),
            a.entry_id < b.entry_id,
        )
        .group_by(a.entry_id, b.entry_id)
    )
    return [(x, y) for x, y in session.execute(stmt)]


def lexical_twins(
    session: Session, ctx: Context, kind: str, floor: float = LEXICAL_TWIN
) -> tuple[list[Twin], bool]:
    g = VocabGram
    where = (g.context_id == ctx.id, g.kind == kind)
    df: dict[str, int] = {
        gram: int(n)
        for gram, n in session.execute(select(g.gram, func.count()).where(*where).group_by(g.gram))
    }
    entries = {
        r.id: (r.alias_of or r.name, r.key)
        for r in session.execute(
            select(VocabEntry.id, VocabEntry.name, VocabEntry.alias_of, VocabEntry.key).where(
                VocabEntry.context_id == ctx.id, VocabEntry.kind == kind
            )
        )
    }
    threshold = max(STOP_MIN, len(entries) // STOP_SHARE)
    chosen, capped = _informative_grams(df, threshold)
    stop = frozenset(gram for gram, n in df.items() if n > threshold)
    pairs = _sharing_pairs(session, ctx, kind, chosen)
    distinct = gloss_mod.distinct_pairs(session, ctx.id) if kind == "concept" else set()
    best: dict[tuple[str, str], float] = {}
    for x, y in pairs:
        (ca, ka), (cb, kb) = entries[x], entries[y]
        if ca == cb:
            continue  # an alias and its canonical, or one spelling under two scope sets
        ga, gb = char_grams(ka) - stop, char_grams(kb) - stop
        if not ga or not gb:
            continue
        dice = 2 * len(ga & gb) / (len(ga) + len(gb))
        if dice >= floor:
            pair = (min(ca, cb), max(ca, cb))
            best[pair] = max(best.get(pair, 0.0), dice)
    twins = [
        Twin(p[0], p[1], kind, "lexical", s, frozenset(p) in distinct) for p, s in best.items()
    ]
    return sorted(twins, key=lambda t: (-t.score, t.a, t.b)), capped


def semantic_twins(
    session: Session,
    ctx: Context,
    embedder: Embedder,
    floor: float | None,
    limit: int,
    kind: str = "concept",
) -> tuple[list[Twin], bool]:
    rows = list(
        session.execute(
            select(VocabEntry.name, VocabVector.embedding)
            .join(VocabEntry, VocabEntry.id == VocabVector.entry_id)
            .where(
                VocabVector.context_id == ctx.id,
                VocabVector.model == embedder.name,
                VocabVector.kind == kind,
            )
            .order_by(VocabVector.entry_id)
            .limit(SEMANTIC_VECTORS + 1)
        )
    )
    capped = len(rows) > SEMANTIC_VECTORS
    rows = rows[:SEMANTIC_VECTORS]
    if len(rows) < 2:
        return [], capped
    names = [r[0] for r in rows]
    mat = np.asarray([np.asarray(r[1], dtype=np.float32) for r in rows])
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    sims = mat @ mat.T
    iu, ju = np.triu_indices(len(rows), k=1)
    vals = sims[iu, ju]
    keep = np.flatnonzero(vals >= floor) if floor is not None else np.arange(len(vals))
    # Candidates strongest first; enough of them to fill `limit` after de-duplication.
    order = keep[np.argsort(-vals[keep], kind="stable")][: limit * 4]
    distinct = gloss_mod.distinct_pairs(session, ctx.id) if kind == "concept" else set()
    best: dict[tuple[str, str], float] = {}
    for idx in order:
        a, b = names[iu[idx]], names[ju[idx]]
        if a == b:
            continue
        pair = (min(a, b), max(a, b))
        best[pair] = max(best.get(pair, -2.0), float(vals[idx]))
    twins = [
        Twin(p[0], p[1], kind, "semantic", s, frozenset(p) in distinct) for p, s in best.items()
    ]
    return sorted(twins, key=lambda t: (-t.score, t.a, t.b))[:limit], capped
