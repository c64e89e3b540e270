"""resolve calibrate: a semantic floor proposed from a context's own concepts.

The semantic floor is a property of the embedding model (and of a vocabulary's language), so it
is measured, not guessed. Each probe is one concept with facts: its name, embedded as a query
like a resolve cue (short, as real cues are), against every concept gloss of the context. The
concept's own gloss cosine goes to the upper band; the best cosine of a concept it has no edge
with (its neighbours' glosses quote its name) to the lower band: what a cue about something the
context does not hold would meet. Separated bands propose their midpoint. Overlapping ones — the
usual case for the shipped model — propose the upper band's KEEP quantile: a floor that trims
noise while keeping nearly every match, with the share of the lower band it still admits.
Measured on the graph dev sets (bench/resolve_floor.py), paraphrase cues score below a name's own
gloss, so take the proposal as an upper bound and confirm it with `resolve/explain`.
Fact-shaped probes (a concept's facts without its name) were tried first: they share the gloss's
text, and proposed ~0.7 where the dev sets' paraphrases need 0.15. Deterministic: probes in
entry order, at most MAX_PROBES.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.graph import gloss as gloss_mod
from tabane.models.embedder import Embedder, checked
from tabane.storage.schema import Context, VocabEntry, VocabVector

MAX_PROBES = 300  # concepts probed (one query embedding each)
MIN_PROBES = 5  # fewer cannot make a band
KEEP = 0.05  # on overlap the floor is the upper band's 5th percentile: 95% of matches kept


@dataclass(frozen=True)
class Band:
    count: int
    min: float
    p10: float
    median: float
    p90: float
    max: float


@dataclass(frozen=True)
class Probe:
    concept: str  # the cue: its name
    cosine: float  # its own gloss
    best_other: str | None
    other_cosine: float | None


@dataclass(frozen=True)
class Calibration:
    context: str
    model: str | None
    verdict: str  # separated | overlap | impossible
    reason: str | None  # impossible: no_embedder, no_gloss_vectors, too_few_probes
    suggested_floor: float | None
    gap: float | None  # min(upper) − max(lower): negative when the bands overlap
    kept: float | None  # share of the upper band at or above the suggested floor
    admitted: float | None  # share of the lower band at or above it
    upper: Band | None
    lower: Band | None
    probes: int
    examples: tuple[Probe, ...]  # the weakest probes first (where a floor would bite)


def _band(values: np.ndarray) -> Band:
    q = np.quantile(values, [0.1, 0.5, 0.9])
    return Band(
        len(values), float(values.min()), float(q[0]), float(q[1]), float(q[2]), float(values.max())
    )


def impossible(ctx: Context, model: str | None, reason: str, probes: int = 0) -> Calibration:
    return Calibration(
        ctx.name, model, "impossible", reason, None, None, None, None, None, None, probes, ()
    )


def _glosses(session: Session, ctx: Context, embedder: Embedder) -> tuple[list[str], np.ndarray]:
    rows = session.execute(
        select(VocabEntry.name, VocabVector.embedding)
        .join(VocabEntry, VocabEntry.id == VocabVector.entry_id)
        .where(
            VocabVector.context_id == ctx.id,
            VocabVector.model == embedder.name,
            VocabVector.dim == embedder.dim,
            VocabVector.kind == "concept",
        )
        .order_by(VocabVector.entry_id)
    ).all()
    names = [r[0] for r in rows]
    if not rows:
        return names, np.zeros((0, embedder.dim), dtype=np.float32)
    return names, checked([r[1] for r in rows], len(rows), embedder.dim, "gloss_embeddings")


def propose(values_up: np.ndarray, values_low: np.ndarray) -> tuple[str, float, float]:
    """(verdict, floor, gap) from the two bands (see the module docstring)."""
    gap = float(values_up.min() - values_low.max())
    if gap > 0:
        return "separated", float(values_low.max() + gap / 2), gap
    return "overlap", float(np.quantile(values_up, KEEP, method="lower")), gap


def _probes(
    session: Session, ctx: Context, names: list[str], index: dict[str, int]
) -> list[tuple[str, set[int]]]:
    """Concepts with net facts (up to MAX_PROBES), each with the glosses its facts touch."""
    touching: dict[str, list[gloss_mod.Fact]] = defaultdict(list)
    for f in gloss_mod.net_facts(session, ctx.id):
        touching[f.subject].append(f)
        if f.object != f.subject:
            touching[f.object].append(f)
    probes: list[tuple[str, set[int]]] = []
    for name in names:
        mine = touching.get(name, [])
        if not mine:
            continue
        near = {index[x] for f in mine for x in (f.subject, f.object) if x in index}
        probes.append((name, near))
        if len(probes) == MAX_PROBES:
            break
    return probes


def _bands(
    sims: np.ndarray, probes: list[tuple[str, set[int]]], names: list[str], index: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, list[Probe]]:
    """Upper band (each probe to its own gloss), lower band (to the nearest unrelated gloss)."""
    up, low, rows = [], [], []
    for i, (name, near) in enumerate(probes):
        own = index[name]
        up.append(float(sims[i, own]))
        masked = sims[i].copy()
        masked[list(near | {own})] = -np.inf
        j = int(np.argmax(masked))
        other = float(masked[j]) if np.isfinite(masked[j]) else None
        if other is not None:
            low.append(other)
        rows.append(Probe(name, up[-1], names[j] if other is not None else None, other))
    return np.asarray(up), np.asarray(low), rows


def calibrate(session: Session, ctx: Context, embedder: Embedder | None) -> Calibration:
    if embedder is None:
        return impossible(ctx, None, "no_embedder")
    names, mat = _glosses(session, ctx, embedder)
    if not names:
        return impossible(ctx, embedder.name, "no_gloss_vectors")
    index = {n: i for i, n in enumerate(names)}
    probes = _probes(session, ctx, names, index)
    if len(probes) < MIN_PROBES:
        return impossible(ctx, embedder.name, "too_few_probes", len(probes))
    queries = checked(
        np.stack([np.asarray(embedder.embed_query(name)).reshape(-1) for name, _ in probes]),
        len(probes),
        embedder.dim,
        "query_embeddings",
    )
    upper, lower, rows = _bands(queries @ mat.T, probes, names, index)
    if not len(lower):
        return impossible(ctx, embedder.name, "too_few_probes", len(probes))
    verdict, exact, gap = propose(upper, lower)
    floor = math.floor(exact * 1000) / 1000  # shown to 3 decimals, never above what it keeps
    return Calibration(
        context=ctx.name,
        model=embedder.name,
        verdict=verdict,
        reason=None,
        suggested_floor=floor,
        gap=gap,
        kept=float((upper >= floor).mean()),
        admitted=float((lower >= floor).mean()),
        upper=_band(upper),
        lower=_band(lower),
        probes=len(probes),
        examples=tuple(sorted(rows, key=lambda p: (p.cosine, p.concept))[:10]),
    )
