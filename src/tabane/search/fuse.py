"""Reciprocal rank fusion and cross-context interleaving (pure functions).

A paragraph at rank r of a lane adds 1/(k + r); a paragraph two lanes found gets both. Ties break
on the best single-lane rank, then the paragraph id, so the order is deterministic.
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


@dataclass(frozen=True)
class Fused:
    paragraph_id: int
    score: float
    lanes: dict[str, LaneRank]


def rrf(lanes: Mapping[str, Sequence[tuple[int, float]]], k: int) -> list[Fused]:
    """Fuse ranked lists of (paragraph_id, lane score), each best first."""
    acc: dict[int, dict[str, LaneRank]] = {}
    for name, hits in lanes.items():
        for rank, (pid, score) in enumerate(hits, start=1):
            acc.setdefault(pid, {})[name] = LaneRank(rank, score)
    fused = [
        Fused(pid, sum(1.0 / (k + lr.rank) for lr in found.values()), found)
        for pid, found in acc.items()
    ]
    fused.sort(key=lambda f: (-f.score, min(lr.rank for lr in f.lanes.values()), f.paragraph_id))
    return fused


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
