"""The memory lanes of recall's one statement (same row shape and parameters as lanes.py):

- `claims`: claims whose text is nearest the question, current ones only;
- `walk`: association edges within two hops of the seeds (seeds.py: concepts the question names
  and the concepts whose glosses are nearest it) — scored like spreading activation;
  `score` is the edge's signed net weight over the rows the caller can see;
- `turns`: the caller's session turns inside the working-memory window most similar to the
  question, and the newest.

The catalogs (`catalog`, `areas`) are in lanes_catalog.py.
"""

from __future__ import annotations

from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    CTE,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    Integer,
    Select,
    Text,
    and_,
    case,
    cast,
    false,
    func,
    literal,
    literal_column,
    or_,
    select,
    true,
    union,
    union_all,
)

from tabane.recall.lanes import ASKS, contexts_table, nearest, p, row
from tabane.recall.seeds import bound_seeds
from tabane.storage.schema import (
    Association,
    Claim,
    ClaimVector,
    SessionTurn,
    TurnVector,
)


def claims_lane(dim: int) -> Select[Any]:
    """The current claims whose text is nearest the question, per context. A note that asks
    (`ASKS`: "How's the book?") asserts nothing, and unlike a paragraph or turn it has no reply
    to serve in its place: it is scored as an exchange whose reply says nothing of the question
    (similarity 0), half its own. Bound `asking_notes` false scores it as it is."""
    c = contexts_table()
    near = nearest(c, ClaimVector, ClaimVector.claim_id, dim, p("pool", Integer) * 2, "cv")
    asks = and_(p("asking_notes", Boolean), Claim.statement.regexp_match(ASKS))
    d = case((asks, (near.c.d + 1.0) / 2.0), else_=near.c.d)  # similarity 1 - d, halved
    rank = func.row_number().over(partition_by=c.c.id, order_by=(d, near.c.id))
    current = (
        select(near.c.id.label("claim_id"), c.c.id.label("ctx"), d.label("d"), rank.label("r"))
        .select_from(c)
        .join(near, true())
        .join(Claim, Claim.id == near.c.id)
        .where(Claim.closed_at.is_(None))
        .subquery("cv_current")
    )
    return select(
        *row(
            "claim",
            current.c.claim_id,
            current.c.ctx,
            "claims",
            current.c.r,
            1.0 - current.c.d,
            false(),
        )
    ).where(current.c.r <= p("pool", Integer))


def _edges(touching: CTE, hop: int, exclude: CTE | None = None) -> CTE:
    """The visible edges (netted over the caller's rows) touching a node of `touching`, each
    scored by the activation it gathers — the strengths of the nodes it touches, summed (an edge
    joining two seeds gets both) — times |weight|; the best `walk_pool`. Its `reach` is the best
    `reach` of those nodes: 1 for a concept the question names, a gloss's cosine otherwise."""
    a = Association
    # Driven from the nodes through the subject and object indexes (an OR of two correlated
    # IN-subqueries read every association of the context: 370 ms at 50k claims).
    ends = [
        select(a.id).join(
            touching, and_(touching.c.context_id == a.context_id, column == touching.c.name)
        )
        for column in (a.subject, a.object)
    ]
    touched = union(*ends).subquery(f"touched{hop}")
    net = func.sum(a.weight)
    netted = (
        select(
            a.context_id,
            a.perspective,
            a.subject,
            a.label,
            a.object,
            net.label("w"),
            func.min(a.id).label("id"),
        )
        .join(touched, touched.c.id == a.id)
        .group_by(a.context_id, a.perspective, a.subject, a.label, a.object)
        .having(and_(func.sum(a.claims) > 0, func.abs(net) > 1e-12))
    )
    if exclude is not None:
        netted = netted.having(func.min(a.id).not_in(select(exclude.c.id)))
    e = netted.subquery(f"netted{hop}")
    score = func.sum(touching.c.strength) * func.abs(e.c.w)
    return (
        select(e, score.label("score"), func.max(touching.c.reach).label("reach"))
        .join(
            touching,
            and_(
                touching.c.context_id == e.c.context_id,
                or_(touching.c.name == e.c.subject, touching.c.name == e.c.object),
            ),
        )
        .group_by(*e.c)
        .order_by(score.desc(), e.c.id)
        .limit(p("walk_pool", Integer))
        .cte(f"hop{hop}")
    )


def walk_lane() -> Select[Any]:
    """Two hops from the seeds: a hop-2 edge scores half its hop-1 node's best edge score
    times its own |weight| (the spreading activation of `activate`, decay 0.5). An edge no named
    concept led to carries its best gloss's cosine as its `reach` (scale.py)."""
    seeds = bound_seeds()
    hop1 = _edges(seeds, 1)
    ends = union_all(
        select(hop1.c.context_id, hop1.c.subject.label("name"), hop1.c.score, hop1.c.reach),
        select(hop1.c.context_id, hop1.c.object.label("name"), hop1.c.score, hop1.c.reach),
    ).subquery("hop1_ends")
    frontier = (
        select(
            ends.c.context_id,
            ends.c.name,
            (0.5 * func.max(ends.c.score)).label("strength"),
            func.max(ends.c.reach).label("reach"),
        )
        .where(
            ~select(seeds.c.name)
            .where(seeds.c.context_id == ends.c.context_id, seeds.c.name == ends.c.name)
            .exists()
        )
        .group_by(ends.c.context_id, ends.c.name)
        .cte("frontier")
    )
    hop2 = _edges(frontier, 2, exclude=hop1)
    both = union_all(select(hop1), select(hop2)).subquery("walked")
    rank = func.row_number().over(order_by=(both.c.score.desc(), both.c.id))
    # an edge some named concept led to needs no gloss to stand for its relevance
    glossed = case((both.c.reach < 1.0, both.c.reach))
    return select(
        *row("association", both.c.id, both.c.context_id, "walk", rank, both.c.w, false(), glossed)
    )


def _lexical(recent: CTE) -> Any:
    """(id, score): each question term a turn holds adds ln((n + 1) / df), df counting the
    window's turns that hold it — an idf inside the window, so words every turn shares count
    for little. A term of a script written with spaces must be a whole word of the turn ("he"
    is not in "the"); a character bigram of CJK text may sit anywhere."""
    terms = (
        func.unnest(p("terms", ARRAY(Text(collation="C"))))
        .table_valued("term")
        .render_derived(name="question_terms")
    )
    whole_word = recent.c.text.op("~", is_comparison=True)(func.concat("\\m", terms.c.term, "\\M"))
    dense = func.octet_length(terms.c.term) > func.length(terms.c.term)
    holds = (
        select(recent.c.id, terms.c.term)
        .select_from(recent)
        .join(terms, or_(and_(dense, func.strpos(recent.c.text, terms.c.term) > 0), whole_word))
        .cte("turn_terms")
    )
    n = select(func.count()).select_from(recent).scalar_subquery()
    df = select(holds.c.term, func.count().label("df")).group_by(holds.c.term).subquery("turn_df")
    idf = func.ln((cast(n, Float) + 1.0) / df.c.df)
    return (
        select(holds.c.id, func.sum(idf).label("score"))
        .join(df, df.c.term == holds.c.term)
        .group_by(holds.c.id)
        .subquery("turn_scores")
    )


def _semantic(recent: CTE, dim: int) -> Any:
    """(id, score): the cosine of the turn's embedding (job `embed_turns`) to the question."""
    distance = TurnVector.embedding.cast(Vector(dim)).cosine_distance(p("qvec", Vector(dim)))
    return (
        select(TurnVector.turn_id.label("id"), (1.0 - func.min(distance)).label("score"))
        .where(
            TurnVector.turn_id.in_(select(recent.c.id)),
            TurnVector.model == p("model", Text),
            TurnVector.dim == literal_column(str(int(dim))),
        )
        .group_by(TurnVector.turn_id)
        .subquery("turn_scores")
    )


def turns_lane(dim: int | None = None) -> Select[Any]:
    """The window's turns (recency bounds them) by similarity to the question — the cosine of
    their embeddings when there is a query vector, else shared terms (`_lexical`). Kept: the
    best `turn_hits` by similarity, and the newest `recent_turns` (the conversation the
    question continues) — working memory is a handful of turns, not the window; best first.

    A turn that asks is served as its reply (statement.py `_replies`), so it is scored as the
    exchange: the mean of its own score and its reply's. A question that resembles this one only
    in form ("and you, did you go fishing?") no longer carries an unrelated answer to the top;
    a reply with no score (no shared term, or no vector yet) leaves the question's own. Bound
    `exchange` false scores the question alone."""
    t = SessionTurn
    recent = (
        select(t.id, t.seq, func.lower(t.text).label("text"))
        .where(
            t.session_pk == p("session_pk", BigInteger),
            t.at >= p("turns_since", DateTime(timezone=True)),
        )
        .order_by(t.seq.desc())
        .limit(p("turns", Integer))
        .cte("recent_turns")
    )
    per_turn = _lexical(recent) if dim is None else _semantic(recent, dim)
    newest = func.row_number().over(order_by=recent.c.seq.desc())
    own = (
        select(
            recent.c.id,
            recent.c.seq,
            per_turn.c.score.label("own"),
            func.lead(per_turn.c.score).over(order_by=recent.c.seq).label("next_score"),
            func.lead(recent.c.seq).over(order_by=recent.c.seq).label("next_seq"),
            func.lead(recent.c.text).over(order_by=recent.c.seq).label("next_text"),
            recent.c.text.regexp_match(ASKS).label("asks"),
            newest.label("newest"),
        )
        .outerjoin(per_turn, per_turn.c.id == recent.c.id)
        .subquery("own_turns")
    )
    exchange = and_(  # the turn asks, and the next turn of the window answers (`_replies`)
        p("exchange", Boolean),
        own.c.asks,
        own.c.next_seq == own.c.seq + 1,
        ~own.c.next_text.regexp_match(ASKS),
        own.c.next_score.is_not(None),
    )
    scored = select(
        own.c.id,
        own.c.seq,
        case((exchange, (own.c.own + own.c.next_score) / 2.0), else_=own.c.own).label("score"),
        own.c.newest,
    ).subquery("scored_turns")
    order = (scored.c.score.desc().nulls_last(), scored.c.seq.desc())
    ranked = select(scored, func.row_number().over(order_by=order).label("r")).subquery("ranked")
    kept = or_(
        and_(ranked.c.r <= p("turn_hits", Integer), ranked.c.score > 0),
        ranked.c.newest <= p("recent_turns", Integer),
    )
    score = func.coalesce(ranked.c.score, 0.0)
    return select(
        *row("turn", ranked.c.id, literal(None, Integer), "turns", ranked.c.r, score, false())
    ).where(kept)
