"""The two ways a retriever reaches tabane: a `Tabane` opened in this process, or `tabane serve`
over its HTTP API (`POST /sources/search`, `POST /recall`) with an API key. Both answer the same
`Passage`s (passages.py); both raise tabane's own errors, an HTTP one rebuilt from the error
body with its stable code leading the message (`no_context: no context 'x'`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from tabane.errors import (
    InvalidInput,
    Issue,
    StoreUnavailable,
    TabaneError,
    WaitSaid,
    all_error_classes,
)
from tabane.integrations.passages import Passage, plain, recall_passages, search_passages
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.search.plan import SearchRequest

if TYPE_CHECKING:
    from tabane.service import Tabane


@dataclass(frozen=True)
class SearchOptions:
    """`POST /sources/search`'s fields besides the query."""

    contexts: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    limit: int = 10
    tags: tuple[str, ...] | None = None
    semantic_floor: float | None = None

    def request(self, query: str) -> SearchRequest:
        return SearchRequest(
            query,
            self.contexts,
            self.groups,
            limit=self.limit,
            tags=self.tags,
            semantic_floor=self.semantic_floor,
        )

    def body(self, query: str) -> dict[str, Any]:
        body = plain(self) | {"query": query}
        return {k: v for k, v in body.items() if v is not None}


@dataclass(frozen=True)
class RecallOptions:
    """`POST /recall`'s fields besides the question (None: the preset's or the server's)."""

    contexts: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    preset: str | None = None
    session: str | None = None
    speaker: str | None = None
    budget: int | None = None
    force: bool = False
    semantic_floor: float | None = None

    def request(self, question: str) -> RecallRequest:
        return RecallRequest(
            question,
            self.contexts,
            self.groups,
            budget=self.budget,
            session=self.session,
            speaker=self.speaker,
            preset=self.preset,
            force=self.force,
            semantic_floor=self.semantic_floor,
        )

    def body(self, question: str) -> dict[str, Any]:
        body = plain(self) | {"question": question, "trace": True}  # the trace: lanes, scores
        return {k: v for k, v in body.items() if v is not None}


class Backend(Protocol):
    def search(self, query: str, options: SearchOptions) -> list[Passage]: ...
    async def asearch(self, query: str, options: SearchOptions) -> list[Passage]: ...
    def recall(self, question: str, options: RecallOptions) -> list[Passage]: ...
    async def arecall(self, question: str, options: RecallOptions) -> list[Passage]: ...


class LocalBackend:
    """A `Tabane` of this process, acting for `user` (default: the store's local user)."""

    def __init__(self, tabane: Tabane, user: Principal | None = None) -> None:
        self.tabane = tabane
        self._user = user

    @property
    def user(self) -> Principal:
        if self._user is None:
            self._user = self.tabane.local_user()
        return self._user

    def search(self, query: str, options: SearchOptions) -> list[Passage]:
        result = self.tabane.search(self.user, options.request(query))
        return search_passages(plain(result.hits))

    def recall(self, question: str, options: RecallOptions) -> list[Passage]:
        result = self.tabane.recall(self.user, options.request(question))
        body = {"items": plain(result.items), "recall_id": result.recall_id}
        return recall_passages(body | {"trace": plain(result.trace)})

    async def asearch(self, query: str, options: SearchOptions) -> list[Passage]:
        return await asyncio.to_thread(self.search, query, options)

    async def arecall(self, question: str, options: RecallOptions) -> list[Passage]:
        return await asyncio.to_thread(self.recall, question, options)


class HttpBackend:
    """`tabane serve` at `url`, as the user whose API key is `api_key` (None: a loopback server
    without authentication acts for its local user)."""

    def __init__(self, url: str, api_key: str | None = None, *, timeout: float = 60.0) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InvalidInput(
                f"invalid_input: {url!r} is not an http(s) URL", issues=[Issue("url", "not a URL")]
            )
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout

    def search(self, query: str, options: SearchOptions) -> list[Passage]:
        return search_passages(self._post("/sources/search", options.body(query))["hits"])

    def recall(self, question: str, options: RecallOptions) -> list[Passage]:
        return recall_passages(self._post("/recall", options.body(question)))

    async def asearch(self, query: str, options: SearchOptions) -> list[Passage]:
        body = await self._apost("/sources/search", options.body(query))
        return search_passages(body["hits"])

    async def arecall(self, question: str, options: RecallOptions) -> list[Passage]:
        return recall_passages(await self._apost("/recall", options.body(question)))

    def _post(self, path: str, body: Mapping[str, Any]) -> Any:
        try:
            with httpx.Client(headers=self.headers, timeout=self.timeout) as client:
                response = client.post(self.url + path, json=body)
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        return answer(response)

    async def _apost(self, path: str, body: Mapping[str, Any]) -> Any:
        try:
            async with httpx.AsyncClient(headers=self.headers, timeout=self.timeout) as client:
                response = await client.post(self.url + path, json=body)
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from exc
        return answer(response)

    def _unreachable(self, exc: Exception) -> StoreUnavailable:
        return StoreUnavailable(f"store_unavailable: {self.url} did not answer ({exc})")


def names(value: object, field: str) -> tuple[str, ...]:
    """A list of context or group names; a bare string would be read letter by letter."""
    if isinstance(value, (list, tuple)) and all(isinstance(n, str) for n in value):
        return tuple(value)
    raise InvalidInput(
        f"invalid_input: {field} is a list of names", issues=[Issue(field, "a list of names")]
    )


def connect(
    tabane: Tabane | None = None,
    *,
    user: Principal | None = None,
    url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
) -> Backend:
    """A local backend over `tabane`, or an HTTP one over `url`: exactly one of the two."""
    if (tabane is None) == (url is None):
        raise InvalidInput(
            "invalid_input: give a Tabane or a url, not both and not neither",
            issues=[Issue("tabane", "exactly one of tabane, url")],
        )
    if tabane is not None:
        return LocalBackend(tabane, user)
    assert url is not None
    return HttpBackend(url, api_key, timeout=timeout)


_BY_CODE: dict[str, type[TabaneError]] = {cls.code: cls for cls in all_error_classes()}


def answer(response: httpx.Response) -> Any:
    """The body of a 2xx response, else the tabane error its error body names."""
    if response.is_success:
        return response.json()
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, message, error = "http_error", f"HTTP {response.status_code}", {}
    issues = [Issue(str(i.get("path")), str(i.get("problem"))) for i in error.get("issues", [])]
    cls = _BY_CODE.get(code, TabaneError)
    text = f"{code}: {message}"
    written = str(error.get("written", "nothing"))
    exc: TabaneError
    if issubclass(cls, WaitSaid):
        wait = response.headers.get("retry-after", "1")
        exc = cls(text, retry_after=int(wait) if wait.isdigit() else 1, issues=issues)
    else:
        exc = cls(text, issues=issues, written=written)
    if exc.code != code:  # a code this version does not know keeps its name and status
        exc.code, exc.status = code, response.status_code
    raise exc
