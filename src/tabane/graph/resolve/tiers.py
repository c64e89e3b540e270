"""The lexical tiers of resolve: exact/alias, variant kanji, readings (kana, romanisation,
acronyms), containment and Dice over character bigrams.

A cue is two round trips in full mode: `look_up` (its exact spellings and the statistics that
decide its over-common grams, one statement) and `lexical` (the stored keys inside it, those
containing it and its fuzzy candidates, one statement). Top mode replaces the fuzzy rows by the
packed postings of the cue's grams and one or a few batches of keys (graph/resolve/arrays.py).
The statements are in graph/resolve/sql.py, the scoring in graph/resolve/cue.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from tabane.graph import readings
from tabane.graph.resolve import arrays as resolve_arrays
from tabane.graph.resolve import sql
from tabane.graph.resolve.cue import Cue, Scored, score_key
from tabane.graph.vocabulary_stats import Frequencies
from tabane.text.itaiji import variant_keys
from tabane.text.reading import acronym_cue, cue_keys
from tabane.text.spelling import char_grams, spelling_key

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
# so `look_up` is a handful of index lookups; the fuzzy tier aggregates only the informative
# grams' postings and reads only the spellings whose Dice bound reaches the floor
# (`resolve_sql.fuzzy_candidates`). Measured by bench/resolve_latency.py (100k concepts, half
# camelCase identifiers, half Japanese names; 2 shared cores): typo cue p50 was 138 ms with live
# counting; see docs/performance.md for the current numbers. A Latin typo shares a word with
# ~1,000 identifiers above Dice 0.3: resolve ranks only its top `limit` exactly (top mode,
# counted over packed postings in numpy: graph/resolve/arrays.py).
STOP_SHARE = 20
STOP_MIN = 64


def cue_of(text: str, key: str, freq: Frequencies) -> Cue:
    """The cue's bigrams and which of them are over-common for this caller (`freq`: the df of
    each gram and the vocabulary size N it can see)."""
    grams = char_grams(key)
    df = {g: freq.df.get(g, 0) for g in grams}
    threshold = max(STOP_MIN, freq.entries // STOP_SHARE)
    stop = frozenset(g for g, n in df.items() if n > threshold)
    if stop and stop == grams:
        # Every gram is over-common: keep the rarest one, or the cue could never match fuzzily.
        rarest_gram = min(grams, key=lambda g: (df[g], g))
        stop = stop - {rarest_gram}
    return Cue(text, key, grams, stop, df, threshold)


@dataclass(frozen=True)
class LookedUp:
    """A cue's exact spellings (`exact` for a canonical one, `alias` for an alias) and the cue
    analysed against the vocabulary the caller sees."""

    cue: Cue
    exact: list[Scored]


def look_up(session: Session, context_id: int, kind: str, text: str) -> LookedUp:
    """The exact key and the cue's statistics in one round trip (an eclipsed cue pays for g + 1
    statistics lookups it does not need; a typo saves a round trip)."""
    key = spelling_key(text)
    grams = char_grams(key)
    exact: list[Scored] = []
    stats: list[tuple[str | None, int]] = []
    bound = sql.exact_and_frequencies(context_id, kind, key, grams)
    for r in session.execute(bound.stmt, bound.params):
        if r.name is None:
            stats.append((r.key, r.n))
        else:
            how = "alias" if r.alias_of else "exact"
            exact.append(Scored(r.name, r.alias_of or r.name, r.key, 1.0, how))
    exact.sort(key=lambda s: (s.name, s.canonical))
    return LookedUp(cue_of(text, key, Frequencies.of(grams, stats)), exact)


def variants(session: Session, context_id: int, kind: str, key: str) -> list[Scored]:
    """The spellings stored under a variant-kanji form of the cue's key (髙﨑 for 高崎, 辺 for
    邊: text/itaiji.py), as `variant` matches scoring 1.0 — the same name with another form of
    its characters. One statement, only for a cue that has such a character."""
    keys = variant_keys(key)
    if not keys:
        return []
    bound = sql.variants(context_id, kind, keys)
    return [
        Scored(r.name, r.alias_of or r.name, r.key, 1.0, "variant")
        for r in session.execute(bound.stmt, bound.params)
    ]


def read(session: Session, context_id: int, kind: str, text: str) -> list[Scored]:
    """The spellings a cue names by another script (graph/readings.py, text/reading.py): its
    kana or kanji read, or its Latin letters taken as Hepburn, against the stored readings
    (`reading` / `romanisation`: 1.0 for the whole reading, else shorter/longer for a reading
    the cue begins, a family name for a full name), and a cue of capitals against the initials
    of multi-word spellings (`acronym`, 1.0). One statement each, only for a cue that has such
    keys."""
    out: list[Scored] = []
    read_as = cue_keys(text)
    if read_as is not None:
        keys, how = read_as
        for name, alias_of, key in readings.look_up(session, context_id, kind, "reading", keys):
            score = max(len(k) / len(key) for k in keys if key.startswith(k))
            out.append(Scored(name, alias_of or name, key, score, how))
    initials = acronym_cue(text)
    if initials is not None:
        for name, alias_of, key in readings.look_up(
            session, context_id, kind, "acronym", [initials]
        ):
            out.append(Scored(name, alias_of or name, key, 1.0, "acronym"))
    return out


def analyse(session: Session, context_id: int, kind: str, text: str) -> Cue:
    """The cue's key and bigrams, and which of them are over-common for this caller."""
    return look_up(session, context_id, kind, text).cue


class _Seen:
    """The scored spellings so far, one per (spelling, key); fuzzy ones under the floor left out."""

    def __init__(self, cue: Cue, floor: float) -> None:
        self.cue, self.floor = cue, floor
        self.scored: dict[tuple[str, str], Scored] = {}

    def add(self, rows: Sequence[Any]) -> None:
        for r in rows:
            if (r.name, r.key) in self.scored or r.key == self.cue.key:
                continue
            score, how = score_key(self.cue, r.key)
            if how == "fuzzy" and (score <= 0 or score < self.floor):
                continue
            self.scored[(r.name, r.key)] = Scored(r.name, r.alias_of or r.name, r.key, score, how)


@dataclass(frozen=True)
class Found:
    """What the lexical tiers scored. `complete`: every candidate at or above the floor is among
    them; else only enough to rank the best `top` canonical spellings exactly."""

    scored: list[Scored]
    complete: bool


# Top mode (see `lexical`) applies when the cue's informative grams have more postings than
# FULL_POSTINGS (below it, scoring everything costs less and gives an exact `total`).
FULL_POSTINGS = 3000


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
    shares a word with a thousand identifiers above the default floor; aggregating their
    postings in SQL costs ~8 ms. So top mode counts the spellings sharing the cue's informative
    grams in numpy over the packed postings (graph/resolve/arrays.py) and scores them in Dice
    bound order until the top is proven. Containment is always scored in full (a containing
    key is scored as containment whatever its Dice), so top mode needs the containing keys to
    fit in `pool`; else the cue is scored in full. `complete`: everything at or above the floor
    was scored (always in full mode; in top mode when the bound order ran out first).

    Inside and containing rows (and in full mode the fuzzy rows) come in one statement
    (`resolve_sql.candidates`); top mode then reads the packs and fetches keys in batches."""
    seen = _Seen(cue, floor)
    fuzzy: dict[str, Any] | None = None
    # (Few candidates are cheaper to score than to filter in SQL first.)
    few = sum(cue.df.get(g, 0) for g in cue.informative) <= FULL_POSTINGS
    top_mode = top is not None and bool(cue.informative) and not few and len(cue.key) > 1
    if cue.informative and not top_mode:
        fuzzy = sql.fuzzy_params(cue, floor)
    bound = sql.candidates(context_id, kind, cue, pool, fuzzy, filtered=not few)
    rows = session.execute(bound.stmt, bound.params).all()
    seen.add(rows)
    if not top_mode:
        return Found(list(seen.scored.values()), True)
    assert top is not None
    if sum(r.src == "containing" for r in rows) < pool:
        complete = resolve_arrays.rank_top(session, context_id, kind, cue, floor, top, seen)
        return Found(list(seen.scored.values()), complete)
    # The containing keys overflowed the pool: in full.
    bound = sql.fuzzy_rows(context_id, kind, cue, floor)
    seen.add(session.execute(bound.stmt, bound.params).all())
    return Found(list(seen.scored.values()), True)
