"""The catalog lanes of recall's one statement (same row shape and parameters as
recall/lanes/lanes.py),
database-derived candidates present whenever their rows exist:

- `catalog`: the project catalog, live sources with an area whose state is active or waiting,
  score 1.0 where the question names the project (its title, titles.py) or its area, else 0.0;
- `areas`: the area catalog, one item per (context, area) with live sources — item id the
  area's smallest source id — areas the question names first (`area_key`, written at ingest,
  occurs in the question's key: on word boundaries, or anywhere for scripts written without
  spaces), then by their newest source. `area_detail` is the lateral the statement joins after
  fusion: the area's source counts by state, its newest titles (`AREA_TITLES`) and the union of
  its sources' scopes, over the rows the caller can see;
- `navigation`: the documents a navigation question asks for (recall/navigation.py), found by
  the catalog search before the statement (gather.py `bind_navigation`) and kept at its ranks
  (scale.py); a project among them is left to this lane, not ranked by `catalog` as well.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ARRAY,
    BigInteger,
    Float,
    Integer,
    Select,
    Text,
    and_,
    case,
    false,
    func,
    or_,
    select,
    true,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by, array
from sqlalchemy.orm import aliased

from tabane.checks import SOURCE_STATES
from tabane.recall.lanes.lanes import fixed, p, row
from tabane.storage.schema import Source

# Newest titles an area item lists.
AREA_TITLES = 3
# The shortest area key a question names: two characters carry a word of kanji (仕事), and the
# word boundaries of spaced scripts keep a short Latin key from matching inside words.
AREA_MIN = 2
# ASCII punctuation, read as a word boundary when matching an area's key inside the question.
_PUNCTUATION = "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())


def catalog_lane() -> Select[Any]:
    s = Source
    named = or_(s.id == func.any(p("title_pks", ARRAY(BigInteger))), _named(s.area_key))
    order = (s.state != "active", func.coalesce(s.date, s.stored_at).desc(), s.id)
    projects = (
        select(
            s.id,
            s.context_id,
            case((named, 1.0), else_=0.0).label("score"),
            func.row_number().over(order_by=order).label("r"),
        )
        .where(
            s.context_id == func.any(p("ctx_ids", ARRAY(Integer))),
            s.retracted_at.is_(None),
            s.area.is_not(None),
            s.state.in_(("active", "waiting")),
            # a project a navigation question asks for is that lane's document, ranked there
            s.id != func.all(p("nav_ids", ARRAY(BigInteger))),
        )
        .subquery("projects")
    )
    return select(
        *row(
            "catalog",
            projects.c.id,
            projects.c.context_id,
            "catalog",
            projects.c.r,
            projects.c.score,
            false(),
        )
    ).where(projects.c.r <= p("catalog_limit", Integer))


def _has_area(s: Any) -> Any:
    """The corpus map's test (overview.py): an area that is not blank."""
    return func.length(func.btrim(func.coalesce(s.area, ""))) > 0


def _named(key: Any) -> Any:
    """The question's key holds the area's key (AREA_MIN characters or more): anywhere when the
    key has a character outside ASCII (scripts written without spaces), else between spaces,
    the ends or ASCII punctuation ("work" is named by "work?" and not by "homework")."""
    question = p("question_key", Text)
    blank = " " * len(_PUNCTUATION)

    def padded(text: Any) -> Any:
        return func.concat(" ", func.translate(text, _PUNCTUATION, blank), " ")

    return and_(
        func.length(key) >= AREA_MIN,
        case(
            (func.octet_length(key) > func.length(key), func.strpos(question, key) > 0),
            else_=func.strpos(padded(question), padded(key)) > 0,
        ),
    )


def areas_lane() -> Select[Any]:
    s = Source
    named = func.bool_or(_named(s.area_key))
    newest = func.max(func.coalesce(s.date, s.stored_at))
    order = (named.desc(), newest.desc(), func.min(s.id))
    areas = (
        select(
            func.min(s.id).label("id"),
            s.context_id,
            case((named, 1.0), else_=0.0).label("score"),
            func.row_number().over(order_by=order).label("r"),
        )
        .where(
            s.context_id == func.any(p("ctx_ids", ARRAY(Integer))),
            s.retracted_at.is_(None),
            _has_area(s),
        )
        .group_by(s.context_id, s.area)
        .subquery("areas")
    )
    return select(
        *row("area", areas.c.id, areas.c.context_id, "areas", areas.c.r, areas.c.score, false())
    ).where(areas.c.r <= p("area_limit", Integer))


def area_detail(fused: Any, source: Any) -> Any:
    """The lateral (area_states, area_titles, area_newest, area_scopes) of an `area` item,
    whose `source` (the statement's lateral of the item's source) names the area: its live
    sources' counts in SOURCE_STATES order, the newest AREA_TITLES titles (the source id where
    a title is blank), then their total, when the newest was dated or stored, and the sorted
    union of their scopes."""

    def same(a: Any) -> tuple[Any, ...]:
        return (
            fused.c.kind == "area",
            a.context_id == source.c.context_id,
            a.area == source.c.area,
            a.retracted_at.is_(None),
        )

    a = aliased(Source, name="area_source")
    when = func.coalesce(a.date, a.stored_at)
    n = aliased(Source, name="area_newest")
    newest = (
        select(
            func.coalesce(func.nullif(func.btrim(n.title), ""), n.source_id).label("title"),
            func.coalesce(n.date, n.stored_at).label("at"),
            n.id,
        )
        .where(*same(n))
        .order_by(func.coalesce(n.date, n.stored_at).desc(), n.id)
        .limit(fixed(AREA_TITLES))
        .correlate(fused, source)
        .subquery("area_titles")
    )
    titles = (
        select(func.array_agg(aggregate_order_by(newest.c.title, newest.c.at.desc(), newest.c.id)))
        .correlate(fused, source)
        .scalar_subquery()
    )
    # the counts by state, then every source's (a source with no state is in none of them)
    states = array(
        [*(func.count().filter(a.state == state) for state in SOURCE_STATES), func.count()]
    )
    b = aliased(Source, name="area_scoped")
    scope = func.unnest(b.scopes).table_valued("scope").render_derived(name="area_scope")
    scopes = (
        select(func.array_agg(aggregate_order_by(scope.c.scope.distinct(), scope.c.scope)))
        .select_from(b)
        .join(scope, true())
        .where(*same(b))
        .correlate(fused, source)
        .scalar_subquery()
    )
    return (
        select(
            states.label("area_states"),
            titles.label("area_titles"),
            func.max(when).label("area_newest"),
            scopes.label("area_scopes"),
        )
        .where(*same(a))
        .lateral("area_summary")
    )


def navigation_lane() -> Select[Any]:
    """The documents a navigation question asks for (recall/navigation.py): the catalog
    search's sources for the distilled subject (search/catalog/catalog.py `rank`, computed
    before the statement in gather.py) bound as parallel arrays, one `catalog` item each."""
    found = (
        func.unnest(
            p("nav_ctx", ARRAY(Integer)),
            p("nav_ids", ARRAY(BigInteger)),
            p("nav_ranks", ARRAY(Integer)),
            p("nav_scores", ARRAY(Float)),
        )
        .table_valued("ctx", "id", "r", "score")
        .render_derived(name="navigated")
    )
    c = found.c
    return select(*row("catalog", c.id, c.ctx, "navigation", c.r, c.score, false()))
