"""The LlamaIndex retrievers against the real llama-index-core: NodeWithScores whose metadata is
the citation, from a local store and over HTTP, sync and async; a session's turns ride along."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tabane.errors import InvalidInput, NoSession
from tabane.search.plan import SearchRequest

from helpers import unique

pytest.importorskip("llama_index.core")

from llama_index.core.schema import MetadataMode, NodeWithScore

from tabane.integrations.llamaindex import (
    TabaneRecallRetriever,
    TabaneSearchRetriever,
)

PHRASED = "the basement rack code changes every month"


def _plain(nodes: list[NodeWithScore]) -> list[tuple[str, str, float | None, dict[str, Any]]]:
    return [
        (n.node.node_id, n.node.get_content(), n.score, {**n.node.metadata, "recall_id": None})
        for n in nodes
    ]


def test_search_nodes_carry_tabanes_score_and_citation(corpus: Any) -> None:
    retriever = TabaneSearchRetriever(corpus.svc, user=corpus.user, contexts=[corpus.context], k=3)
    nodes = retriever.retrieve(PHRASED)
    hits = corpus.svc.search(corpus.user, SearchRequest(PHRASED, (corpus.context,), limit=3)).hits
    assert [n.score for n in nodes] == [h.score for h in hits]
    best = nodes[0]
    assert best.node.metadata["source"] == "bikes.md"
    assert best.node.metadata["section"] == ["Bicycles"]
    assert best.node.node_id == f"tabane:{corpus.context}:bikes.md#0"  # stable across calls
    # an LLM sees the text and the one citation line, not the lanes and ranks
    shown = best.node.get_content(metadata_mode=MetadataMode.LLM)
    assert shown.startswith('citation: "Bicycles" (bikes.md), Bicycles, paragraph 0')
    assert "lanes" not in shown and "rack code" in shown
    assert "lanes" in best.node.get_content(metadata_mode=MetadataMode.ALL)


def test_over_http_and_async_the_nodes_are_the_local_ones(
    corpus: Any, server: tuple[str, str]
) -> None:
    url, key = server
    for kind, question in ((TabaneSearchRetriever, PHRASED), (TabaneRecallRetriever, PHRASED)):
        local = kind(corpus.svc, user=corpus.user, contexts=[corpus.context])
        remote = kind(url=url, api_key=key, contexts=[corpus.context])
        expected = _plain(local.retrieve(question))
        assert expected
        assert _plain(asyncio.run(local.aretrieve(question))) == expected
        assert _plain(remote.retrieve(question)) == expected
        assert _plain(asyncio.run(remote.aretrieve(question))) == expected


def test_recall_with_a_session_serves_its_turns_with_their_citation(
    corpus: Any, server: tuple[str, str]
) -> None:
    chat = unique("chat")
    said = "Remind me: the basement rack code is on the noticeboard by the lift."
    corpus.svc.add_turn(corpus.user, chat, said)
    url, key = server
    retriever = TabaneRecallRetriever(url=url, api_key=key, contexts=[corpus.context], session=chat)
    nodes = retriever.retrieve("Where do I find the rack code?")
    turn = next(n for n in nodes if n.node.metadata["kind"] == "turn")
    assert turn.node.get_content() == said
    assert turn.node.metadata["session"] == chat and turn.node.metadata["turn"] == 1
    assert turn.node.metadata["author"] == corpus.user.name
    assert turn.node.metadata["provenance"] == "recent session memory"
    assert [n.node.metadata["position"] for n in nodes] == list(range(1, len(nodes) + 1))
    with pytest.raises(NoSession, match=r"^no_session: "):
        TabaneRecallRetriever(
            url=url, api_key=key, contexts=[corpus.context], session=unique("none")
        ).retrieve("x y z")


def test_a_bare_context_name_is_invalid_input_not_read_letter_by_letter(corpus: Any) -> None:
    for kind in (TabaneSearchRetriever, TabaneRecallRetriever):
        with pytest.raises(InvalidInput, match=r"^invalid_input: contexts") as refused:
            kind(corpus.svc, contexts=corpus.context)
        assert [i.path for i in refused.value.issues] == ["contexts"]
