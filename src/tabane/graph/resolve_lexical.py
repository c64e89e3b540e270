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
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ARRAY, Float, Text, bindparam, func, literal, or_, select
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
# see docs/benchmarks.md for the current numbers. A Latin typo shares a word with ~1,000
# identifiers above Dice 0.3: resolve ranks only its top `limit` exactly (`lexical`, top mode).
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


def fuzzy_candidates(
    context_id: int, kind: str, cue: Cue, floor: float, grams: Collection[str] | None = None
) -> Any:
    """The ids of the spellings that may reach Dice ≥ `floor` with the cue: an aggregate over
    informative grams' postings alone (index-only on `ix_vocabulary_grams_lookup`, whose
    `size` is each key's bigram count). A spelling sharing
    s of the cue's a informative grams has b ≥ max(s, size − |stop|) informative grams of its
    own, so Dice = 2s/(a+b) is at most 2s/(a + max(s, size − |stop|)); only spellings whose
    bound reaches the floor are read and scored (`score_key` decides; the bound only skips rows
    that cannot pass).

    `grams` reads only those of the cue's informative grams (its rarest): a spelling may share
    the unread ones too, so s is bounded by what it shares of `grams` plus the number unread —
    a spelling that reaches the floor shares at least `min_shared` grams, hence at least one of
    any a − min_shared + 1 of them (`prefix`)."""
    read = sorted(cue.informative if grams is None else grams)
    unread = len(cue.informative) - len(read)
    g = VocabGram
    shared = func.count() + unread  # at most this many informative grams shared
    most = func.greatest(shared, func.max(g.size) - len(cue.stop))
    return (
        select(g.entry_id)
        .where(g.context_id == context_id, g.kind == kind, g.gram == func.any(_texts(read)))
        .group_by(g.entry_id)
        .having(shared >= min_shared(cue, floor))
        .having(2 * shared >= literal(_slack(floor), Float()) * (len(cue.informative) + most))
    )


def _texts(values: Sequence[str]) -> Any:
    """A list of strings as one `text[]` parameter (an IN list binds one parameter each)."""
    return bindparam(None, list(values), type_=ARRAY(Text(collation="C")))


def _slack(floor: float) -> float:
    """A hair under the floor, so that rounding never drops a spelling `score_key` keeps."""
    return max(0.0, floor * (1 - 1e-9))


def dice_terms(cue: Cue) -> tuple[Any, Any]:
    """Dice's s and b of a stored key (a `VocabEntry` row) in SQL: a bigram is in a key iff it
    occurs in it (`strpos`), so s counts the cue's informative grams the key carries and b is
    the key's bigram count (`grams`) less the cue's over-common grams it carries. Used to filter
    only: `score_key` scores what comes back (tests/graph/test_resolve_fast.py asserts that
    2s/(a+b) equals `dice_informative` for every stored key)."""
    v = VocabEntry

    def carried(grams: Collection[str]) -> Any:
        # One array parameter whatever the number of grams: the statement's text (and so its
        # compiled and prepared forms) is the same for every cue.
        gram = func.unnest(_texts(sorted(grams))).table_valued("gram").render_derived()
        return (
            select(func.count())
            .select_from(gram)
            .where(func.strpos(v.key, gram.c.gram) > 0)
            .scalar_subquery()
        )

    return carried(cue.informative), v.grams - carried(cue.stop)


def fuzzy_rows(
    context_id: int,
    kind: str,
    cue: Cue,
    floor: float,
    grams: Collection[str] | None = None,
    filtered: bool = True,
) -> Any:
    """The spellings of `fuzzy_candidates`; `filtered`, only those `score_key` may keep: Dice
    ≥ `floor` by `dice_terms` (a key's `grams` of 0, unknown, only loosens it), or containment
    (scored as such whatever its Dice). Only they leave the server."""
    ids = fuzzy_candidates(context_id, kind, cue, floor, grams)
    v = VocabEntry
    # ARRAY(subquery) is an init plan: the candidates' rows are then read through the primary
    # key, whatever the planner estimates for the aggregate.
    stmt = select(v.name, v.alias_of, v.key).where(
        v.id == func.any(func.array(ids.scalar_subquery()))
    )
    if not filtered:
        return stmt
    s, b = dice_terms(cue)
    cue_key = literal(cue.key, Text(collation="C"))
    return stmt.where(
        or_(
            2 * s >= literal(_slack(floor), Float()) * (len(cue.informative) + b),
            func.strpos(v.key, cue_key) > 0,
            func.strpos(cue_key, v.key) > 0,
        )
    )


def rarest(cue: Cue) -> list[str]:
    """The cue's informative grams, rarest first (ties by the gram)."""
    return sorted(cue.informative, key=lambda g: (cue.df[g], g))


def prefix(cue: Cue, floor: float) -> list[str]:
    """The fewest rarest grams that every spelling reaching Dice ≥ floor carries one of."""
    grams = rarest(cue)
    return grams[: len(grams) - min_shared(cue, floor) + 1]


def _rows(session: Session, stmt: Any) -> list[Any]:
    return list(session.execute(stmt))


def exact(session: Session, context_id: int, kind: str, key: str) -> list[Scored]:
    """Spellings whose key is the cue's: `exact` for a canonical spelling, `alias` for an alias."""
    v = VocabEntry
    rows = _rows(
        session,
        select(v.name, v.alias_of, v.key).where(
            v.context_id == context_id, v.kind == kind, v.key == key
        ),
    )
    return [
        Scored(r.name, r.alias_of or r.name, r.key, 1.0, "alias" if r.alias_of else "exact")
        for r in rows
    ]


def _inside(session: Session, context_id: int, kind: str, cue: Cue) -> list[Any]:
    """Stored keys inside the cue: every part of a cue of 2..MAX_SUBSTRING_CUE characters
    looked up as an exact key (past that length a cue is a sentence, not a name)."""
    if not 1 < len(cue.key) <= MAX_SUBSTRING_CUE:
        return []
    key = cue.key
    parts = {key[i:j] for i in range(len(key)) for j in range(i + 1, len(key) + 1)} - {key}
    v = VocabEntry
    return _rows(
        session,
        select(v.name, v.alias_of, v.key).where(
            v.context_id == context_id, v.kind == kind, v.key == func.any(_texts(sorted(parts)))
        ),
    )


class _Seen:
    """The scored spellings so far, one per (spelling, key); fuzzy ones under the floor left out."""

    def __init__(self, cue: Cue, floor: float) -> None:
        self.cue, self.floor = cue, floor
        self.scored: dict[tuple[str, str], Scored] = {}

    def add(self, rows: Sequence[Any]) -> list[Scored]:
        """Score `rows`; the new ones kept."""
        kept = []
        for r in rows:
            if (r.name, r.key) in self.scored or r.key == self.cue.key:
                continue
            score, how = score_key(self.cue, r.key)
            if how == "fuzzy" and (score <= 0 or score < self.floor):
                continue
            self.scored[(r.name, r.key)] = got = Scored(
                r.name, r.alias_of or r.name, r.key, score, how
            )
            kept.append(got)
        return kept


def _containing(session: Session, context_id: int, kind: str, cue: Cue, pool: int) -> list[Any]:
    """Stored keys containing the cue, at most `pool`, shortest first (they score highest): all
    of them carry the cue's rarest gram (a one-character cue has no bigram to look up and scans
    the keys)."""
    v = VocabEntry
    where = (v.context_id == context_id, v.kind == kind)
    if len(cue.key) > 1:
        rare = min(cue.grams, key=lambda g: (cue.df[g], g))
        g = VocabGram
        stmt = (
            select(v.name, v.alias_of, v.key)
            .join(g, g.entry_id == v.id)
            .where(g.context_id == context_id, g.kind == kind, g.gram == rare, *where)
        )
    else:
        stmt = select(v.name, v.alias_of, v.key).where(*where)
    stmt = stmt.where(v.key.contains(cue.key, autoescape=True), v.key != cue.key)
    return _rows(session, stmt.order_by(func.length(v.key), v.name).limit(pool))


@dataclass(frozen=True)
class Found:
    """What the lexical tiers scored. `complete`: every candidate at or above the floor is among
    them; else only enough to rank the best `top` canonical spellings exactly."""

    scored: list[Scored]
    complete: bool


# `top` mode (see `lexical`) applies when the cue's informative grams have more postings than
# FULL_POSTINGS (below it, scoring everything costs less than a second statement would save).
# It first assumes that the top-th best score is at least GUESS (a Latin typo's tenth best is
# ~0.45-0.65 at 100k identifiers; the assumption is checked, and when it fails the cue is scored
# in full) and reads EXTRA grams more than that assumption needs, for a tighter bound.
FULL_POSTINGS = 3000
GUESS = 0.45
EXTRA = 1


def lexical(
    session: Session,
    context_id: int,
    kind: str,
    cue: Cue,
    floor: float,
    pool: int,
    top: int | None = None,
) -> Found:
    """Containment and fuzzy candidates (no exact key among them), each scored by `score_key`;
    fuzzy ones below `floor` are left out. `pool` bounds the containment rows read per side.

    With `top`, only the best `top` canonical spellings must come out exact. A Latin typo
    shares a word with a thousand identifiers above the default floor; reading and scoring them
    all costs tens of milliseconds. So `_top` assumes the top-th best score τ is at least g =
    max(floor, GUESS): a spelling reaching g shares at least `min_shared(g)` informative grams,
    so it carries one of the cue's a − min_shared(g) + 1 rarest; only those grams' postings
    (plus EXTRA) are read, only the spellings whose bound reaches g are read, and only those
    whose Dice (`dice_terms`) reaches g leave the server. If that ranks `top` canonical
    spellings at or above g, every spelling that could rank among them was scored (τ ≥ g), so
    the top `top` are exact; else the cue is scored in full. Containment is always scored in
    full (a containing key is scored as containment whatever its Dice), so `top` mode needs the
    containing keys to fit in `pool`. `complete`: everything at or above the floor was scored
    (always in full mode; in `top` mode only the top is known)."""
    seen = _Seen(cue, floor)
    seen.add(_inside(session, context_id, kind, cue))
    containing = _containing(session, context_id, kind, cue, pool)
    seen.add(containing)
    if not cue.informative:
        return Found(list(seen.scored.values()), True)
    few = sum(cue.df.get(g, 0) for g in cue.informative) <= FULL_POSTINGS
    if top is None or few or len(containing) >= pool or len(cue.key) <= 1:
        # (Few candidates are cheaper to score than to filter in SQL first.)
        seen.add(_rows(session, fuzzy_rows(context_id, kind, cue, floor, filtered=not few)))
        return Found(list(seen.scored.values()), True)
    assert top is not None
    guess = max(floor, GUESS)
    if guess > floor:
        found = _top(session, context_id, kind, cue, seen, top, guess)
        if found is not None:
            return found
    seen.add(_rows(session, fuzzy_rows(context_id, kind, cue, floor)))
    return Found(list(seen.scored.values()), True)


def _top(
    session: Session, context_id: int, kind: str, cue: Cue, seen: _Seen, top: int, guess: float
) -> Found | None:
    """`top` mode (see `lexical`): None when fewer than `top` canonical spellings reach
    `guess`."""
    grams = rarest(cue)
    read = grams[: min(len(grams), len(prefix(cue, guess)) + EXTRA)]
    seen.add(_rows(session, fuzzy_rows(context_id, kind, cue, guess, read)))
    ranked = best_per_canonical(list(seen.scored.values()))
    if len(ranked) < top or ranked[top - 1].score < guess:
        return None
    return Found(list(seen.scored.values()), False)


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
