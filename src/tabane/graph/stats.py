"""A context's graph at a glance, for choosing a context (`GET /contexts`): how many concepts,
labels and live associations the caller can see, the top concepts by degree and the most used
labels. One statement over the association rows (no net weights are needed to count).

Exact, and so proportional to the context's association rows (2.5 s at 1M edges on 2 cores:
bench/activate_latency.py times it). So the answer is kept per process, keyed on the context, the
reader's read set and the context's write counter (`context_usage.writes`, bumped in the same
transaction as every write that changes the graph): a repeated `GET /contexts` costs one lookup
until the next write."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, literal, select, union_all
from sqlalchemy.orm import Session

from tabane.storage.schema import Association, ContextUsage, VocabEntry

TOP = 5


@dataclass(frozen=True)
class GraphStats:
    concepts: int
    labels: int
    associations: int  # distinct live edges (at least one claim behind them)
    top_concepts: tuple[str, ...]  # by degree (live edges touching it), then spelling
    label_samples: tuple[str, ...]  # by use (live edges carrying it), then spelling


_CACHE: OrderedDict[tuple[int, str, int, int], GraphStats] = OrderedDict()
_CACHE_SIZE = 256
_LOCK = threading.Lock()


def graph_stats(session: Session, context_id: int, top: int = TOP) -> GraphStats:
    """The stats, from the cache when nothing was written since they were computed."""
    reader = session.scalar(select(func.current_setting("tabane.read_scopes", True))) or ""
    writes = session.scalar(
        select(ContextUsage.writes).where(ContextUsage.context_id == context_id)
    )
    key = (context_id, reader, int(writes or 0), top)
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    stats = compute(session, context_id, top)
    with _LOCK:
        _CACHE[key] = stats
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return stats


def compute(session: Session, context_id: int, top: int = TOP) -> GraphStats:
    """The stats, computed exactly over the rows the caller can see."""
    v = VocabEntry
    vocab: dict[str, int] = {
        kind: int(n)
        for kind, n in session.execute(
            select(v.kind, func.count(func.distinct(v.name)))
            .where(v.context_id == context_id, v.alias_of.is_(None))
            .group_by(v.kind)
        )
    }
    a = Association
    edges = (
        select(a.perspective, a.subject, a.label, a.object)
        .where(a.context_id == context_id, a.claims > 0)
        .group_by(a.perspective, a.subject, a.label, a.object)
        .subquery("edges")
    )
    live = select(edges.c.subject, edges.c.label, edges.c.object).cte("live")
    count = select(literal("n").label("k"), literal("").label("name"), func.count().label("c"))
    count = count.select_from(live)
    ends = union_all(
        select(live.c.subject.label("name")),
        select(live.c.object.label("name")).where(live.c.object != live.c.subject),
    ).subquery("ends")
    degree = (
        select(literal("c").label("k"), ends.c.name, func.count().label("c"))
        .group_by(ends.c.name)
        .order_by(func.count().desc(), ends.c.name)
        .limit(top)
    )
    uses = (
        select(literal("l").label("k"), live.c.label.label("name"), func.count().label("c"))
        .group_by(live.c.label)
        .order_by(func.count().desc(), live.c.label)
        .limit(top)
    )
    rows = session.execute(
        union_all(count, degree.subquery().select(), uses.subquery().select())
    ).all()
    associations = next((int(r.c) for r in rows if r.k == "n"), 0)
    return GraphStats(
        concepts=int(vocab.get("concept", 0)),
        labels=int(vocab.get("label", 0)),
        associations=associations,
        top_concepts=_ranked(rows, "c"),
        label_samples=_ranked(rows, "l"),
    )


def _ranked(rows: Sequence[Any], kind: str) -> tuple[str, ...]:
    return tuple(
        r.name for r in sorted((r for r in rows if r.k == kind), key=lambda r: (-r.c, r.name))
    )
