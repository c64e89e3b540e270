"""Document-level retrieval metrics (shared/eval/README.md), as pure functions.

A ranked list of paragraphs maps to a ranked list of documents by first occurrence (a document's
rank is the rank of its best paragraph). Grades: 2 answers, 1 answers part, absent = 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Grades = Mapping[str, int]


def documents(paragraph_docs: Iterable[str]) -> list[str]:
    """The duplicate-free document ranking: each document at the rank of its first paragraph."""
    seen: set[str] = set()
    out: list[str] = []
    for doc in paragraph_docs:
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def section_key(source: str, locator: Mapping[str, object] | None) -> str:
    """A paragraph's section as the DocBook sets name it: `<file>#<anchor>` (`<file>#` before
    the first anchored heading)."""
    anchor = locator.get("value") if locator and locator.get("kind") == "anchor" else ""
    return f"{source}#{anchor}"


def section_ndcg(ranking: Sequence[str], section: str, k: int = 10) -> float:
    """nDCG@k of a section ranking (first occurrence) with one relevant section: 1/log2(r + 1)
    at its rank r ≤ k, else 0."""
    for i, key in enumerate(ranking[:k]):
        if key == section:
            return 1.0 / math.log2(i + 2)
    return 0.0


def mean_of(values: Iterable[float | None]) -> float | None:
    """The mean of the values given (None when there are none)."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _gain(grade: int) -> float:
    return float(2**grade - 1)


def dcg(grades: Sequence[int], k: int = 10) -> float:
    return sum(_gain(g) / math.log2(i + 2) for i, g in enumerate(grades[:k]))


def ndcg(ranking: Sequence[str], relevant: Grades, k: int = 10) -> float:
    """DCG@k of the ranking over the DCG@k of the question's grades sorted decreasing."""
    ideal = dcg(sorted(relevant.values(), reverse=True), k)
    if ideal <= 0:  # no graded page (a set's loader refuses negative grades)
        return 0.0
    return dcg([relevant.get(d, 0) for d in ranking], k) / ideal


def recall(ranking: Sequence[str], relevant: Grades, k: int) -> float:
    """Share of the documents graded ≥ 1 among the first k."""
    wanted = {d for d, g in relevant.items() if g >= 1}
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranking[:k])) / len(wanted)


def mrr(ranking: Sequence[str], relevant: Grades, k: int = 10) -> float:
    """1 / rank of the first document graded ≥ 1 among the first k; 0 if none."""
    for i, d in enumerate(ranking[:k], start=1):
        if relevant.get(d, 0) >= 1:
            return 1.0 / i
    return 0.0


@dataclass(frozen=True)
class Scores:
    ndcg10: float
    recall5: float
    recall10: float
    mrr10: float

    @classmethod
    def of(cls, ranking: Sequence[str], relevant: Grades) -> Scores:
        return cls(
            ndcg(ranking, relevant, 10),
            recall(ranking, relevant, 5),
            recall(ranking, relevant, 10),
            mrr(ranking, relevant, 10),
        )

    @classmethod
    def mean(cls, rows: Sequence[Scores]) -> Scores:
        n = len(rows)
        if n == 0:
            return cls(0.0, 0.0, 0.0, 0.0)
        return cls(
            sum(r.ndcg10 for r in rows) / n,
            sum(r.recall5 for r in rows) / n,
            sum(r.recall10 for r in rows) / n,
            sum(r.mrr10 for r in rows) / n,
        )
