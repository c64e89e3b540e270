"""The wire shapes of `POST /recall`, `POST /recall/explain` and `GET /recall/traces/{recall_id}`.

Requests are strict like every request model (unknown fields refused, so no body can name a user
or a plan). Ranges (an empty question, a budget of 0, a floor outside [-1, 1]) are checked by the
service, so every surface reports them with the same code and path. The evaluation-only `plan` of
`RecallRequest` is not on the wire: HTTP recall always runs the maximal plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import Field

from tabane.recall.explain import Expected, Explanation
from tabane.recall.plan import RecallRequest
from tabane.recall.presets import PresetView
from tabane.recall.result import (
    CandidateTrace,
    Citation,
    Evidence,
    Fact,
    Floor,
    LaneRank,
    LaneReport,
    Stance,
)
from tabane.recall.verify import CitedVerdict, QuotedVerdict, Verification
from tabane.wire.base import Request, Response, served
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


@served(
    Citation,
    {
        "source": "source_id of a paragraph (or a claim's attribution)",
        "kind": "a paragraph's kind: `text`, or `code` (preformatted: show it verbatim)",
        "claim": "the claim id of a derived memory",
        "session": "the session of a recent session memory",
        "turn": "the turn's sequence number in its session",
    },
    defaults=("kind",),
)
class CitationOut(Response):
    pass


@served(
    Fact,
    {
        "perspective": "a holder's key, or '' for the shared world partition",
        "negated": "a negative weight: the fact is denied",
    },
)
class FactOut(Response):
    pass


@served(
    Stance,
    {
        "kind": "the claim's epistemic kind: world, experience, observation, opinion or preference",
        "perspective": "the holder's key, or '' for the shared world",
        "role": "the role its author wrote it in, if given",
    },
)
class StanceOut(Response):
    pass


@served(
    Evidence,
    {
        "key": "the item's identity in this recall and its trace, e.g. `p:12`",
        "kind": KINDS,
        "provenance": "`source excerpt`, `derived memory` or `recent session memory`",
        "scopes": "the item's scopes exactly as stored",
        "author": "a turn's speaker, a claim's perspective holder",
        "when": "when it was said or recorded, if known",
        "direct": "its source is named by title in the question",
        "tokens": "the budget's estimate for this item",
        "in_reply_to": "the question this item answers: the paragraph or turn just before it, "
        "which asks (found itself, it gave its place to this reply)",
        "fact": "what it asserts, when that is only a triple (an edge, or a claim with no "
        "statement of its own); one fact is served once",
        "superseded_by": "an earlier statement that a later one of the same holder revises: the "
        "later one's citation (it is served right before this one)",
        "stance": "a claim's: whose view it is (kind, perspective, role)",
    },
    defaults=("superseded_by", "stance"),
)
class EvidenceOut(Response):
    kind: str
    provenance: str
    citation: CitationOut
    fact: FactOut | None
    stance: StanceOut | None


@served(
    LaneRank,
    {
        "rank": "1-based rank on the one scale of every lane and addressed context, which fusion "
        "reads",
        "score": "the lane's own score",
    },
)
class LaneRankOut(Response):
    pass


@served(
    LaneReport,
    {
        "hits": "the rows the lane found, before fusion kept `candidates`",
        "reason": "why it did not run: no_embedder, no_session, …",
    },
)
class LaneReportOut(Response):
    pass


@served(
    CandidateTrace,
    {
        "kind": KINDS,
        "fused": "reciprocal rank fusion over its lanes",
        "position": "1-based position after ordering",
        "rerank": "the reranker's score, when one ran",
        "outcome": "served, duplicate, cut_by_rerank, cut_by_max_items, cut_by_budget or "
        "unsupported",
        "reply_to": "the key of the item that asked, when this candidate is its reply",
        "voiced": "said by someone the question names (a turn's speaker, a note's holder): "
        "ordered first within its group",
        "superseded_by": "an earlier statement a later one of the same holder revises: the later "
        "one's citation; served right after it",
        "newest_first": "moved by the newest-first order of a question about the present ('now', "
        "'in the end'): each holder's statements among the first items, newest "
        "first",
    },
    defaults=("superseded_by", "newest_first"),
)
class CandidateOut(Response):
    kind: str
    lanes: list[LaneRankOut]
    outcome: str


@served(
    Floor,
    {
        "value": "the vector lanes' similarity floor (a hit needs cosine ≥ it); null: none",
        "source": "request, context (its setting) or default (TABANE_SEMANTIC_FLOOR or the "
        "model's)",
    },
)
class FloorOut(Response):
    pass


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
    unsupported: str | None = Field(
        None,
        description="when the question asks something of someone and no item says it of them: "
        "the bundle's line that says so (\"Nothing remembered says 'tortoise' of Ann.\")",
    )
    trace: TraceOut | None = Field(description="with `trace: true`: what every lane did")


class StoredTraceOut(Response):
    id: int
    user: str = Field(description="who asked")
    question: str
    plan: str
    created_at: datetime
    trace: TraceOut


@served(
    Explanation,
    {
        "verdict": "not_visible, closed, gated, not_found, below_candidates, answered, duplicate,"
        " cut_by_rerank, cut_by_max_items, cut_by_budget, unsupported or served",
        "key": "the item's key in the trace, e.g. `p:12`",
        "lanes": "each lane's rank for it, if any",
        "position": "its position after ordering",
    },
)
class RecallExplanationOut(Response):
    lanes: list[LaneRankOut]


@served(
    PresetView,
    {
        "contexts": "the contexts it reads that you can see",
        "groups": "the groups it reads that you can see",
        "budget": "tokens; null: the server's TABANE_RECALL_BUDGET",
        "template": "its template's file name; null: the server's",
        "gate": "trivial turns get no evidence unless `force`",
        "overview": "the corpus map rides along",
    },
)
class PresetOut(Response):
    pass


@dataclass(frozen=True)
class PresetList:
    presets: list[PresetView]


@served(PresetList)
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


class VerifyIn(Request):
    """An answer checked against one of your recalls: its citations and its quotes."""

    recall_id: int = Field(description="the `recall_id` the answer was written from")
    answer: str = Field(
        description='the answer text, citing as the bundle prints (`"Title" (source_id), '
        'paragraph N` or `[N]`) and quoting with "…", “…” or 「…」 (at most 100000 characters)'
    )


@served(
    CitedVerdict,
    {
        "text": "the citation as written",
        "source": "its source_id (null: an item number of no paragraph)",
        "verdict": "surfaced, unsurfaced_known or unknown",
        "index": "an item number `[N]`: the recall's Nth served item",
    },
)
class CitedOut(Response):
    verdict: str


@served(
    QuotedVerdict,
    {
        "text": "the quoted span, without its marks",
        "source": "the citation it was checked against; null: served",
        "verdict": "quote, paraphrase or drifted",
        "overlap": "share of its distinct words in the paragraph",
    },
)
class QuotedOut(Response):
    verdict: str


@served(Verification)
class VerifyOut(Response):
    citations: list[CitedOut]
    quotes: list[QuotedOut]
