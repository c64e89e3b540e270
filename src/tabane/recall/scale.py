"""One scale for every lane and every addressed context, before fusion (statement.py).

Each lane gathers its pool per context, so a context with nothing to say about the question
still sends its best rows. Fusing those per-context ranks put each context's first row level with
the others': asked about git over the git docs and two unrelated graph contexts, the unrelated
contexts' rows took 4.9 of the first 5 places (docs/journal/eval.md, "One scale across contexts").
One model embeds paragraphs, notes, summaries and turns alike, so their cosines to the question
compare across contexts; `on_one_scale` re-ranks the lanes' rows on them:

- The passages (`vector` and `claims` rows: paragraphs, claims and notes) rank together by
  cosine over all addressed contexts: a lane that found only far passages no longer puts its
  best at the first place beside a near one.
- A lane whose scores do not compare across contexts (`bm25`: each context's own term
  statistics; the summaries, ranked within their context as below) keeps its order within a
  context, behind the context's standing: its rows follow every passage of the other contexts
  that is nearer the question than the context's best passage. A context whose best passage
  stands far down the common order brings its words and summaries down with it; one whose best
  passage leads keeps its own ranks. With one context (or no query vector, or a context with no
  passage yet) the ranks are as the lane gave them. (Placing the r-th row at the r-th passage's
  place instead gave the graph set beside the docs contexts all-needed 0.667 against 0.833:
  same-language passages of an unrelated context interleave with the graph context's own, and
  its rows placed through them lost their slots; docs/journal/eval.md.)
- A walked edge that a concept the question names led to keeps the walk's place (the question
  named that context's concept, as it names a source by its title). One that only concepts whose
  gloss is near the question led to (its `reach`: the best such gloss's cosine) is as relevant as
  that gloss: it moves down one place for each passage of its context nearer the question than
  the gloss, and is then placed as `bm25` rows are. Asked about the meeting room's Wi-Fi over
  notes that answer it and a graph of services, the edge "billing service runs_on Postgres 16"
  no longer takes the first place; asked about the graph, where the glosses stand level with the
  best passages, its edges keep theirs.
- A summary (`communities`, `profiles`, `raptor`) ranks below only its context's passages whose
  cosine beats its own by more than the spread (standard deviation) of that context's passage
  cosines, then below the context's nearer summaries. A broad question, which no passage answers
  clearly better than an overview does, gets the overview first; a local one, whose passage
  stands out, keeps that passage first.
- A turn is a passage from a pool of a few recent turns: it takes the rank it would have had
  among the passages (then below the nearer turns), not the first places of a lane of its own.
  Bound `turn_scale` false keeps its place in the turns lane.

- A catalog row (`catalog`: a project; `areas`: an area) ranks by how well it matches the
  question, never above the evidence that answers it. One the question names (the project's
  title or area, the area's key; score 1.0) keeps the lane's rank, as a named source does. Any
  other project is placed just after its best evidence row (the best place among the passages
  and BM25 rows of its paragraphs), and any other area — and a project with no such row —
  after every evidence row. Kept at the lane's ranks, a rank-1 area and project fused above
  the paragraph that BM25 ranked first and vectors second, and "How do I descale the kettle?"
  got `area Work` and an unrelated project memo before its answer (issue 34). An area placed
  after its sources' best evidence row instead took the second place on nearly every question
  of pydocs with its folders as areas (nDCG@10 0.730, against 0.744 without areas and 0.721
  at the lane's ranks; docs/journal/eval.md, "Catalog rows on the evidence's scale").

The `title` lane, which puts named sources first anyway, keeps its ranks, and so does the
`navigation` lane: a question that asks where something is written down (recall/navigation.py)
is answered by the document first.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, and_, case, func, select
from sqlalchemy.orm import aliased

from tabane.recall.lanes.lanes import p
from tabane.storage.schema import Paragraph

# The lanes of derived summaries, ranked on the passage lanes' scale.
DERIVED_LANES = ("communities", "profiles", "raptor")
PASSAGE_LANES = ("vector", "claims")
# Lanes ranked within a context, placed behind the other contexts' passages nearer the question
# than the context's best one.
PLACED_LANES = ("bm25", "walk", *DERIVED_LANES)  # the walk: its edges no named concept led to
# The catalogs, placed after the evidence they match (module docstring).
CATALOG_LANES = ("catalog", "areas")


def _passages_above(pool: Any, score: Any, context_id: Any = None) -> Any:
    """How many passages (of the context `context_id`, or of every context) are nearer the
    question than `score`: a correlated count over `pool`, an alias of the lanes' rows."""
    mine = [] if context_id is None else [pool.c.context_id == context_id]
    return (
        select(func.count())
        .where(pool.c.lane.in_(PASSAGE_LANES), pool.c.score > score, *mine)
        .scalar_subquery()
    )


def _within(lanes: Any, pool: Any) -> Any:
    """The lanes' rows with their rank within their context (`local`), for the passages their
    place among every context's (`among`), and their context's best passage's (`best_place`)."""
    c = lanes.c
    passages = c.lane.in_(PASSAGE_LANES)
    spread = func.stddev_pop(c.score).filter(passages).over(partition_by=c.context_id)
    is_derived = c.lane.in_(DERIVED_LANES)
    windows = select(
        lanes,
        func.coalesce(spread, 0.0).label("spread"),
        func.row_number()
        .over(partition_by=(c.context_id, c.lane), order_by=(c.rank, c.item_id))
        .label("own"),
        func.row_number()
        .over(partition_by=(c.context_id, is_derived), order_by=(c.score.desc(), c.lane, c.item_id))
        .label("summary_place"),
        func.row_number()
        .over(partition_by=passages, order_by=(c.score.desc(), c.lane, c.item_id))
        .label("among"),
    ).subquery("windows")
    w = windows.c
    local = case(
        (
            w.lane.in_(DERIVED_LANES),
            _passages_above(pool, w.score + w.spread, w.context_id) + w.summary_place,
        ),
        (w.reach.is_not(None), w.own + _passages_above(pool, w.reach, w.context_id)),
        else_=w.own,
    )
    # the place of the context's best passage among every context's (none: null)
    best = func.min(w.among).filter(w.lane.in_(PASSAGE_LANES)).over(partition_by=w.context_id)
    return select(windows, local.label("local"), best.label("best_place")).subquery("within")


def behind_standing(best_place: Any, local: Any) -> Any:
    """A row ranked `local` within its context, placed after the other contexts' passages
    nearer the question than the context's best one (`best_place`; a context with no passage
    keeps the local rank). BM25 rows are placed so, and recall's paragraphs by share
    (shares.py)."""
    return func.coalesce(best_place - 1, 0) + local


def _placed(lanes: Any, pool: Any) -> Any:
    """`_within`'s rows as a CTE with each evidence row's place on the common scale (`place`:
    a passage's among every context's, a BM25 row's behind its context's standing; null for
    the other lanes) and the last such place (`end`)."""
    within = _within(lanes, pool)
    row = within.c
    placed = behind_standing(row.best_place, row.local)
    place = case((row.lane.in_(PASSAGE_LANES), row.among), (row.lane == "bm25", placed))
    return select(
        within, placed.label("placed"), place.label("place"), func.max(place).over().label("end")
    ).cte("placed")


def _project_match(rows: Any) -> Any:
    """A project row's best evidence place: the best `place` of a paragraph of its source."""
    ev = aliased(rows, name="evidence")
    return (
        select(func.min(ev.c.place))
        .select_from(ev)
        .join(Paragraph, Paragraph.id == ev.c.item_id)
        .where(
            ev.c.kind == "paragraph",
            ev.c.place.is_not(None),
            Paragraph.source_pk == rows.c.item_id,
        )
        .correlate(rows)
        .scalar_subquery()
    )


def on_one_scale(lanes: Any) -> Any:
    """The lanes' rows (the `lanes` CTE) re-ranked on one scale (module docstring)."""
    pool = aliased(lanes, name="pool")
    rows = _placed(lanes, pool)
    row = rows.c
    placed = row.placed
    is_turn = and_(row.lane == "turns", p("turn_scale", Boolean))
    turn_place = func.row_number().over(
        partition_by=is_turn, order_by=(row.score.desc(), row.item_id)
    )
    named = and_(row.lane == "walk", row.reach.is_(None))
    unnamed_catalog = and_(row.lane.in_(CATALOG_LANES), row.score < 1.0)
    after_evidence = func.coalesce(row.end, 0) + row.rank
    rank = case(
        (is_turn, _passages_above(pool, row.score) + turn_place),
        (row.lane.in_(PASSAGE_LANES), row.among),
        (named, row.rank),
        (row.lane.in_(PLACED_LANES), placed),
        (
            and_(unnamed_catalog, row.lane == "catalog"),
            func.coalesce(_project_match(rows) + row.rank, after_evidence),
        ),
        (unnamed_catalog, after_evidence),
        else_=row.rank,
    )
    cols = [rank.label("rank") if c.name == "rank" else row[c.name] for c in lanes.c]
    return select(*cols, row.best_place).cte("hits")
