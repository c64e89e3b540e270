"""What recall returns: a typed `RecallResult` whose evidence items carry their text, public
provenance, citation and exact scope objects, and a `RecallTrace` that says what every lane did.

Lane names and scores live only in the trace; the rendered prompt (render.py) sees items.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from tabane.recall.navigation import Navigation

# The public provenance of an evidence item: what a reader of the prompt may be told.
Provenance = Literal["source excerpt", "derived memory", "recent session memory"]
PROVENANCES: tuple[Provenance, ...] = ("source excerpt", "derived memory", "recent session memory")

# What an evidence item is, internally (the trace and explain use it; the prompt does not).
Kind = Literal[
    "paragraph", "claim", "association", "turn", "catalog", "area", "community", "profile", "raptor"
]

# What happened to a candidate after the statement found it.
# `cut_by_rerank`: past `max_items` after the reranker ordered; `cut_by_max_items`: past it in
# the fused order (no reranker, or one that failed); `unsupported`: it says what the question
# asks of someone other than whom it asks about, and nothing says it of them (support.py).
Outcome = Literal[
    "served", "duplicate", "cut_by_rerank", "cut_by_max_items", "cut_by_budget", "unsupported"
]


@dataclass(frozen=True)
class ScopeRef:
    """A scope exactly as stored: its name and description."""

    name: str
    description: str


@dataclass(frozen=True)
class Citation:
    """Where an item comes from. Paragraphs fill source/paragraph/section/locator/title; claims
    fill claim (and source/paragraph when attributed); turns fill session/turn."""

    context: str | None = None
    source: str | None = None
    paragraph: int | None = None
    section: tuple[str, ...] = ()
    locator: dict[str, Any] | None = None
    kind: str | None = None  # a paragraph's: "text", or "code" (preformatted: show it verbatim)
    title: str | None = None
    claim: int | None = None
    session: str | None = None
    turn: int | None = None


@dataclass(frozen=True)
class Fact:
    """What an edge, or a claim that only states its triple, asserts: one fact is served once."""

    context: str
    perspective: str  # a holder's key, or "" for the shared world partition
    subject: str
    label: str
    object: str
    negated: bool  # a negative weight: "not"


@dataclass(frozen=True)
class Stance:
    """Whose view a claim is: its epistemic kind (`world`, or the personal `experience`,
    `observation`, `opinion`, `preference`), its perspective key ('' for the shared world,
    else the holder's) and the role its author wrote it in."""

    kind: str
    perspective: str
    role: str | None = None


@dataclass(frozen=True)
class Evidence:
    # identity inside one recall: "p:<id>", "c:", "a:", "t:", "s:" (catalog), "g:" (area: its
    # smallest source id), "m:" (community), "f:" (profile), "r:" (RAPTOR overview)
    key: str
    kind: Kind
    text: str
    provenance: Provenance
    citation: Citation
    scopes: tuple[ScopeRef, ...]
    author: str | None = None  # the speaker of a turn, the holder of a claim's perspective
    when: datetime | None = None  # when it was said or recorded, if known
    direct: bool = False  # its source is named by title in the question
    tokens: int = 0  # the budget's estimate for this item
    in_reply_to: str | None = None  # the question just before it, which it answers
    # what it asserts, when that is only a triple (an edge, or a claim without a statement of
    # its own)
    fact: Fact | None = None
    # an earlier statement that a later one of the same holder revises: the later one's
    # citation (current.py); it is served right after that one
    superseded_by: str | None = None
    stance: Stance | None = None  # a claim's: whose view it is


@dataclass(frozen=True)
class LaneRank:
    lane: str
    rank: int  # 1-based, on the one scale of every lane and context (recall/scale.py)
    score: float


@dataclass(frozen=True)
class CandidateTrace:
    key: str
    kind: Kind
    lanes: tuple[LaneRank, ...]
    fused: float  # reciprocal rank fusion over its lanes
    direct: bool
    position: int  # 1-based position after ordering (direct first, rerank, voiced first)
    rerank: float | None  # the reranker's score, when one ran
    outcome: Outcome
    tokens: int
    reply_to: str | None = None  # the key of the item that asked, when this is its reply
    voiced: bool = False  # said by someone the question names: first within its group
    superseded_by: str | None = None  # the citation of the later statement that revises it
    # moved by the newest-first order of a question about the present (current.py)
    newest_first: bool = False


@dataclass(frozen=True)
class LaneReport:
    ran: bool
    hits: int = 0
    reason: str | None = None  # why it did not run (no_embedder, no_session, …)


@dataclass(frozen=True)
class Floor:
    """The vector lanes' similarity floor in one context, and what set it."""

    value: float | None  # a hit's cosine similarity is at least this; None: no floor
    source: str  # request, context (its setting), or default (TABANE_SEMANTIC_FLOOR or the model's)


@dataclass(frozen=True)
class RecallTrace:
    plan: str
    contexts: tuple[str, ...]
    lanes: dict[str, LaneReport]
    seeds: tuple[str, ...]  # concepts resolved from the question (the walk's seeds)
    gate: str | None  # why the relevance gate answered with no evidence, if it did
    reranker: str
    budget_tokens: int
    used_tokens: int
    chars_per_token: float
    timings_ms: dict[str, float]
    candidates: tuple[CandidateTrace, ...]
    notes: tuple[str, ...] = ()
    floors: dict[str, Floor] = field(default_factory=dict)  # per context read
    caps: dict[str, int] = field(default_factory=dict)  # the pools and limits (plan.py `caps`)
    navigation: Navigation | None = None  # the question read as navigation (navigation.py)
    id: int | None = None  # the persisted trace's id


@dataclass(frozen=True)
class RecallResult:
    question: str
    items: tuple[Evidence, ...]
    rendered: str
    trace: RecallTrace
    overview: str | None = None  # the corpus map block, when the preset asks for one
    extras: dict[str, Any] = field(default_factory=dict)
    # "Nothing remembered says 'tortoise' of Ann.": nothing served says what the question asks
    # of whom it asks it (support.py); None when something does, or it asks of nobody
    unsupported: str | None = None

    @property
    def recall_id(self) -> int | None:
        return self.trace.id
