"""resolve's scoring, pure: a cue analysed against a vocabulary, and the one scoring function.

`score_key` decides every lexical score; the candidate statements (graph/resolve/sql.py) only
decide which stored keys to look at, and the explain twin scores its expected spelling with the
same function, so both always agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tabane.text.spelling import char_grams, containment
from tabane.text.tokenize import normalize


@dataclass(frozen=True)
class Cue:
    """A cue analysed against one vocabulary (context and kind) as the caller sees it."""

    text: str
    key: str
    grams: frozenset[str]
    stop: frozenset[str]  # the cue's over-common grams, excluded from both sides of Dice
    df: dict[str, int]  # document frequency of each of the cue's grams
    threshold: int  # a gram is over-common above this many spellings

    @property
    def informative(self) -> frozenset[str]:
        return self.grams - self.stop


@dataclass(frozen=True)
class Scored:
    """One stored spelling's score against a cue (`name` is the spelling, `canonical` what it
    resolves to)."""

    name: str
    canonical: str
    key: str
    score: float
    kind: str  # exact | alias | variant | reading | romanisation | acronym | containment | fuzzy


def dice_informative(cue: Cue, key: str) -> float:
    """Dice over the informative grams: the cue's over-common grams leave both sides."""
    a = cue.informative
    b = char_grams(key) - cue.stop
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def score_key(cue: Cue, key: str) -> tuple[float, str]:
    """(score, kind) of a stored key: exact 1.0, else containment (shorter/longer), else Dice
    over informative bigrams (kind `fuzzy`; 0.0 when nothing is shared)."""
    if key == cue.key:
        return 1.0, "exact"
    inside = containment(cue.key, key)
    if inside > 0:
        return inside, "containment"
    return dice_informative(cue, key), "fuzzy"


def min_shared(cue: Cue, floor: float) -> int:
    """The fewest informative grams a spelling must share with the cue to reach Dice ≥ floor:
    2s/(a+b) ≥ t with s ≤ b gives s ≥ t·a/(2−t)."""
    a = len(cue.informative)
    if floor <= 0 or a == 0:
        return 1
    need = floor * a / (2 - floor)
    return max(1, math.ceil(need - 1e-9))


KIND_ORDER = {
    "exact": 0,
    "alias": 1,
    "variant": 2,
    "reading": 3,
    "romanisation": 3,
    "acronym": 3,
    "containment": 4,
    "fuzzy": 5,
}


def tie_order(s: Scored, cue_text: str) -> tuple[float, int, int, str]:
    """How resolve ranks: score, then match kind (exact, alias, variant, a reading, containment,
    fuzzy),
    then the spelling — the cue's own spelling verbatim, then its case-folded form (a case
    twin), then any other spelling of the key (an identifier form), each group by name. Only an
    exact or alias match can share the cue's folded form (else their keys would be equal)."""
    if s.name == cue_text:
        closeness = 0
    elif s.kind in ("exact", "alias") and normalize(s.name) == normalize(cue_text):
        closeness = 1
    else:
        closeness = 2
    return (-s.score, KIND_ORDER[s.kind], closeness, s.name)


def best_per_canonical(scored: Sequence[Scored], cue_text: str) -> list[Scored]:
    """One candidate per canonical spelling (its best spelling by `tie_order`), ranked by
    `tie_order` up to the spelling, then by canonical name."""
    best: dict[str, tuple[tuple[float, int, int, str], Scored]] = {}
    for s in scored:
        order = tie_order(s, cue_text)
        cur = best.get(s.canonical)
        if cur is None or order < cur[0]:
            best[s.canonical] = (order, s)
    ranked = sorted(best.values(), key=lambda pair: (*pair[0][:3], pair[1].canonical))
    return [s for _, s in ranked]
