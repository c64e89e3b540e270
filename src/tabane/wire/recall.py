"""The wire shapes of `POST /recall`, `POST /recall/explain` and `GET /recall/traces/{recall_id}`.

Requests are strict like every request model (unknown fields refused, so no body can name a user
or a plan). Ranges (an empty question, a budget of 0, a floor outside [-1, 1]) are checked by the
service, so every surface reports them with the same code and path. The evaluation-only `plan` of
`RecallRequest` is not on the wire: HTTP recall always runs the maximal plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.recall.presets import PresetView
from tabane.recall.result import Evidence, ScopeRef
from tabane.wire.base import Request, Response
from tabane.wire.sources import PARAGRAPH

# -- requests -----------------------------------------------------------------------------------


class RecallIn(Request):
    """A recall: the evidence for one question that you may see, budgeted, cited, rendered."""

    question: str = Field(description="the question as asked (at most 4000 characters)")
    contexts: list[str] = Field([], description="contexts to read (default: the preset's)")
    groups: list[str] = Field(
        [], description="groups to read, nested ones too (default: the preset's)"
    )
    budget: int | None = Field(
        None, description="token budget of the evidence (default: the preset's, else the server's)"
    )
    session: str | None = Field(
        None, description="one of your sessions: its recent turns are working memory"
    )
    speaker: str | None = Field(
        None,
        description="who asks, as the conversation names them: named in the bundle, not "
        "embedded; it never widens what you may see",
    )
    preset: str | None = Field(None, description="a preset of the server's presets file")
    force: bool = Field(False, description="answer even a turn the relevance gate calls trivial")
    semantic_floor: float | None = Field(
        None, description="cosine floor of the vector lanes for this call, in [-1, 1]"
    )

    def to_request(self) -> RecallRequest:
        return RecallRequest(
            question=self.question,
            contexts=tuple(self.contexts),
            groups=tuple(self.groups),
            budget=self.budget,
            session=self.session,
            speaker=self.speaker,
            preset=self.preset,
            force=self.force,
            semantic_floor=self.semantic_floor,
        )


class RecallAsk(RecallIn):
    trace: bool = Field(
        False,
        description="include the trace (lanes, ranks, scores, timings, cuts); it is stored "
        "either way and `GET /recall/traces/{recall_id}` returns it",
    )


class ExpectedIn(Request):
    """The item you expected: a source's paragraph, or a claim."""

    context: str | None = Field(
        None, description="the source's context; default: the only context read"
    )
    source: str | None = Field(None, description="the source_id (give this or `claim`)")
    paragraph: int | None = Field(
        None, description="paragraph index; null: any of the source's", json_schema_extra=PARAGRAPH
    )
    claim: int | None = Field(None, description="a claim id (give this or `source`)")

    def to_expected(self) -> Expected:
        """The expected item; a source's missing context is the one context the read (or its
        preset) reads, which the service knows."""
        return Expected(self.context, self.source, self.paragraph, self.claim)


class RecallExplainIn(RecallIn):
    expected: ExpectedIn = Field(
        description="the item you expected: `{context, source, paragraph}` or `{claim}`"
    )


# -- responses ----------------------------------------------------------------------------------


KINDS = "paragraph, claim, association, turn, catalog, area, community, profile or raptor"


class CitationOut(Response):
    context: str | None
    source: str | None = Field(description="source_id of a paragraph (or a claim's attribution)")
    paragraph: int | None
    section: list[str]
    locator: dict[str, Any] | None
    kind: str | None = Field(
        None, description="a paragraph's kind: `text`, or `code` (preformatted: show it verbatim)"
    )
    title: str | None
    claim: int | None = Field(description="the claim id of a derived memory")
    session: str | None = Field(description="the session of a recent session memory")
    turn: int | None = Field(description="the turn's sequence number in its session")


class FactOut(Response):
    context: str
    perspective: str = Field(description="a holder's key, or '' for the shared world partition")
    subject: str
    label: str
    object: str
    negated: bool = Field(description="a negative weight: the fact is denied")


class StanceOut(Response):
    kind: str = Field(
        description="the claim's epistemic kind: world, experience, observation, opinion or "
        "preference"
    )
    perspective: str = Field(description="the holder's key, or '' for the shared world")
    role: str | None = Field(description="the role its author wrote it in, if given")


class EvidenceOut(Response):
    key: str = Field(description="the item's identity in this recall and its trace, e.g. `p:12`")
    kind: str = Field(description=KINDS)
    text: str
    provenance: str = Field(
        description="`source excerpt`, `derived memory` or `recent session memory`"
    )
    citation: CitationOut
    scopes: list[ScopeRef] = Field(description="the item's scopes exactly as stored")
    author: str | None = Field(description="a turn's speaker, a claim's perspective holder")
    when: datetime | None = Field(description="when it was said or recorded, if known")
    direct: bool = Field(description="its source is named by title in the question")
    tokens: int = Field(description="the budget's estimate for this item")
    in_reply_to: str | None = Field(
        description="the question this item answers: the paragraph or turn just before it, "
        "which asks (found itself, it gave its place to this reply)"
    )
    fact: FactOut | None = Field(
        description="what it asserts, when that is only a triple (an edge, or a claim with no "
        "statement of its own); one fact is served once"
    )
    superseded_by: str | None = Field(
        default=None,
        description="an earlier statement that a later one of the same holder revises: the "
        "later one's citation (it is served right before this one)",
    )
    stance: StanceOut | None = Field(
        default=None, description="a claim's: whose view it is (kind, perspective, role)"
    )


class LaneRankOut(Response):
    lane: str
    rank: int = Field(
        description="1-based rank on the one scale of every lane and addressed context, which"
        " fusion reads"
    )
    score: float = Field(description="the lane's own score")


class LaneReportOut(Response):
    ran: bool
    hits: int = Field(description="the rows the lane found, before fusion kept `candidates`")
    reason: str | None = Field(description="why it did not run: no_embedder, no_session, …")


class CandidateOut(Response):
    key: str
    kind: str = Field(description=KINDS)
    lanes: list[LaneRankOut]
    fused: float = Field(description="reciprocal rank fusion over its lanes")
    direct: bool
    position: int = Field(description="1-based position after ordering")
    rerank: float | None = Field(description="the reranker's score, when one ran")
    outcome: str = Field(
        description="served, duplicate, cut_by_rerank, cut_by_max_items or cut_by_budget"
    )
    tokens: int
    reply_to: str | None = Field(
        description="the key of the item that asked, when this candidate is its reply"
    )
    voiced: bool = Field(
        description="said by someone the question names (a turn's speaker, a note's holder): "
        "ordered first within its group"
    )
    superseded_by: str | None = Field(
        default=None,
        description="an earlier statement a later one of the same holder revises: the later "
        "one's citation; served right after it",
    )
    newest_first: bool = Field(
        default=False,
        description="moved by the newest-first order of a question about the present ('now', "
        "'in the end'): each holder's statements among the first items, newest first",
    )


class FloorOut(Response):
    value: float | None = Field(
        description="the vector lanes' similarity floor (a hit needs cosine ≥ it); null: none"
    )
    source: str = Field(
        description="request, context (its setting) or default (TABANE_SEMANTIC_FLOOR or the "
        "model's)"
    )


class NavigationOut(Response):
    cue: str = Field(description="the phrase that read the question as navigation")
    subject: str = Field(description="what the catalog was searched for (the navigation lane)")
    facet: str | None = Field(
        description="the surface the question names: docs, settings, command, example or file"
    )


class TraceOut(Response):
    id: int | None = Field(description="the stored trace's id (null: the caller may not write)")
    plan: str
    contexts: list[str] = Field(description="the contexts read, groups expanded")
    lanes: dict[str, LaneReportOut]
    seeds: list[str] = Field(description="concepts resolved from the question (the walk's seeds)")
    gate: str | None = Field(description="why the relevance gate answered with no evidence")
    reranker: str
    budget_tokens: int
    used_tokens: int
    chars_per_token: float
    timings_ms: dict[str, float]
    candidates: list[CandidateOut]
    notes: list[str] = Field(description="what was cut or left out, and why (seeds, the cap…)")
    floors: dict[str, FloorOut] = Field(description="per context read: its floor and its source")
    caps: dict[str, int] = Field(
        description="pools and limits: pool and candidates, max_items, walk_seeds, …"
    )
    navigation: NavigationOut | None = Field(
        default=None,
        description="a question read as asking where something is written down (null: not)",
    )


class RecallOut(Response):
    question: str
    recall_id: int | None = Field(
        description="the stored trace's id (`GET /recall/traces/{recall_id}`); null when the "
        "caller may not write its personal scope (a read-only key): nothing was stored"
    )
    rendered: str = Field(description="the evidence rendered to one prompt-ready string")
    items: list[EvidenceOut] = Field(description="the evidence, in the rendered order")
    overview: str | None = Field(description="the corpus map, when the preset asks for one")
    trace: TraceOut | None = Field(description="with `trace: true`: what every lane did")


class StoredTraceOut(Response):
    id: int
    user: str = Field(description="who asked")
    question: str
    plan: str
    created_at: datetime
    trace: TraceOut


class RecallExplanationOut(Response):
    verdict: str = Field(
        description="not_visible, closed, gated, not_found, below_candidates, answered, "
        "duplicate, cut_by_rerank, cut_by_max_items, cut_by_budget or served"
    )
    detail: str
    key: str | None = Field(description="the item's key in the trace, e.g. `p:12`")
    lanes: list[LaneRankOut] = Field(description="each lane's rank for it, if any")
    position: int | None = Field(description="its position after ordering")
    fused_position: int | None
    rerank: float | None
    tokens: int | None
    budget: int | None
    used_tokens: int | None


class PresetOut(Response):
    name: str
    description: str
    contexts: list[str] = Field(description="the contexts it reads that you can see")
    groups: list[str] = Field(description="the groups it reads that you can see")
    budget: int | None = Field(description="tokens; null: the server's TABANE_RECALL_BUDGET")
    template: str | None = Field(description="its template's file name; null: the server's")
    gate: bool = Field(description="trivial turns get no evidence unless `force`")
    overview: bool = Field(description="the corpus map rides along")
    overview_chars: int


class PresetsOut(Response):
    presets: list[PresetOut]


class AskArgs(RecallIn):
    """The `recall` tool's arguments: a recall, and whether to return the items too."""

    items: Annotated[
        bool,
        Field(description="Also return the evidence as structured items (text, citation, scopes)."),
    ] = False


class TraceArgs(Request):
    # no range: an id that cannot exist is unknown (`no_trace`), as over HTTP
    recall_id: Annotated[int, Field(description="The `recall_id` a `recall` returned.")]


@dataclass(frozen=True)
class RecallAnswer:
    recall_id: int | None  # the stored trace's id; None when you may not write (nothing stored)
    rendered: str  # the evidence, rendered to one prompt-ready string
    items: list[Evidence] | None = None  # with `items: true`


@dataclass(frozen=True)
class PresetList:
    presets: list[PresetView]


class VerifyIn(Request):
    """An answer checked against one of your recalls: its citations and its quotes."""

    recall_id: int = Field(description="the `recall_id` the answer was written from")
    answer: str = Field(
        description='the answer text, citing as the bundle prints (`"Title" (source_id), '
        'paragraph N` or `[N]`) and quoting with "…", “…” or 「…」 (at most 100000 characters)'
    )


class CitedOut(Response):
    text: str = Field(description="the citation as written")
    source: str | None = Field(description="its source_id (null: an item number of no paragraph)")
    paragraph: int | None
    verdict: str = Field(description="surfaced, unsurfaced_known or unknown")
    index: int | None = Field(description="an item number `[N]`: the recall's Nth served item")


class QuotedOut(Response):
    text: str = Field(description="the quoted span, without its marks")
    source: str | None = Field(description="the citation it was checked against; null: served")
    paragraph: int | None
    verdict: str = Field(description="quote, paraphrase or drifted")
    overlap: float = Field(description="share of its distinct words in the paragraph")


class VerifyOut(Response):
    recall_id: int
    citations: list[CitedOut]
    quotes: list[QuotedOut]
