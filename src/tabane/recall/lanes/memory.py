"""The memory lanes of recall's one statement (same row shape and parameters as
recall/lanes/lanes.py):

- `claims`: claims whose text is nearest the question, current ones only;
- `turns`: the caller's session turns inside the working-memory window most similar to the
  question, and the newest.

The graph walk (`walk`) is in recall/lanes/graph.py, the catalogs (`catalog`, `areas`) in
recall/lanes/catalog.py.
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
)

from tabane.recall.lanes.lanes import ASKS, contexts_table, limit, nearest, p, row
from tabane.storage.schema import (
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
    near = nearest(c, ClaimVector, ClaimVector.claim_id, dim, limit("pool", 2), "cv")
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
    ).where(current.c.r <= limit("pool"))


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


def _window() -> CTE:
    """The caller's session turns since `turns_since`, the newest `turns` of them, lowercased."""
    t = SessionTurn
    return (
        select(t.id, t.seq, func.lower(t.text).label("text"))
        .where(
            t.session_pk == p("session_pk", BigInteger),
            t.at >= p("turns_since", DateTime(timezone=True)),
        )
        .order_by(t.seq.desc())
        .limit(limit("turns"))
        .cte("recent_turns")
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
    recent = _window()
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
