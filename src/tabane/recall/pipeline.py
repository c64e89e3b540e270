"""recall's kernel inside one read transaction: gather candidates with the one statement, turn
them into evidence, order and budget them, and say what happened (`Outcome`, lanes, timings).

The service (service/recall.py) wraps it: preset, gate, the question's embedding, rendering, the
persisted trace and the claims' access counters. Explain (explain.py) calls `run` as well."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from tabane.models.reranker import Reranker
from tabane.recall import current, order
from tabane.recall.evidence import Candidate, evidence
from tabane.recall.kernel import Gathered, TurnWindow, gather
from tabane.recall.plan import Tunables
from tabane.search.search import QueryVector
from tabane.storage.schema import Context
from tabane.storage.store import Beside


@dataclass(frozen=True)
class Outcome:
    gathered: Gathered
    placed: list[order.Placed]
    found: dict[str, Candidate]
    timings_ms: dict[str, float]
    used_tokens: int
    notes: tuple[str, ...] = ()  # what ordering could not do (a reranker that failed)


def run(
    session: Session,
    question: str,
    contexts: Sequence[Context],
    floors: Sequence[float | None],
    qv: QueryVector,
    window: TurnWindow | None,
    *,
    reranker: Reranker | None,
    budget: int,
    chars_per_token: float,
    plan: str = "maximal",
    tunables: Tunables | None = None,
    beside: Beside | None = None,
) -> Outcome:
    t = tunables or Tunables()
    started = time.perf_counter()
    gathered = gather(
        session, question, contexts, floors, qv, window, plan=plan, tunables=t, beside=beside
    )
    statement_ms = (time.perf_counter() - started) * 1000
    items = [
        evidence(c, gathered.scopes, window.name if window else None) for c in gathered.candidates
    ]
    started = time.perf_counter()
    supersede = (t.supersede, t.supersede_span) if t.supersede_span > 0 else None
    model = qv.model if qv.vector is not None else None
    cosine = supersede is not None and t.supersede <= 1.0  # the cosine rule needs vectors
    vecs = current.vectors(session, items[: t.candidates], model) if cosine else {}
    notes: list[str] = []
    placed = order.arrange(
        question,
        items,
        reranker,
        max_items=t.max_items,
        budget=budget,
        chars_per_token=chars_per_token,
        voices=t.voices,
        facts_once=t.facts_once,
        vectors=vecs,
        supersede=supersede,
        summaries_after=t.summaries_after,
        now_span=t.now_span,
        now_always=t.now_always,
        notes=notes,
    )
    order_ms = (time.perf_counter() - started) * 1000
    used = sum(p.item.tokens for p in placed if p.outcome == "served")
    return Outcome(
        gathered,
        placed,
        {c.key: c for c in gathered.candidates},
        {"statement": round(statement_ms, 3), "order": round(order_ms, 3)},
        used,
        tuple(notes),
    )
