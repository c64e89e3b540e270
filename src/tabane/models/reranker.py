"""The `Reranker` protocol and the check every score list passes before it orders anything.

A reranker scores how well each text answers a query: one finite float per text, in the order the
texts were given, higher is better. Scores are comparable within one call only (a cross-encoder's
logits, a service's relevance in [0, 1]…); callers order by them and never store them as facts.
`name` identifies the model in traces.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from tabane.errors import InvalidInput, Issue


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in input order; higher is better."""
        ...


class NoReranker:
    """The identity: scores that keep the input order (len(texts) - position)."""

    name = "none"

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        return [float(len(texts) - i) for i in range(len(texts))]


def checked_scores(
    scores: object, count: int, where: str = "rerank scores", offset: int = 0
) -> list[float]:
    """Refuse a wrong count, non-numbers, NaN and infinities; return the scores as floats.

    Issues name each bad score as `where[offset + i]` (a batch names its texts' input positions).
    """
    if not isinstance(scores, Sequence) or isinstance(scores, str | bytes):
        raise InvalidInput(f"{where} is not a list", issues=[Issue(where, type(scores).__name__)])
    if len(scores) != count:
        raise InvalidInput(
            f"{where} has the wrong length",
            issues=[Issue(where, f"expected {count} scores, got {len(scores)}")],
        )
    out: list[float] = []
    bad: list[Issue] = []
    for i, score in enumerate(scores):
        if isinstance(score, bool) or not isinstance(score, int | float):
            bad.append(Issue(f"{where}[{offset + i}]", f"not a number: {str(score)[:40]!r}"))
            continue
        try:
            value = float(score)
        except OverflowError:  # an integer beyond float's range
            value = math.inf
        if math.isfinite(value):
            out.append(value)
        else:
            bad.append(Issue(f"{where}[{offset + i}]", "NaN or infinity"))
    if bad:
        raise InvalidInput(f"{where} is not finite numbers", issues=bad[:10])
    return out
