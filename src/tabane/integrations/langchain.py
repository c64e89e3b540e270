"""LangChain retrievers over tabane (`pip install 'tabane[langchain]'`).

    from tabane.integrations.langchain import TabaneRecallRetriever, TabaneSearchRetriever

    docs = TabaneSearchRetriever(tabane=store, contexts=["handbook"]).invoke("badges")
    docs = TabaneRecallRetriever(url="http://127.0.0.1:8477", api_key="tbn_…",
                                 contexts=["handbook"]).invoke("When are badges issued?")

Each `Document` is one search hit (best first) or one recall item (the bundle's order), its
metadata the citation (passages.py lists the keys). `invoke` and `ainvoke` both work; the async
one awaits the HTTP call (or runs a local store's call in a thread).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, PrivateAttr, SecretStr, ValidationInfo, field_validator

from tabane.integrations.client import Backend, RecallOptions, SearchOptions, connect, names
from tabane.integrations.passages import Passage


class _TabaneRetriever(BaseRetriever):
    """What both retrievers share: the way in (a local `tabane`, or `url` and `api_key`) and
    what to read (`contexts`, `groups`)."""

    tabane: Any = None
    """A `tabane.Tabane` of this process (give this or `url`)."""
    user: Any = None
    """The `Principal` a local store acts for (default: its local user)."""
    url: str | None = None
    """The base URL of `tabane serve` (give this or `tabane`)."""
    api_key: SecretStr | None = None
    """An API key of `tabane keys create` (`tabane serve --auth keys`)."""
    timeout: float = 60.0
    contexts: list[str] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)

    _backend: Backend = PrivateAttr()

    @field_validator("contexts", "groups", mode="before")
    @classmethod
    def _names(cls, value: object, info: ValidationInfo) -> list[str]:
        return list(names(value, str(info.field_name)))  # a bare string: invalid_input

    def model_post_init(self, context: Any, /) -> None:
        key = self.api_key.get_secret_value() if self.api_key is not None else None
        self._backend = connect(
            self.tabane, user=self.user, url=self.url, api_key=key, timeout=self.timeout
        )


class TabaneSearchRetriever(_TabaneRetriever):
    """Paragraph search (`POST /sources/search`): the `k` best paragraphs, fused over BM25 and
    vectors, each with its lanes and score."""

    k: int = 10
    source_tags: list[str] | None = None
    """Only sources with any of these tags."""
    semantic_floor: float | None = None

    @field_validator("source_tags", mode="before")
    @classmethod
    def _tags(cls, value: object) -> list[str] | None:
        return None if value is None else list(names(value, "source_tags"))

    def _options(self) -> SearchOptions:
        tags = None if self.source_tags is None else tuple(self.source_tags)
        return SearchOptions(
            tuple(self.contexts), tuple(self.groups), self.k, tags, self.semantic_floor
        )

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return documents(self._backend.search(query, self._options()))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return documents(await self._backend.asearch(query, self._options()))


class TabaneRecallRetriever(_TabaneRetriever):
    """Recall (`POST /recall`): the budgeted, cited bundle over every lane (paragraphs, notes and
    claims, the graph, a session's turns), one `Document` per item in the bundle's order."""

    preset: str | None = None
    session: str | None = None
    """One of the user's sessions: its recent turns are working memory."""
    speaker: str | None = None
    budget: int | None = None
    force: bool = False
    semantic_floor: float | None = None

    def _options(self) -> RecallOptions:
        return RecallOptions(
            tuple(self.contexts),
            tuple(self.groups),
            preset=self.preset,
            session=self.session,
            speaker=self.speaker,
            budget=self.budget,
            force=self.force,
            semantic_floor=self.semantic_floor,
        )

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return documents(self._backend.recall(query, self._options()))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return documents(await self._backend.arecall(query, self._options()))


def documents(passages: list[Passage]) -> list[Document]:
    return [Document(page_content=p.text, metadata=p.metadata) for p in passages]
