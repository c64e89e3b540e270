"""A search's fixed cost: one settings round trip per transaction (the scopes and the vector
lane's settings together), its contexts with their pending jobs and models in one statement,
and no usage write while the interval runs (bench/search_overhead.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, func, select

from tabane.ingest.documents import DocumentInput, block
from tabane.search import vectors
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.store import configure


@contextmanager
def sent(svc: Tabane) -> Iterator[list[str]]:
    """The statements sent on the application engine meanwhile."""
    seen: list[str] = []

    def log(_c: object, _cur: object, sql: str, *_: object) -> None:
        seen.append(sql)

    event.listen(svc.store.app, "before_cursor_execute", log)
    try:
        yield seen
    finally:
        event.remove(svc.store.app, "before_cursor_execute", log)


@pytest.mark.slow
def test_a_search_sends_one_settings_statement_per_transaction(vsvc: Tabane, user, context) -> None:
    vsvc.ingest(user, context, DocumentInput("k", paragraphs=[block("the kettle boils water")]))
    vsvc.wait_for_jobs()
    request = SearchRequest("kettle", contexts=(context,))
    vsvc.search(user, request)  # the usage count of the pair is written now
    with sent(vsvc) as seen:
        result = vsvc.search(user, request)
    assert result.plan.contexts[0].lanes["vector"].ran and result.hits
    settings = [s for s in seen if "set_config" in s]
    assert len(settings) == 2  # the search's transaction and the BM25 lane's beside it
    assert not [s for s in seen if "context_usage" in s]
    # the scopes, the contexts with their facts, the vector lane, the details; BM25's packs
    # are read through the driver's cursor beside them
    assert len(seen) == 5


def test_settings_set_with_the_transaction_are_in_force_and_not_sent_again(svc, user) -> None:
    with svc.store.session(user, settings=vectors.NEAREST) as session, sent(svc) as seen:
        configure(session, vectors.NEAREST)
        assert seen == []
        in_force = session.scalar(select(func.current_setting("hnsw.ef_search")))
        configure(session, {"hnsw.ef_search": "64"})
        changed = session.scalar(select(func.current_setting("hnsw.ef_search")))
    assert (in_force, changed) == (vectors.NEAREST["hnsw.ef_search"], "64")
    with svc.store.session(user) as session, sent(svc) as seen:  # local to the transaction
        before = session.scalar(select(func.current_setting("hnsw.ef_search", True)))
        configure(session, {"hnsw.ef_search": "64"})
    assert before != "64" and any("set_config" in s for s in seen)


def test_a_search_whose_vector_lane_cannot_run_reads_bm25_on_its_own_connection(
    svc: Tabane, user, context
) -> None:
    svc.ingest(user, context, DocumentInput("k", paragraphs=[block("the kettle boils water")]))
    request = SearchRequest("kettle", contexts=(context,))
    svc.search(user, request)
    with sent(svc) as seen:
        result = svc.search(user, request)  # no embedder: the vector lane says why not
    assert result.hits and not result.plan.contexts[0].lanes["vector"].ran
    assert len([s for s in seen if "set_config" in s]) == 1
