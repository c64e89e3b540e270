"""LlamaIndex retrievers over tabane (`pip install 'tabane[llamaindex]'`).

    from tabane.integrations.llamaindex import TabaneRecallRetriever, TabaneSearchRetriever

    nodes = TabaneSearchRetriever(store, contexts=["handbook"]).retrieve("badges")
    nodes = TabaneRecallRetriever(url="http://127.0.0.1:8477", api_key="tbn_…",
                                  contexts=["handbook"]).retrieve("When are badges issued?")

Each `NodeWithScore` is one search hit (best first) or one recall item (the bundle's order):
a `TextNode` whose metadata is the citation (passages.py lists the keys) and whose score is
tabane's. Only the `citation` line reaches an LLM's or an embedder's view of the node's
metadata; the rest is for the program. `retrieve` and `aretrieve` both work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from tabane.integrations.client import Backend, RecallOptions, SearchOptions, connect, names
from tabane.integrations.passages import Passage
from tabane.principal import Principal

if TYPE_CHECKING:
    from tabane.service import Tabane

SHOWN = "citation"  # the one metadata key an LLM or an embedder sees with the text


class _TabaneRetriever(BaseRetriever):
    def __init__(
        self,
        tabane: Tabane | None = None,
        *,
        user: Principal | None = None,
        url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        **kwargs: Any,
    ) -> None:
        self.backend: Backend = connect(
            tabane, user=user, url=url, api_key=api_key, timeout=timeout
        )
        super().__init__(**kwargs)


class TabaneSearchRetriever(_TabaneRetriever):
    """Paragraph search (`POST /sources/search`): the `k` best paragraphs of `contexts` and
    `groups`, fused over BM25 and vectors."""

    def __init__(
        self,
        tabane: Tabane | None = None,
        *,
        contexts: Sequence[str] = (),
        groups: Sequence[str] = (),
        k: int = 10,
        source_tags: Sequence[str] | None = None,
        semantic_floor: float | None = None,
        **kwargs: Any,
    ) -> None:
        tags = None if source_tags is None else names(source_tags, "source_tags")
        self.options = SearchOptions(
            names(contexts, "contexts"), names(groups, "groups"), k, tags, semantic_floor
        )
        super().__init__(tabane, **kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return nodes(self.backend.search(query_bundle.query_str, self.options))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return nodes(await self.backend.asearch(query_bundle.query_str, self.options))


class TabaneRecallRetriever(_TabaneRetriever):
    """Recall (`POST /recall`): the budgeted, cited bundle over every lane, one node per item
    in the bundle's order."""

    def __init__(
        self,
        tabane: Tabane | None = None,
        *,
        contexts: Sequence[str] = (),
        groups: Sequence[str] = (),
        preset: str | None = None,
        session: str | None = None,
        speaker: str | None = None,
        budget: int | None = None,
        force: bool = False,
        semantic_floor: float | None = None,
        **kwargs: Any,
    ) -> None:
        self.options = RecallOptions(
            names(contexts, "contexts"),
            names(groups, "groups"),
            preset,
            session,
            speaker,
            budget,
            force,
            semantic_floor,
        )
        super().__init__(tabane, **kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return nodes(self.backend.recall(query_bundle.query_str, self.options))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return nodes(await self.backend.arecall(query_bundle.query_str, self.options))


def nodes(passages: list[Passage]) -> list[NodeWithScore]:
    out = []
    for p in passages:
        meta = p.metadata
        hidden = [k for k in meta if k != SHOWN]
        node = TextNode(
            id_=_node_id(meta),
            text=p.text,
            metadata=meta,
            excluded_llm_metadata_keys=hidden,
            excluded_embed_metadata_keys=hidden,
        )
        out.append(NodeWithScore(node=node, score=p.score))
    return out


def _node_id(meta: dict[str, Any]) -> str:
    """Stable across calls for the same paragraph (or claim, or turn)."""
    if meta.get("source") is not None and meta.get("paragraph") is not None:
        return f"tabane:{meta['context']}:{meta['source']}#{meta['paragraph']}"
    return f"tabane:{meta.get('context')}:{meta.get('key')}"
