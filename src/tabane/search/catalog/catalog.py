"""`search_catalog`: which documents are there about X — sources, not paragraphs (issue 34).

Two lanes per addressed context, fused by reciprocal rank fusion over sources (a source found
at rank r adds 1/(RRF_K + r) per lane):

- `title`: sources whose title holds the query's words (the tokenizer's terms, unstemmed,
  matched in the title's normalized key), most terms first, then the shorter title;
- `bm25`: search's paragraph BM25 lane (its stemmed index terms, text/analyze.py), each source
  at the rank of its best paragraph.

Each source comes once, with its title, area, state, date and a snippet of its best paragraph
(the lead paragraph when only its title matched). A query of nothing but `*`, `all` or white
space browses instead: every live source the caller can see, in (context, source id) order.
Both modes are capped (`limit`, at most MAX_LIMIT) and paged by `offset` in a stable order, and
the plan says the mode, the contexts, the query's terms and how many sources there were in all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, and_, case, func, literal, select
from sqlalchemy.orm import Session

from tabane.checks import text_problems
from tabane.errors import InvalidInput, Issue
from tabane.search import bm25
from tabane.storage.schema import Context, Paragraph, Source
from tabane.text.analyze import index_terms
from tabane.text.tokenize import tokenize

BROWSE = frozenset({"", "*", "all"})  # a query that asks for everything
MAX_LIMIT = 50
MAX_OFFSET = 100_000
POOL = 50  # sources per lane and context: search's pool for 10 hits
SNIPPET = 240  # characters of a hit's best paragraph
# Reciprocal rank fusion over the two lanes' source ranks: a title rank and a best-paragraph
# rank have no scores that compare (search fuses its paragraph lanes by score share instead),
# so ranks are fused, with recall's constant (recall/plan.py `rrf_k`).
RRF_K = 60.0


@dataclass(frozen=True)
class CatalogRequest:
    query: str
    contexts: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    limit: int = 10
    offset: int = 0

    def check(self) -> None:
        issues: list[Issue] = []
        if not isinstance(self.query, str) or len(self.query) > 4000:
            issues.append(Issue("query", "a text of at most 4000 characters"))
        for name, top in (("limit", MAX_LIMIT), ("offset", MAX_OFFSET)):
            value = getattr(self, name)
            low = 1 if name == "limit" else 0
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= top:
                issues.append(Issue(name, f"{value!r} not in {low}..{top}"))
        if not self.contexts and not self.groups:
            issues.append(Issue("contexts", "name at least one context or group"))
        texts = {"query": self.query, "contexts": self.contexts, "groups": self.groups}
        issues += [Issue(path, problem) for path, problem in text_problems(texts, "")]
        if issues:
            raise InvalidInput("invalid catalog search", issues=issues)

    @property
    def browsing(self) -> bool:
        return isinstance(self.query, str) and self.query.strip().casefold() in BROWSE


@dataclass(frozen=True)
class CatalogLane:
    lane: str  # "title" or "bm25"
    rank: int  # 1-based, within its context


@dataclass(frozen=True)
class CatalogHit:
    context: str
    source_id: str
    title: str
    area: str | None
    state: str | None
    date: datetime | None
    paragraph: int | None  # the snippet's paragraph
    snippet: str
    lanes: tuple[CatalogLane, ...]  # empty when browsing
    score: float  # the fused score (0 when browsing)


@dataclass(frozen=True)
class CatalogPlan:
    mode: str  # "search" or "browse"
    contexts: tuple[str, ...]
    query_terms: tuple[str, ...]
    total: int  # sources found (search) or visible (browse), before the page was cut
    next_offset: int | None  # pass back as `offset` for the next page


@dataclass(frozen=True)
class CatalogResult:
    hits: list[CatalogHit]
    plan: CatalogPlan


@dataclass(frozen=True)
class Ranked:
    """The search mode's fused order (source pks, best first) and what it was made of: each
    source's context, lanes and best paragraph id, its fused score and its row."""

    order: list[int]
    found: dict[int, tuple[Context, list[CatalogLane], int | None]]
    scored: dict[int, float]
    rows: dict[int, Any]
    terms: tuple[str, ...]


def rank(session: Session, contexts: Sequence[Context], query: str) -> Ranked:
    """The two lanes in every context, fused over sources (shared with the explain twin)."""
    words = tuple(bm25.unique_terms(tokenize(query)))
    terms = tuple(bm25.unique_terms(index_terms(query)))
    found: dict[int, tuple[Context, list[CatalogLane], int | None]] = {}
    for ctx in contexts:
        for r, pk in enumerate(_titles(session, ctx.id, words), start=1):
            found.setdefault(pk, (ctx, [], None))[1].append(CatalogLane("title", r))
        for r, (pk, paragraph_id) in enumerate(_paragraphs(session, ctx.id, terms), start=1):
            c, lanes, _ = found.get(pk, (ctx, [], None))
            found[pk] = (c, [*lanes, CatalogLane("bm25", r)], paragraph_id)
    scored = {pk: sum(1.0 / (RRF_K + lane.rank) for lane in f[1]) for pk, f in found.items()}
    rows = _sources(session, list(found))
    # ties by context and source id: the page order is stable
    order = sorted(
        (pk for pk in found if pk in rows),
        key=lambda pk: (-scored[pk], found[pk][0].name, rows[pk].source_id),
    )
    return Ranked(order, found, scored, rows, terms)


def search_catalog(
    session: Session, contexts: Sequence[Context], request: CatalogRequest
) -> CatalogResult:
    names = tuple(c.name for c in contexts)
    if request.browsing:
        return _browse(session, contexts, request, names)
    r = rank(session, contexts, request.query)
    page = r.order[request.offset : request.offset + request.limit]
    snippets = _snippets(session, {pk: r.found[pk][2] for pk in page})
    hits = [
        _hit(r.found[pk][0].name, r.rows[pk], snippets.get(pk), tuple(r.found[pk][1]), r.scored[pk])
        for pk in page
    ]
    after = request.offset + len(page)
    total = len(r.order)
    plan = CatalogPlan("search", names, r.terms, total, after if after < total else None)
    return CatalogResult(hits, plan)


def _titles(session: Session, context_id: int, terms: Sequence[str]) -> list[int]:
    """The title lane: live sources whose title key holds query terms, most terms first."""
    if not terms:
        return []
    held: Any = literal(0, Integer)
    for t in terms:
        held = held + case((Source.title_key.contains(t, autoescape=True), 1), else_=0)
    stmt = (
        select(Source.id)
        .where(Source.context_id == context_id, Source.retracted_at.is_(None), held > 0)
        .order_by(held.desc(), func.length(Source.title), Source.id)
        .limit(POOL)
    )
    return list(session.scalars(stmt))


def _paragraphs(session: Session, context_id: int, terms: Sequence[str]) -> list[tuple[int, int]]:
    """The BM25 lane by source: (source pk, its best paragraph's id), best first."""
    if not terms:
        return []
    _, hits = bm25.ranked(session, context_id, list(terms), pool=POOL * 4)
    ids = [h.paragraph_id for h in hits]
    owner = {
        int(pid): int(pk)
        for pid, pk in session.execute(
            select(Paragraph.id, Paragraph.source_pk).where(Paragraph.id.in_(ids))
        )
    }
    out: dict[int, int] = {}
    for pid in ids:  # in rank order: a source's first paragraph is its best
        if pid in owner and owner[pid] not in out:
            out[owner[pid]] = pid
    return list(out.items())[:POOL]


def _sources(session: Session, pks: list[int]) -> dict[int, Any]:
    stmt = select(Source).where(Source.id.in_(pks), Source.retracted_at.is_(None))
    return {s.id: s for s in session.scalars(stmt)}


def _snippets(session: Session, best: dict[int, int | None]) -> dict[int, tuple[int, str]]:
    """Per source: (paragraph index, text) of its best paragraph, else of its lead one."""
    chosen = [pid for pid in best.values() if pid is not None]
    leads = [pk for pk, pid in best.items() if pid is None]
    stmt = select(Paragraph.source_pk, Paragraph.idx, Paragraph.text).where(
        Paragraph.id.in_(chosen) | and_(Paragraph.source_pk.in_(leads), Paragraph.idx == 0)
    )
    return {int(pk): (int(idx), str(text)) for pk, idx, text in session.execute(stmt)}


def _hit(
    context: str,
    s: Any,
    snippet: tuple[int, str] | None,
    lanes: tuple[CatalogLane, ...],
    score: float,
) -> CatalogHit:
    index, text = snippet if snippet is not None else (None, "")
    text = " ".join(text.split())
    if len(text) > SNIPPET:
        text = text[: SNIPPET - 1] + "…"
    fused = round(score, 6) if math.isfinite(score) else 0.0
    return CatalogHit(
        context, s.source_id, s.title, s.area, s.state, s.date, index, text, lanes, fused
    )


def _browse(
    session: Session, contexts: Sequence[Context], request: CatalogRequest, names: tuple[str, ...]
) -> CatalogResult:
    """Every live source of the contexts, in (context, source id) order, one page of them."""
    live = and_(Source.context_id.in_([c.id for c in contexts]), Source.retracted_at.is_(None))
    total = int(session.scalar(select(func.count()).select_from(Source).where(live)) or 0)
    stmt = (
        select(Source, Context.name)
        .join(Context, Context.id == Source.context_id)
        .where(live)
        .order_by(Context.name, Source.source_id)
        .offset(request.offset)
        .limit(request.limit)
    )
    rows = [(s, str(name)) for s, name in session.execute(stmt)]
    snippets = _snippets(session, {s.id: None for s, _ in rows})
    hits = [_hit(name, s, snippets.get(s.id), (), 0.0) for s, name in rows]
    after = request.offset + len(hits)
    return CatalogResult(
        hits, CatalogPlan("browse", names, (), total, after if after < total else None)
    )
