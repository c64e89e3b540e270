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

from sqlalchemy import Float, func, literal, select
from sqlalchemy.orm import Session

from tabane.graph import vocabulary_stats
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
# The df of each cue gram and the vocabulary size N come from statistics kept at write time
# (graph/vocabulary_stats.py: per context, kind and scope set, summed over what the caller sees),
# so `analyse` is a handful of index lookups; the fuzzy tier aggregates only the informative
# grams' postings and reads only the spellings whose Dice bound reaches the floor
# (`fuzzy_candidates`). Measured by bench/resolve_latency.py (100k concepts, half camelCase
# identifiers, half Japanese names; 2 shared cores): typo cue p50 was 138 ms with live counting;
# see docs/benchmarks.md for the current numbers. What remains is inherent to the floor: a Latin
# typo shares a word with ~1,000 identifiers above Dice 0.3, and all of them are scored.
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
    """The cue's key and bigrams, and which of them are over-common for this caller: the df of
    each gram and the vocabulary size N come from the statistics kept at write time
    (graph/vocabulary_stats.py), summed over the scope sets the caller can see."""
    key = spelling_key(text)
    grams = char_grams(key)
    freq = vocabulary_stats.frequencies(session, context_id, kind, grams)
    df = freq.df
    threshold = max(STOP_MIN, freq.entries // STOP_SHARE)
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


def fuzzy_candidates(context_id: int, kind: str, cue: Cue, floor: float) -> Any:
    """The ids of the spellings that may reach Dice ≥ `floor` with the cue: an aggregate over the
    informative grams' postings alone (index-only on `ix_vocabulary_grams_lookup`, whose `size`
    is each key's bigram count). A spelling sharing s of the cue's a informative grams has
    b ≥ max(s, size − |stop|) informative grams of its own, so Dice = 2s/(a+b) is at most
    2s/(a + max(s, size − |stop|)); only spellings whose bound reaches the floor are read and
    scored (`score_key` decides; the bound only skips rows that cannot pass)."""
    g = VocabGram
    shared = func.count()
    most = func.greatest(shared, func.max(g.size) - len(cue.stop))
    # A hair under the floor so that rounding never drops a spelling `score_key` would keep.
    slack = max(0.0, floor * (1 - 1e-9))
    return (
        select(g.entry_id)
        .where(g.context_id == context_id, g.kind == kind, g.gram.in_(sorted(cue.informative)))
        .group_by(g.entry_id)
        .having(shared >= min_shared(cue, floor))
        .having(2 * shared >= literal(slack, Float()) * (len(cue.informative) + most))
    )


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
        # ARRAY(subquery) is an init plan: the candidates' rows are then read through the
        # primary key, whatever the planner estimates for the aggregate.
        ids = func.array(fuzzy_candidates(context_id, kind, cue, floor).scalar_subquery())
        stmt = select(v.name, v.alias_of, v.key).where(v.id == func.any(ids))
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
