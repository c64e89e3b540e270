"""Recall's bundle as data, for the two Taguru-shaped reads over it: `assemble_evidence` (the
items of one recall with the lanes that found them and what the budget cut) and `retrieve`
(origins resolved to anchors, then one recall, its items sorted by kind). Both only re-shape a
`RecallResult`: the order is recall's, nothing is ranked a second time."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields

from tabane.graph.resolve.resolver import Resolution
from tabane.recall.result import Evidence, LaneRank, LaneReport, RecallResult

# the kinds `retrieve` answers as associations; paragraphs are its passages; the rest `other`
GRAPH_KINDS = frozenset({"claim", "association"})
MAX_ORIGINS = 20  # a retrieve's origins, each one resolve (service/recall.py checks)


@dataclass(frozen=True)
class PackedItem(Evidence):
    """One served item of the bundle with its place: `rank` (1-based, the rendered order) and
    the lanes that found it (each lane's rank on recall's one scale and its own score)."""

    rank: int = 0
    lanes: tuple[LaneRank, ...] = ()
    fused: float = 0.0  # reciprocal rank fusion over its lanes, as the trace has it


@dataclass(frozen=True)
class EvidencePackage:
    question: str
    recall_id: int | None  # the stored trace (null: the caller may not write, nothing stored)
    items: tuple[PackedItem, ...]  # served, in the rendered order
    budget_tokens: int
    used_tokens: int
    cut: dict[str, int]  # outcome → candidates found but not served (duplicate, cut_by_budget…)
    lanes: dict[str, LaneReport]  # what every lane did (ran, hits, why not)
    seeds: tuple[str, ...]  # the concepts the walk started from
    rendered: str  # the same bundle as one prompt-ready string


@dataclass(frozen=True)
class Anchor:
    """What one origin resolved to: its best candidate (`concept`; null when none, or when
    `auto_pick` is off and the cue is used as written)."""

    origin: str
    concept: str | None
    match: str | None  # exact | alias | containment | fuzzy | semantic
    score: float | None


@dataclass(frozen=True)
class Retrieval:
    context: str
    question: str  # what recall was asked: the anchors, then the query if one was given
    anchors: tuple[Anchor, ...]
    resolved: dict[str, Resolution]  # origin → resolve's full answer (glosses, warnings)
    recall_id: int | None
    associations: tuple[PackedItem, ...]  # claims and edges, each with its citation
    passages: tuple[PackedItem, ...]  # source paragraphs
    other: tuple[PackedItem, ...]  # derived memory, session turns, catalog entries
    used_tokens: int
    cut: dict[str, int] = field(default_factory=dict)  # the recall's, as `EvidencePackage.cut`
    lanes: dict[str, LaneReport] = field(default_factory=dict)  # what every lane did


def package(result: RecallResult) -> EvidencePackage:
    """The bundle of `result` as data: each served item with its rank and lanes."""
    trace = result.trace
    found = {c.key: c for c in trace.candidates}
    items = []
    for rank, item in enumerate(result.items, 1):
        candidate = found.get(item.key)
        lanes = candidate.lanes if candidate else ()
        fused = candidate.fused if candidate else 0.0
        shared = {f.name: getattr(item, f.name) for f in fields(Evidence)}
        items.append(PackedItem(**shared, rank=rank, lanes=lanes, fused=fused))
    cut = Counter(c.outcome for c in trace.candidates if c.outcome != "served")
    return EvidencePackage(
        question=result.question,
        recall_id=result.recall_id,
        items=tuple(items),
        budget_tokens=trace.budget_tokens,
        used_tokens=trace.used_tokens,
        cut=dict(sorted(cut.items())),
        lanes=dict(trace.lanes),
        seeds=tuple(trace.seeds),
        rendered=result.rendered,
    )


def anchor(origin: str, resolution: Resolution, auto_pick: bool) -> Anchor:
    """The origin's anchor: the lexical tier's best, else the semantic tier's, else none."""
    ranked = resolution.candidates or resolution.semantic
    if not auto_pick or not ranked:
        return Anchor(origin, None, None, None)
    best = ranked[0]
    return Anchor(origin, best.name, best.kind, best.score)


def retrieval_question(anchors: tuple[Anchor, ...], query: str | None) -> str:
    """Recall's question for a retrieve: each anchor's stored spelling (the origin as written
    when none), so the walk starts there, then the caller's query."""
    names = list(dict.fromkeys(a.concept or a.origin for a in anchors))
    return " ".join([*names, query] if query else names)


def split(
    context: str,
    anchors: tuple[Anchor, ...],
    resolved: dict[str, Resolution],
    bundle: EvidencePackage,
) -> Retrieval:
    """The bundle of a retrieve, its items by kind (each part in recall's order)."""
    items = bundle.items
    return Retrieval(
        context=context,
        question=bundle.question,
        anchors=anchors,
        resolved=resolved,
        recall_id=bundle.recall_id,
        associations=tuple(i for i in items if i.kind in GRAPH_KINDS),
        passages=tuple(i for i in items if i.kind == "paragraph"),
        other=tuple(i for i in items if i.kind not in GRAPH_KINDS and i.kind != "paragraph"),
        used_tokens=bundle.used_tokens,
        cut=bundle.cut,
        lanes=bundle.lanes,
    )
