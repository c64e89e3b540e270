"""The LangChain retrievers against the real langchain-core: search hits and recall items as
Documents with their citation, sync and async, from a local store and over HTTP alike."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from tabane.errors import InvalidInput, NoContext, StoreUnavailable, TabaneError, Unauthorized
from tabane.recall.cite import cite
from tabane.recall.plan import RecallRequest
from tabane.search.plan import SearchRequest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document

from tabane.integrations.langchain import (
    TabaneRecallRetriever,
    TabaneSearchRetriever,
)

ASKED = "When are the tomatoes on the roof watered?"
PHRASED = "tomatoes are watered by the drip line"


def _local(kind: type[Any], corpus: Any, **options: Any) -> Any:
    return kind(tabane=corpus.svc, user=corpus.user, contexts=[corpus.context], **options)


def _remote(kind: type[Any], corpus: Any, server: tuple[str, str], **options: Any) -> Any:
    url, key = server
    return kind(url=url, api_key=key, contexts=[corpus.context], **options)


def _meta(docs: list[Document]) -> list[dict[str, Any]]:
    """Each document's text and metadata, less the recall's id (each recall stores a trace)."""
    return [{**d.metadata, "recall_id": None, "text": d.page_content} for d in docs]


def test_search_documents_carry_the_citation_in_the_searchs_order(corpus: Any) -> None:
    docs = _local(TabaneSearchRetriever, corpus, k=2).invoke(PHRASED)
    hits = corpus.svc.search(corpus.user, SearchRequest(PHRASED, (corpus.context,), limit=2)).hits
    assert [(d.metadata["source"], d.metadata["paragraph"]) for d in docs] == [
        (h.source_id, h.paragraph) for h in hits
    ]
    best = docs[0]
    assert "drip line" in best.page_content
    assert best.metadata["title"] == "Roof garden"
    assert best.metadata["section"] == ["Roof garden", "Watering"]
    assert best.metadata["locator"]["kind"] == "line_range"
    assert best.metadata["kind"] == "paragraph" and best.metadata["format"] == "text"
    assert (
        best.metadata["citation"]
        == '"Roof garden" (garden.md), Roof garden > Watering, paragraph 1'
    )
    assert best.metadata["rank"] == 1 and best.metadata["score"] == hits[0].score
    assert set(best.metadata["lanes"]) == {"bm25", "vector"}  # the corpus is embedded
    assert best.metadata["lanes"]["bm25"] == {
        "rank": 1,
        "score": hits[0].lanes["bm25"].score,
        "share": 1.0,
    }


def test_recall_documents_are_the_bundles_items_in_order(corpus: Any) -> None:
    docs = _local(TabaneRecallRetriever, corpus).invoke(ASKED)
    bundle = corpus.svc.recall(corpus.user, RecallRequest(ASKED, (corpus.context,)))
    assert [d.metadata["key"] for d in docs] == [item.key for item in bundle.items]
    assert [d.page_content for d in docs] == [item.text for item in bundle.items]
    assert [d.metadata["citation"] for d in docs] == [cite(item) for item in bundle.items]
    assert [d.metadata["position"] for d in docs] == list(range(1, len(docs) + 1))
    fused = {c.key: c.fused for c in bundle.trace.candidates}
    assert [d.metadata["score"] for d in docs] == [fused[item.key] for item in bundle.items]
    watering = next(d for d in docs if "drip line" in d.page_content)
    assert watering.metadata["source"] == "garden.md"
    assert watering.metadata["section"] == ["Roof garden", "Watering"]
    assert watering.metadata["provenance"] == "source excerpt"
    assert watering.metadata["lanes"]["bm25"]["rank"] >= 1
    assert isinstance(watering.metadata["recall_id"], int)


def test_async_answers_what_sync_answers(corpus: Any) -> None:
    for kind, question in ((TabaneSearchRetriever, PHRASED), (TabaneRecallRetriever, ASKED)):
        retriever = _local(kind, corpus)
        got = asyncio.run(retriever.ainvoke(question))
        assert got and _meta(got) == _meta(retriever.invoke(question))


def test_over_http_the_documents_are_the_local_ones(corpus: Any, server: tuple[str, str]) -> None:
    for kind, question in ((TabaneSearchRetriever, PHRASED), (TabaneRecallRetriever, ASKED)):
        local = _meta(_local(kind, corpus).invoke(question))
        remote = _remote(kind, corpus, server)
        assert local
        assert _meta(remote.invoke(question)) == local
        assert _meta(asyncio.run(remote.ainvoke(question))) == local


def test_over_http_a_refusal_is_tabanes_error_with_its_code(
    corpus: Any, server: tuple[str, str]
) -> None:
    url, key = server
    with pytest.raises(NoContext, match=r"^no_context: ") as missing:
        TabaneSearchRetriever(url=url, api_key=key, contexts=["nowhere"]).invoke("x")
    assert missing.value.code == "no_context" and missing.value.status == 404
    with pytest.raises(Unauthorized, match=r"^unauthorized: "):
        TabaneRecallRetriever(url=url, api_key="tbn_bad", contexts=[corpus.context]).invoke(ASKED)
    with pytest.raises(InvalidInput, match=r"^invalid_input: ") as invalid:
        asyncio.run(_remote(TabaneRecallRetriever, corpus, server, budget=0).ainvoke(ASKED))
    assert [i.path for i in invalid.value.issues] == ["body.budget"]


def test_a_server_that_does_not_answer_is_store_unavailable() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    retriever = TabaneSearchRetriever(url=f"http://127.0.0.1:{port}", contexts=["c"])
    with pytest.raises(StoreUnavailable, match=r"^store_unavailable: "):
        retriever.invoke("x")
    with pytest.raises(StoreUnavailable):
        asyncio.run(retriever.ainvoke("x"))


@pytest.mark.parametrize("way_in", [{}, {"tabane": "both", "url": "http://127.0.0.1:1"}])
def test_one_way_in_exactly(corpus: Any, way_in: dict[str, Any]) -> None:
    if way_in.get("tabane"):
        way_in = {**way_in, "tabane": corpus.svc}
    with pytest.raises(InvalidInput) as refused:
        TabaneSearchRetriever(contexts=["c"], **way_in)
    assert isinstance(refused.value, TabaneError) and refused.value.code == "invalid_input"


@pytest.mark.parametrize("field", ["contexts", "groups", "source_tags"])
def test_a_bare_name_where_a_list_belongs_is_invalid_input(corpus: Any, field: str) -> None:
    with pytest.raises(InvalidInput, match=r"^invalid_input: ") as refused:
        TabaneSearchRetriever(tabane=corpus.svc, **{"contexts": [corpus.context], field: "ab"})
    assert [i.path for i in refused.value.issues] == [field]
