"""The one statement: cached per shape, tunables bound, BM25 equal to the search lane's."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.gather import gather
from tabane.recall.plan import PLANS, RecallRequest
from tabane.recall.statement import LANES, Shape, build_recall_statement
from tabane.search.plan import SearchRequest
from tabane.search.search import QueryVector
from tabane.service import Tabane
from tabane.storage.schema import Context


def test_one_statement_per_shape_with_every_tunable_bound():
    shape = Shape(LANES, 512)
    stmt = build_recall_statement(shape)
    assert build_recall_statement(Shape(LANES, 512)) is stmt
    assert build_recall_statement(Shape(PLANS["sources_only"], 512)) is not stmt
    sql = str(stmt.compile())
    for name in ("pool", "candidates", "rrf_k", "bm25_ids", "question_key", "walk_pool", "qvec",
                 "session_pk", "turns", "catalog_limit", "title_lead"):  # fmt: skip
        assert f"%({name})s" in sql or f":{name}" in sql or f"[POSTCOMPILE_{name}]" in sql, name
    assert sql.count("UNION ALL") >= len(LANES) - 1
    # every LIMIT is known to a generic plan (decision 0048): a number, or a tunable written
    # into the SQL when it runs — a bound LIMIT made the generic plan sort every vector
    limits = re.findall(r"LIMIT ([^\s),]+)", sql)
    assert len(limits) >= 10
    assert [n for n in limits if not re.fullmatch(r"\d+|__\[POSTCOMPILE_\w+\]", n)] == []
    with pytest.raises(ValueError):
        Shape(("vector",))  # a vector lane needs the width
    with pytest.raises(ValueError):
        Shape(("nope",))


@pytest.mark.slow
def test_recall_bm25_ranks_and_scores_match_the_search_lane(svc: Tabane, user, context):
    words = ["apt", "dpkg", "kernel", "module", "package"]
    words += ["install", "remove", "purge", "cache", "source"]
    for i in range(40):
        text = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(3 + i % 5))
        svc.ingest(user, context, DocumentInput(source_id=f"d{i}", paragraphs=[block(text)]))
    query = "apt package cache purge"
    hits = svc.search(user, SearchRequest(query, contexts=(context,), limit=20)).hits
    by_search = [(h.source_id, round(h.lanes["bm25"].score, 9)) for h in hits]
    with svc.store.session(user) as session:
        ctx = session.query(Context).filter_by(name=context).one()
        got = gather(session, query, [ctx], [None], QueryVector(None, None, None, "x"), None,
                     plan="lexical_only")  # fmt: skip
        bm = sorted(
            ((c.row.source_id, lr.rank, round(lr.score, 9)) for c in got.candidates
             for lr in c.lanes if lr.lane == "bm25"),
            key=lambda t: t[1],
        )  # fmt: skip
    assert [(s, sc) for s, _, sc in bm[:20]] == by_search


def test_another_user_recalls_nothing_of_what_they_cannot_see(svc: Tabane, make_user, make_context):
    alice, bob = make_user(), make_user()
    ctx = make_context(owner=alice)
    svc.ingest(
        alice, ctx, DocumentInput(source_id="secret", paragraphs=[block("the vault code is 4711")])
    )
    svc.remember(alice, ctx, {"text": "the vault code is 4711"})
    from tabane.errors import NoContext

    with pytest.raises(NoContext):  # bob cannot even name the context
        svc.recall(bob, RecallRequest("what is the vault code?", (ctx,)))
    mine = svc.recall(alice, RecallRequest("what is the vault code?", (ctx,)))
    assert mine.items and all(
        it.citation.context == ctx for it in mine.items if it.citation.context
    )


def test_recall_plans_for_the_values_it_binds(svc: Tabane, user, context):
    """After a few long questions, PostgreSQL would switch the prepared statement to a generic
    plan (LIMITs and arrays unknown: a sequential scan of every vector); recall's transaction
    keeps custom plans."""
    with svc.store.session(user) as session:
        ctx = session.query(Context).filter_by(name=context).one()
        gather(session, "kettle", [ctx], [None], QueryVector(None, None, None, "x"), None)
        mode = session.scalar(select(func.current_setting("plan_cache_mode")))
    assert mode == "force_custom_plan"
    with svc.store.session(user) as session:  # for recall's transaction only
        assert session.scalar(select(func.current_setting("plan_cache_mode"))) == "auto"
