"""Taguru's forms of the server-wide calls, the change feed, upkeep, the audits and derived
communities (decision 0027)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tabane.checks import Cue
from tabane.graph.walk.walk import MAX_DEPTH, MAX_EXPLORE
from tabane.wire.base import Request, Response
from tabane.wire.taguru import AssociationOut
from tabane.wire.taguru.sources import Epoch

# -- the server, the change feed, upkeep (decision 0027) -----------------------------------------


class Contract(Response):
    current: int
    supported: list[int]


class VersionOut(Response):
    server: str = Field(description="tabane's version")
    http_contract: Contract
    mcp_contract: Contract
    mcp_protocol: dict[str, list[str]] = Field(description="`supported`: MCP handshake versions")


class ChangeEvent(Response):
    seq: int = Field(description="the write's commit instant in microseconds: never decreases")
    kind: str = Field(description="associations_added, association_retracted, aliases_added, …")
    count: int | None = Field(None, description="associations_added, aliases_added")
    source: str | None = Field(None, description="source_stored, source_retracted")
    subject: str | None = Field(None, description="association_retracted")
    label: str | None = Field(None, description="association_retracted")
    object: str | None = Field(None, description="association_retracted")


class ChangesOut(Response):
    events: list[ChangeEvent]
    next: str = Field(description="pass back as `since`")
    more: bool = Field(description="more events are waiting: poll again at once")


class TaguruExploreIn(Request):
    origins: Cue = Field(description="concepts to walk from (resolve cues first)")
    max_depth: int = Field(MAX_DEPTH, ge=1, le=MAX_DEPTH, description="hops at most")
    limit: int = Field(1000, ge=1, le=MAX_EXPLORE, description="associations at most (nearest)")
    since: Epoch | None = Field(None, description="epoch seconds: claims valid from it")
    until: Epoch | None = Field(None, description="epoch seconds: claims valid before it")


class ExploreMatch(Response):
    distance: int = Field(description="hops from the nearest origin to the association's far end")
    path: list[str] = Field(description="concepts from the origin to the near end")
    association: AssociationOut


class ExplorePage(Response):
    total: int
    matches: list[ExploreMatch] = Field(description="nearest first; never replay order by it")


class EmbeddingsOut(Response):
    provider_model: str | None = Field(description="the embedder configured now (null: none)")
    passages: dict[str, Any] | None = Field(
        None, description="`{model, width, rows}` per model the context's vectors were made with"
    )


class RefreshOut(Response):
    embedded: int = Field(description="0: the embedding runs in the background (decision 0027)")
    total: int = Field(description="sources queued for embedding")
    model: str


class TaguruCompaction(Response):
    """Taguru's compaction answer: what tabane's compaction folded, under Taguru's names where
    they mean something here (no file image: `bytes_*` are null, `image_persisted` true)."""

    name: str
    bytes_before: None = None
    bytes_after: None = None
    dead_edges: int = Field(description="masked paragraph ids folded away")
    aliases_dropped: int = 0
    passages_compacted: int = Field(description="merged BM25 rows rewritten")
    image_persisted: bool = True


class Sweep(Response):
    contexts: list[TaguruCompaction] = Field(description="each context compacted")
    skipped: list[dict[str, str]] = Field(description="none here: a failure fails the call")
    deadline_exceeded: bool = False


# -- audits ----------------------------------------------------------------------------------------


class TaguruVocabularyIn(Request):
    dice_floor: float = Field(0.6, ge=0.0, le=1.0, description="lexical pairs at or above it")
    cosine_floor: float = Field(0.6, ge=0.0, le=1.0, description="semantic pairs at or above it")


class TwinPair(Response):
    a: str
    b: str
    score: float = Field(description="Dice (lexical) or gloss cosine (semantic)")
    distinct: bool = Field(description="recorded as different referents (tabane's)")


class VocabularyAudit(Response):
    lexical_concepts: list[TwinPair]
    lexical_labels: list[TwinPair]
    semantic_concepts: list[TwinPair]
    semantic_labels: list[TwinPair]
    semantic_note: str | None = Field(None, description="why the semantic tier did not run")


# -- derived communities ---------------------------------------------------------------------------


class TaguruCommunitySearchIn(Request):
    query: str = Field(min_length=1, description="words to find among member names and summaries")
    limit: int = Field(5, ge=1, le=100, description="communities to return")
    semantic_floor: float | None = Field(None, ge=0.0, le=1.0, description="no vector lane here")
    derived: str | None = Field(None, description="only the context itself: it holds them")


class CommunityMember(Response):
    name: str
    strength: float = Field(description="the member's |weight| in the community")


class CommunityHitOut(Response):
    community: str = Field(description="`L{level}-{ordinal}`")
    score: float = Field(description="the share of the query's terms it contains")
    text: str = Field(description="its summary")
    paragraph: int = 0
    level: int
    parent: str | None
    concept_count: int
    members: list[CommunityMember]


class CommunityHits(Response):
    derived: str = Field(description="where the communities live: the context itself")
    algorithm: str
    stale: bool = Field(description="the graph changed after the build")
    revision: dict[str, str | None] = Field(description="`{recorded_graph, current_graph}`")
    plan: dict[str, Any]
    hits: list[CommunityHitOut]
