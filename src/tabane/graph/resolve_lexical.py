"""The lexical tiers of resolve: exact/alias, containment and Dice over character bigrams.

Everything runs through indexes, so a cue costs the same at 100 spellings and at 100,000:
`ix_vocabulary_key` answers exact keys (and every substring of the cue, for "a stored key inside
the cue"), and the `vocabulary_grams` inverted index (`ix_vocabulary_grams_lookup`, covering, so
RLS is checked on the index tuples) answers "a stored key containing the cue" (through the cue's
rarest bigram) and the fuzzy tier. `score_key` is the one scoring function: the candidate
statements only decide which rows to look at, and the explain twin scores its expected spelling
with the same function, so both always agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tabane.storage.schema import VocabEntry, VocabGram
from tabane.text.spelling import char_grams, containment, spelling_key

# Over-common bigrams ("stop-grams"). A bigram is over-common when more than 1/STOP_SHARE of the
# visible spellings of the kind carry it, and more than STOP_MIN of them (a small vocabulary keeps
# every bigram: there a shared gram is still evidence). Such a gram says almost nothing about
# identity (idf = ln(N/df) < ln 20 ≈ 3.0; think of 株式 and 会社 in a vocabulary of company names,
# or `er` among English identifiers), so it is excluded from both sides of Dice; and because no
# informative gram's posting list is longer than max(STOP_MIN, N/STOP_SHARE), a cue of g grams
# reads at most g·max(STOP_MIN, N/STOP_SHARE) postings. The rule is Taguru's (entry_index.rs),
# a document-frequency rule relative to the vocabulary, not a value tuned to a dev set.
# Measured by bench/resolve_latency.py (100k concepts, half camelCase identifiers, half Japanese
# names; 2 shared cores): typo cues find the intended name 94/100 times; p50 138 ms against 4.9 ms
# for an exact key. The cost is counting: the cue grams' df and the vocabulary size N are counted
# per call (Latin bigrams have df in the thousands at 100k), and the informative postings are
# aggregated. Precomputed gram statistics (df per gram and N per scope set, kept at write time
# like bm25_terms) would make `analyse` O(grams); that needs a schema change.
STOP_SHARE = 20
STOP_MIN = 64
# "A stored key inside the cue" looks every substring of the cue key up as an exact key; past
# this length a cue is a sentence, not a name, and only the other tiers apply to it.
MAX_SUBSTRING_CUE = 64


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
    kind: str  # exact | alias | containment | fuzzy


def analyse(session: Session, context_id: int, kind: str, text: str) -> Cue:
    key = spelling_key(text)
    grams = char_grams(key)
    df: dict[str, int] = dict.fromkeys(grams, 0)
    if grams:
        rows = session.execute(
            select(VocabGram.gram, func.count())
            .where(
                VocabGram.context_id == context_id,
                VocabGram.kind == kind,
                VocabGram.gram.in_(sorted(grams)),
            )
            .group_by(VocabGram.gram)
        )
        df.update({gram: int(n) for gram, n in rows})
    most = max(df.values(), default=0)
    threshold = STOP_MIN
    if most > STOP_MIN:
        # Only a gram with df > N/STOP_SHARE is over-common, so the vocabulary needs counting
        # only up to STOP_SHARE·max(df): past that no gram of this cue can be.
        cap = STOP_SHARE * most + 1
        capped = select(VocabEntry.id).where(
            VocabEntry.context_id == context_id, VocabEntry.kind == kind
        )
        n = int(session.scalar(select(func.count()).select_from(capped.limit(cap).subquery())) or 0)
        threshold = max(STOP_MIN, n // STOP_SHARE)
    stop = frozenset(g for g, n in df.items() if n > threshold)
    if stop and stop == grams:
        # Every gram is over-common: keep the rarest one, or the cue could never match fuzzily.
        rarest = min(grams, key=lambda g: (df[g], g))
        stop = stop - {rarest}
    return Cue(text, key, grams, stop, df, threshold)


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


def _rows(session: Session, stmt: Any) -> list[Any]:
    return list(session.execute(stmt))


def exact(session: Session, context_id: int, kind: str, cue: Cue) -> list[Scored]:
    """Spellings whose key is the cue's: `exact` for a canonical spelling, `alias` for an alias."""
    rows = _rows(
        session,
        select(VocabEntry.name, VocabEntry.alias_of, VocabEntry.key).where(
            VocabEntry.context_id == context_id, VocabEntry.kind == kind, VocabEntry.key == cue.key
        ),
    )
    return [
        Scored(r.name, r.alias_of or r.name, r.key, 1.0, "alias" if r.alias_of else "exact")
        for r in rows
    ]


def lexical(
    session: Session, context_id: int, kind: str, cue: Cue, floor: float, pool: int
) -> list[Scored]:
    """Containment and fuzzy candidates (no exact key among them), each scored by `score_key`;
    fuzzy ones below `floor` are left out. `pool` bounds the containment rows read per side."""
    seen: dict[tuple[str, str], Scored] = {}

    def add(name: str, alias_of: str | None, key: str) -> None:
        if (name, key) in seen or key == cue.key:
            return
        score, how = score_key(cue, key)
        if how == "fuzzy" and (score <= 0 or score < floor):
            return
        seen[(name, key)] = Scored(name, alias_of or name, key, score, how)

    v = VocabEntry
    where = (v.context_id == context_id, v.kind == kind)
    if 1 < len(cue.key) <= MAX_SUBSTRING_CUE:  # stored keys inside the cue
        subs = sorted(
            {cue.key[i:j] for i in range(len(cue.key)) for j in range(i + 1, len(cue.key) + 1)}
            - {cue.key}
        )
        for r in _rows(session, select(v.name, v.alias_of, v.key).where(*where, v.key.in_(subs))):
            add(r.name, r.alias_of, r.key)
    # Stored keys containing the cue: all of them carry the cue's rarest gram (a one-character
    # cue has no bigram to look up and scans the keys). Shortest first: they score highest.
    if len(cue.key) > 1:
        rarest = min(cue.grams, key=lambda g: (cue.df[g], g))
        g = VocabGram
        stmt = (
            select(v.name, v.alias_of, v.key)
            .join(g, g.entry_id == v.id)
            .where(g.context_id == context_id, g.kind == kind, g.gram == rarest, *where)
        )
    else:
        stmt = select(v.name, v.alias_of, v.key).where(*where)
    stmt = stmt.where(v.key.contains(cue.key, autoescape=True), v.key != cue.key)
    for r in _rows(session, stmt.order_by(func.length(v.key), v.name).limit(pool)):
        add(r.name, r.alias_of, r.key)
    if cue.informative:
        g = VocabGram
        shared = (
            select(g.entry_id, func.count().label("shared"))
            .where(g.context_id == context_id, g.kind == kind, g.gram.in_(sorted(cue.informative)))
            .group_by(g.entry_id)
            .having(func.count() >= min_shared(cue, floor))
            .subquery()
        )
        stmt = select(v.name, v.alias_of, v.key).join(shared, shared.c.entry_id == v.id)
        for r in _rows(session, stmt):
            add(r.name, r.alias_of, r.key)
    return list(seen.values())


KIND_ORDER = {"exact": 0, "alias": 1, "containment": 2, "fuzzy": 3}


def best_per_canonical(scored: Sequence[Scored]) -> list[Scored]:
    """One candidate per canonical spelling (its best spelling's score), ranked by score, then
    name; a tie between spellings of one canonical prefers exact, alias, containment, fuzzy."""
    best: dict[str, Scored] = {}
    for s in scored:
        cur = best.get(s.canonical)
        if cur is None or (-s.score, KIND_ORDER[s.kind], s.name) < (
            -cur.score,
            KIND_ORDER[cur.kind],
            cur.name,
        ):
            best[s.canonical] = s
    return sorted(best.values(), key=lambda s: (-s.score, s.canonical))
