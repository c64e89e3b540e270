"""Score-share fusion and cross-context interleaving (pure functions).

`combine`: each lane's score of a paragraph as a share of that lane's best score for this query
(BM25 / the best BM25, cosine / the best cosine), averaged over the lanes asked for. A paragraph
a lane did not find gets nothing from it. A lane's winner thus keeps its lead unless the other
lane disagrees strongly; reciprocal rank fusion, used before, let paragraphs two lanes found
mid-list outrank both winners (docs/decisions/0005-score-share-fusion.md).
Ties break on the best single-lane rank, then the paragraph id, so the order is deterministic.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tabane.errors import InvalidInput, Issue

T = TypeVar("T")


@dataclass(frozen=True)
class LaneRank:
    rank: int
    score: float
    share: float = 0.0  # the score over the lane's best for this query: what fusion averaged


@dataclass(frozen=True)
class Fused:
    paragraph_id: int
    score: float
    lanes: dict[str, LaneRank]


FUSION = "score_share"


def combine(lanes: Mapping[str, Sequence[tuple[int, float]]], asked: int) -> list[Fused]:
    """Fuse ranked lists of (paragraph_id, lane score), each best first, over `asked` lanes (a
    lane asked for that found nothing counts, so one lane alone never changes its order)."""
    acc: dict[int, dict[str, LaneRank]] = {}
    shares: dict[int, float] = {}
    for name, hits in lanes.items():
        best = max((score for _, score in hits), default=0.0)
        for rank, (pid, score) in enumerate(hits, start=1):
            part = share(score, best)
            acc.setdefault(pid, {})[name] = LaneRank(rank, score, part)
            shares[pid] = shares.get(pid, 0.0) + part
    fused = [Fused(pid, shares[pid] / max(asked, 1), found) for pid, found in acc.items()]
    fused.sort(key=lambda f: (-f.score, min(lr.rank for lr in f.lanes.values()), f.paragraph_id))
    return fused


def share(score: float, best: float) -> float:
    """A lane score as a share of the lane's best (0 when nothing in the lane scored above 0)."""
    return max(score, 0.0) / best if best > 0 else 0.0


def interleave(per_context: Sequence[Sequence[T]]) -> list[T]:
    """Rank 1 of every context (in the order given), then rank 2, …: passage scores are
    corpus-local, so ranks, not scores, are compared across contexts."""
    out: list[T] = []
    depth = max((len(hits) for hits in per_context), default=0)
    for i in range(depth):
        out.extend(hits[i] for hits in per_context if i < len(hits))
    return out


def cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def offset_of(after: str | None) -> int:
    if after is None:
        return 0
    try:
        raw = base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)).decode()
        kind, _, value = raw.partition(":")
        offset = int(value)
        if kind != "o" or offset < 0:
            raise ValueError(raw)
    except ValueError:
        raise InvalidInput(
            "after is not a cursor this search returned", issues=[Issue("after", "malformed")]
        ) from None
    return offset
