"""Run recall's statement: choose the shape (the plan's lanes that can run), bind the question's
values and what is read first (BM25 hits, named sources, walk seeds), execute once, and turn the
rows into candidates, those of a directly named source marked direct.

`gather` is shared by recall and its explain twin, so both see the same candidates."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.recall.evidence import Candidate, candidate
from tabane.recall.navigation import Navigation, navigation
from tabane.recall.plan import PLANS, Tunables
from tabane.recall.result import LaneReport
from tabane.recall.seeds import acronyms_in, seeds_statement, variant_prefixes
from tabane.recall.statement import LANES, VECTOR_LANES, Shape, build_recall_statement
from tabane.recall.titles import title_lane
from tabane.search import bm25, vectors
from tabane.search.catalog import catalog
from tabane.search.search import QueryVector
from tabane.storage.schema import Context, Scope
from tabane.storage.store import Beside, configure
from tabane.text.analyze import index_terms
from tabane.text.spelling import spelling_key
from tabane.text.tokenize import title_key, tokenize

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class TurnWindow:
    session_pk: int
    name: str
    turns: int
    hours: float | None


@dataclass(frozen=True)
class Gathered:
    candidates: list[Candidate]
    lanes: dict[str, LaneReport]
    seeds: tuple[str, ...]
    scopes: dict[str, str]  # scope name → description, for every candidate's scopes
    notes: tuple[str, ...] = ()  # what was cut before the statement (the walk's seeds)
    navigation: Navigation | None = None  # the question read as navigation (navigation.py)


def shape_for(
    plan: str, qv: QueryVector, window: TurnWindow | None, *, asks_where: bool = False
) -> tuple[Shape, dict[str, LaneReport]]:
    """The plan's lanes that can run, and for the others why not (`asks_where`: the question
    reads as navigation, which the `navigation` lane needs)."""
    skipped: dict[str, LaneReport] = {}
    lanes: list[str] = []
    for lane in LANES:
        if lane not in PLANS[plan]:
            skipped[lane] = LaneReport(False, reason="not_in_plan")
        elif lane in VECTOR_LANES and qv.vector is None:
            skipped[lane] = LaneReport(False, reason=qv.reason or "no_embedder")
        elif lane == "turns" and window is None:
            skipped[lane] = LaneReport(False, reason="no_session")
        elif lane == "navigation" and not asks_where:
            skipped[lane] = LaneReport(False, reason="not_navigation")
        else:
            lanes.append(lane)
    uses_vector = bool(VECTOR_LANES & set(lanes)) or (
        bool({"walk", "turns"} & set(lanes)) and qv.vector is not None
    )
    return Shape(tuple(lanes), qv.dim if uses_vector else None), skipped


def bind(
    question: str,
    contexts: Sequence[Context],
    floors: Sequence[float | None],
    qv: QueryVector,
    window: TurnWindow | None,
    t: Tunables,
    now: datetime | None = None,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "ctx_ids": [c.id for c in contexts],
        "ctx_floors": list(floors),
        "pool": t.pool,
        "candidates": t.candidates,
        "rrf_k": t.rrf_k,
        "terms": bm25.unique_terms(tokenize(question)),
        "question": question,  # read in Python before the statement (title names)
        "question_key": title_key(question),  # the areas lane's
        "question_spelling": spelling_key(question),
        "question_acronyms": acronyms_in(question),  # seeds by initials (recall/seeds.py)
        "question_variants": variant_prefixes(question),  # by a name in variant kanji
        "title_lead": t.title_lead,
        "walk_pool": t.walk_pool,
        "walk_hub": t.walk_hub,
        "walk_seeds": t.walk_seeds,
        "gloss_seeds": t.gloss_seeds,
        "catalog_limit": t.catalog_limit,
        "title_pks": [],  # the named sources (bind_titles), read by the catalog lane as well
        "title_direct": [],
        "area_limit": t.area_limit,
        # the navigation lane's documents (bind_navigation)
        "nav_ctx": [],
        "nav_ids": [],
        "nav_ranks": [],
        "nav_scores": [],
        "derived_pool": t.derived_pool,
        "replies": t.replies,
        "turn_scale": t.turn_scale,
        # a missing lane only where lanes average (share: the values shares reorder)
        "impute": t.impute and t.fusion in ("per_kind", "share"),
        "share_fusion": t.fusion == "share",  # paragraphs placed by score shares (shares.py)
        "exchange": t.replies and t.exchange,  # a question is scored as served: with its reply
        "asking_notes": t.asking_notes,
        "turns_since": EPOCH,  # a turn's reply or question is read only inside the window
    }
    if qv.vector is not None:
        params["qvec"] = np.asarray(qv.vector, dtype=np.float32)
        params["model"] = qv.model
    if window is not None:
        since = EPOCH
        if window.hours is not None:
            since = (now or datetime.now(UTC)) - timedelta(hours=window.hours)
        params.update(
            session_pk=window.session_pk,
            turns=window.turns,
            turns_since=since,
            recent_turns=t.recent_turns,
            turn_hits=t.turn_hits,
        )
    return params


def bind_before(
    session: Session,
    shape: Shape,
    contexts: Sequence[Context],
    params: dict[str, Any],
    with_vector: bool,
    t: Tunables,
    beside: Beside | None = None,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the statement reads from bound arrays, computed first: the BM25 lane's hits, the
    sources the question names (titles.py) and the walk's seeds. Adds them to `params`; returns
    the seeds' names, sorted, and a note for each context whose seeds were cut (seeds.py), for
    the trace. With `beside`, the BM25 lane is scored on a second connection while this one
    finds the seeds and then the named sources (the two take about as long as the BM25 read)."""
    question = str(params["question"])
    terms = bm25.unique_terms(index_terms(question))  # BM25's analysis; turns match words
    lexical: Future[dict[str, list[Any]]] | None = None
    if "bm25" in shape.lanes:
        if beside is not None:
            lexical = beside.submit(lambda s: bind_lexical(s, contexts, terms, t.bm25_pool))
        else:
            params.update(bind_lexical(session, contexts, terms, t.bm25_pool))
    names: tuple[str, ...] = ()
    cut: list[str] = []
    params.update(vector_pool=t.vector_pool, pv_ctx=[], pv_ids=[], pv_d=[])  # bind_vectors
    if "vector" in shape.lanes and with_vector and shape.dim is not None:
        params.update(bind_vectors(session, contexts, params, shape.dim, t.vector_pool))
    if "walk" in shape.lanes:
        found = seeds_statement(shape.dim if with_vector else None)
        rows = session.execute(found, params).all()
        seeds = sorted((int(c), str(n), float(s)) for c, n, s, _ in rows)
        named = {c.id: c.name for c in contexts}
        for ctx_id, total in sorted({int(c): int(f) for c, _, _, f in rows}.items()):
            if total > t.walk_seeds:
                cut.append(
                    f"walk seeds in {named[ctx_id]}: {t.walk_seeds} of {total} "
                    "(the strongest, then the longest names)"
                )
        params.update(
            seed_ctx=[c for c, _, _ in seeds],
            seed_names=[n for _, n, _ in seeds],
            seed_strengths=[s for _, _, s in seeds],
        )
        names = tuple(sorted({n for _, n, _ in seeds}))
    if "title" in shape.lanes:
        params.update(bind_titles(session, contexts, question, t.names))
    if lexical is not None:
        params.update(lexical.result())
    return names, tuple(cut)


def bind_titles(
    session: Session, contexts: Sequence[Context], question: str, names: str
) -> dict[str, list[Any]]:
    """The sources the question names (titles.py `title_lane`), bound as the arrays
    `lanes.title_lane` unnests."""
    hits = title_lane(session, [c.id for c in contexts], question, names)
    return {"title_pks": [h.source_pk for h in hits], "title_direct": [h.direct for h in hits]}


def bind_navigation(
    session: Session, contexts: Sequence[Context], subject: str, limit: int
) -> dict[str, list[Any]]:
    """The navigation lane's documents: the catalog search's fused order for the distilled
    subject (`search_catalog`'s own ranking, so the lane and the tool agree), its first `limit`
    sources bound as the arrays `catalog.navigation_lane` unnests."""
    ranked = catalog.rank(session, contexts, subject)
    pks = ranked.order[:limit]
    return {
        "nav_ctx": [ranked.found[pk][0].id for pk in pks],
        "nav_ids": pks,
        "nav_ranks": list(range(1, len(pks) + 1)),
        "nav_scores": [ranked.scored[pk] for pk in pks],
    }


def bind_vectors(
    session: Session, contexts: Sequence[Context], params: dict[str, Any], dim: int, pool: int
) -> dict[str, list[Any]]:
    """The vector lane's paragraphs per context: search's nearest read (`vectors.nearest`,
    twice the pool of vectors, at or above the context's floor), bound as the arrays
    `lanes.vector_lane` unnests. Read here rather than inside the statement, where the context
    came from an array and PostgreSQL planned every context alike: from a pool of 60 it read a
    large context's every vector instead of its HNSW index (decision 0047)."""
    out: dict[str, list[Any]] = {"pv_ctx": [], "pv_ids": [], "pv_d": []}
    for ctx, floor in zip(contexts, params["ctx_floors"], strict=True):
        near = vectors.nearest(
            session, ctx.id, params["qvec"], params["model"], dim, 2 * pool, floor
        )
        for pid, (sim, _) in near.items():
            out["pv_ctx"].append(ctx.id)
            out["pv_ids"].append(pid)
            out["pv_d"].append(1.0 - sim)
    return out


def bind_lexical(
    session: Session, contexts: Sequence[Context], terms: Sequence[str], pool: int
) -> dict[str, list[Any]]:
    """The BM25 lane's hits per context, scored by search/bm25.py (the search's own lane) and
    bound as the arrays `lanes.bm25_lane` unnests."""
    out: dict[str, list[Any]] = {
        "bm25_ctx": [],
        "bm25_ids": [],
        "bm25_ranks": [],
        "bm25_scores": [],
    }
    for ctx in contexts:
        _, hits = bm25.ranked(session, ctx.id, terms, pool=pool)
        for hit in hits:
            out["bm25_ctx"].append(ctx.id)
            out["bm25_ids"].append(hit.paragraph_id)
            out["bm25_ranks"].append(hit.rank)
            out["bm25_scores"].append(hit.score)
    return out


# The statement's joins are written in the order they should run; letting the planner reorder
# up to 8 relations at a time spent ~1 ms more planning each recall (4.7 against 3.6 ms over
# 40 questions at 100k paragraphs) for the same execution time (19.0 against 19.1 ms).
COLLAPSE_LIMIT = 4


# Recall's transaction settings: those of an HNSW read (custom plans, iterative scans), room
# to sort and hash, and the joins in the order written. The service opens recall's transaction
# with them (one round trip); `gather` sets what is not yet in force.
SETTINGS: dict[str, str] = {
    **vectors.NEAREST,
    "work_mem": "64MB",
    "join_collapse_limit": str(COLLAPSE_LIMIT),
    "from_collapse_limit": str(COLLAPSE_LIMIT),
}


def _settings(session: Session) -> None:
    configure(session, SETTINGS)


# Recall's statement is planned once per connection and shape: psycopg prepares a statement on
# its fifth run on a connection, and from then on the statement runs under PostgreSQL's generic
# plan instead of planning ~37 kB of SQL for every question (13 ms of server CPU at 100k
# paragraphs). Every LIMIT is written into the SQL (`lanes.limit`), so the generic plan reads the
# HNSW indexes as the custom ones do and finds the same rows (docs/decisions/0048). The other
# reads of the transaction keep custom plans (their nearest-first LIMITs are bound values).
GENERIC = {"plan_cache_mode": "force_generic_plan"}
CUSTOM = {"plan_cache_mode": vectors.NEAREST["plan_cache_mode"]}


def run_statement(session: Session, shape: Shape, params: dict[str, Any]) -> list[Any]:
    """Recall's statement for `shape`, executed under its generic plan once prepared."""
    configure(session, GENERIC)
    rows = list(session.execute(build_recall_statement(shape), params).all())
    configure(session, CUSTOM)
    return rows


def gather(
    session: Session,
    question: str,
    contexts: Sequence[Context],
    floors: Sequence[float | None],
    qv: QueryVector,
    window: TurnWindow | None,
    *,
    plan: str = "maximal",
    tunables: Tunables | None = None,
    beside: Beside | None = None,
) -> Gathered:
    t = tunables or Tunables()
    asked = navigation(question) if "navigation" in PLANS[plan] else None
    shape, reports = shape_for(plan, qv, window, asks_where=asked is not None)
    params = bind(question, contexts, floors, qv, window, t)
    _settings(session)
    if asked is not None:
        params.update(bind_navigation(session, contexts, asked.subject, t.navigation_limit))
    seeds, notes = bind_before(session, shape, contexts, params, qv.vector is not None, t, beside)
    # the paragraph lanes a paragraph's ranks are averaged over: a BM25 lane that found nothing
    # (no term of the question in any addressed context) has no rank to give or withhold
    ran = {"vector", "bm25"} & set(shape.lanes)
    if "bm25" in ran and not params.get("bm25_ids"):
        ran.discard("bm25")
    params["paragraph_lanes"] = float(len(ran) or 1) if t.fusion != "sum" else 1.0
    rows = run_statement(session, shape, params)
    # the rows each lane found and the items fusion ranked, before it kept `candidates`
    counts: dict[str, int] = dict(rows[0].lane_rows or {}) if rows else {}
    ranked = int(rows[0].fused_total) if rows else 0
    # BM25 scored on another snapshot: a paragraph a concurrent write removed since is gone
    live = [r for r in rows if r.kind != "paragraph" or r.paragraph_text is not None]
    if len(live) < len(rows):
        notes = (*notes, f"{len(rows) - len(live)} paragraph(s) removed by a write meanwhile")
    rows = live
    names = {c.id: c.name for c in contexts}
    found = _once([candidate(row, names) for row in rows])
    for lane in shape.lanes:
        reports[lane] = LaneReport(True, hits=int(counts.get(lane, 0)))
    if ranked > t.candidates:
        notes = (
            *notes,
            f"fusion ranked {ranked} items; the best {t.candidates} were kept (candidates), "
            f"{ranked - t.candidates} were not ordered",
        )
    kept = apply_titles(found, params.get("title_pks", []), params.get("title_direct", []))
    scope_names = sorted({s for c in kept for s in (c.row.scopes or ())})
    scopes = {
        name: desc
        for name, desc in session.execute(
            select(Scope.name, Scope.description).where(Scope.name.in_(scope_names))
        )
    }
    lanes = {lane: reports[lane] for lane in LANES}
    return Gathered(kept, lanes, seeds, scopes, notes, asked)


def _once(found: list[Candidate]) -> list[Candidate]:
    """Each item once, at its best place: a reply reached through the question before it keeps
    that place, and its own later row is dropped."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for c in found:
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out


def apply_titles(
    found: list[Candidate], named: Sequence[int], direct: Sequence[bool]
) -> list[Candidate]:
    """Every paragraph of a source named on its own (titles.py: not only inside a longer named
    title) is direct, whichever lane found it; every other candidate is not."""
    first = {pk for pk, d in zip(named, direct, strict=True) if d}
    out: list[Candidate] = []
    for c in found:
        is_direct = c.kind == "paragraph" and c.source_pk in first
        if is_direct != c.direct:
            c = Candidate(**{**c.__dict__, "direct": is_direct})
        out.append(c)
    return out
