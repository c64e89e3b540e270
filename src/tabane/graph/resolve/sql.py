"""The statements of resolve's lexical tiers: which stored spellings to look at.

Everything runs through indexes, so a cue costs the same at 100 spellings and at 100,000:
`ix_vocabulary_key` answers exact keys (and every substring of the cue, for "a stored key inside
the cue"), and the `vocabulary_grams` inverted index (`ix_vocabulary_grams_lookup`, covering, so
RLS is checked on the index tuples) answers "a stored key containing the cue" (through the cue's
rarest bigram) and the fuzzy tier. The statements only choose rows; `resolve_cue.score_key`
scores them. A resolve call is two round trips (`exact_and_frequencies`, then `candidates`):
each round trip costs about 0.2 ms of a 2–5 ms call (bench/resolve_latency.py).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Float,
    Integer,
    Text,
    bindparam,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)

from tabane.graph import vocabulary_stats
from tabane.graph.resolve.cue import Cue, min_shared
from tabane.graph.vocabulary_stats import GRAMS
from tabane.storage.schema import VocabEntry, VocabGram

# "A stored key inside the cue" looks every substring of the cue key up as an exact key; past
# this length a cue is a sentence, not a name, and only the other tiers apply to it.
MAX_SUBSTRING_CUE = 64


@dataclass(frozen=True)
class Bound:
    """A statement and the values of its parameters. Statements are built once per shape
    (`functools.cache`) with named parameters: building and hashing a SQLAlchemy statement
    costs more than PostgreSQL takes to run these (0.3–2.5 ms a call, measured on 2 shared
    cores), and a constant text lets PostgreSQL reuse a generic plan of the prepared form."""

    stmt: Any
    params: dict[str, Any]


def _param(name: str, type_: Any = None) -> Any:
    return bindparam(name, type_=type_)


def _in(column: Any, name: str) -> Any:
    """`column = any(:name)`: a text array parameter (an IN list binds one parameter each, so
    its statement text, prepared statement and plan differ with the number of values)."""
    return column == func.any(_param(name, GRAMS))


def slack(floor: float) -> float:
    """A hair under the floor, so that rounding never drops a spelling `score_key` keeps."""
    return max(0.0, floor * (1 - 1e-9))


def _vocabulary(kind_of: Any) -> tuple[Any, Any]:
    return kind_of.context_id == _param("context_id"), kind_of.kind == _param("kind")


@cache
def _exact_and_frequencies() -> Any:
    v = VocabEntry
    exact = select(v.name, v.alias_of, v.key, null().cast(BigInteger).label("n")).where(
        *_vocabulary(v), v.key == _param("key")
    )
    stats = vocabulary_stats.frequency_rows().subquery()
    return union_all(
        exact,
        select(
            null().cast(Text).label("name"),
            null().cast(Text).label("alias_of"),
            stats.c.gram.label("key"),
            stats.c.n,
        ),
    )


def exact_and_frequencies(context_id: int, kind: str, key: str, grams: Collection[str]) -> Bound:
    """One statement for the start of every cue: the spellings whose key is the cue's (rows
    with a `name`), and the statistics that decide its over-common grams (rows without one:
    `key` None carries N, else `key` is a gram and `n` its df; vocabulary_stats.frequency_rows)."""
    params = {"context_id": context_id, "kind": kind, "key": key, "grams": sorted(grams)}
    return Bound(_exact_and_frequencies(), params)


@cache
def _variants() -> Any:
    v = VocabEntry
    return select(v.name, v.alias_of, v.key).where(*_vocabulary(v), _in(v.key, "variant_keys"))


def variants(context_id: int, kind: str, keys: Collection[str]) -> Bound:
    """The spellings stored under any of `keys` (a cue's variant-kanji keys, text/itaiji.py)."""
    params = {"context_id": context_id, "kind": kind, "variant_keys": sorted(keys)}
    return Bound(_variants(), params)


def _inside() -> Any:
    """Stored keys inside the cue: every part of the cue (`parts`) looked up as an exact key."""
    v = VocabEntry
    return select(v.name, v.alias_of, v.key).where(*_vocabulary(v), _in(v.key, "parts"))


def inside_parts(key: str) -> list[str] | None:
    """The parts of a cue of 2..MAX_SUBSTRING_CUE characters, else None (past that length a cue
    is a sentence, not a name)."""
    if not 1 < len(key) <= MAX_SUBSTRING_CUE:
        return None
    parts = {key[i:j] for i in range(len(key)) for j in range(i + 1, len(key) + 1)} - {key}
    return sorted(parts)


def _containing(by_gram: bool) -> Any:
    """Stored keys containing the cue, at most `pool`, shortest first (they score highest): all
    of them carry the cue's rarest gram `rare` (a one-character cue has no bigram to look up
    and scans the keys)."""
    v = VocabEntry
    stmt = select(v.name, v.alias_of, v.key).where(*_vocabulary(v))
    if by_gram:
        g = VocabGram
        stmt = stmt.join(g, g.entry_id == v.id).where(*_vocabulary(g), g.gram == _param("rare"))
    cue_key = _param("cue_key", Text(collation="C"))
    stmt = stmt.where(func.strpos(v.key, cue_key) > 0, v.key != cue_key)
    return stmt.order_by(func.length(v.key), v.name).limit(_param("pool", Integer()))


def _fuzzy_candidates() -> Any:
    """The ids of the spellings that may reach Dice ≥ the floor with the cue: an aggregate over
    informative grams' postings alone (index-only on `ix_vocabulary_grams_lookup`, whose
    `size` is each key's bigram count). A spelling sharing
    s of the cue's a informative grams has b ≥ max(s, size − |stop|) informative grams of its
    own, so Dice = 2s/(a+b) is at most 2s/(a + max(s, size − |stop|)); only spellings whose
    bound reaches the floor are read and scored (`score_key` decides; the bound only skips rows
    that cannot pass), and only those sharing at least `need` (`min_shared`) grams.

    This reads every informative gram's postings through the executor; resolve's top mode
    counts them in numpy over packed postings instead (graph/resolve/arrays.py)."""
    g = VocabGram
    shared = func.count()
    most = func.greatest(shared, func.max(g.size) - _param("nstop", Integer()))
    a = _param("a", Integer())
    return (
        select(g.entry_id)
        .where(*_vocabulary(g), _in(g.gram, "informative"))
        .group_by(g.entry_id)
        .having(shared >= _param("need", Integer()))
        .having(2 * shared >= _param("slack", Float()) * (a + most))
    )


def dice_terms() -> tuple[Any, Any]:
    """Dice's s and b of a stored key (a `VocabEntry` row) in SQL: a bigram is in a key iff it
    occurs in it (`strpos`), so s counts the cue's informative grams (`informative`) the key
    carries and b is the key's bigram count (`grams`) less the cue's over-common grams
    (`stop`) it carries. Used to filter only: `score_key` scores what comes back
    (tests/graph/test_resolve_fast.py asserts that 2s/(a+b) equals `dice_informative` for
    every stored key)."""
    v = VocabEntry

    def carried(name: str) -> Any:
        gram = func.unnest(_param(name, GRAMS)).table_valued("gram").render_derived()
        return (
            select(func.count())
            .select_from(gram)
            .where(func.strpos(v.key, gram.c.gram) > 0)
            .scalar_subquery()
        )

    return carried("informative"), v.grams - carried("stop")


@cache
def _fuzzy_rows(filtered: bool) -> Any:
    """The spellings of `_fuzzy_candidates`; `filtered`, only those `score_key` may keep: Dice
    ≥ the floor by `dice_terms` (a key's `grams` of 0, unknown, only loosens it), or
    containment (scored as such whatever its Dice). Only they leave the server."""
    v = VocabEntry
    # ARRAY(subquery) is an init plan: the candidates' rows are then read through the primary
    # key, whatever the planner estimates for the aggregate.
    stmt = select(v.name, v.alias_of, v.key).where(
        v.id == func.any(func.array(_fuzzy_candidates().scalar_subquery()))
    )
    if not filtered:
        return stmt
    s, b = dice_terms()
    cue_key = _param("cue_key", Text(collation="C"))
    return stmt.where(
        or_(
            2 * s >= _param("slack", Float()) * (_param("a", Integer()) + b),
            func.strpos(v.key, cue_key) > 0,
            func.strpos(cue_key, v.key) > 0,
        )
    )


def cue_params(context_id: int, kind: str, cue: Cue) -> dict[str, Any]:
    """The parameters every candidate statement of a cue shares."""
    return {
        "context_id": context_id,
        "kind": kind,
        "cue_key": cue.key,
        "a": len(cue.informative),
        "nstop": len(cue.stop),
        "informative": sorted(cue.informative),
        "stop": sorted(cue.stop),
    }


def fuzzy_params(cue: Cue, floor: float) -> dict[str, Any]:
    """The parameters of the fuzzy tier at `floor`."""
    return {"need": min_shared(cue, floor), "slack": slack(floor)}


def fuzzy_rows(context_id: int, kind: str, cue: Cue, floor: float, filtered: bool = True) -> Bound:
    """The fuzzy candidates of `cue` at `floor` on their own (see `_fuzzy_rows`)."""
    params = cue_params(context_id, kind, cue) | fuzzy_params(cue, floor)
    return Bound(_fuzzy_rows(filtered), params)


@cache
def _candidates(inside: bool, by_gram: bool, fuzzy: str | None) -> Any:
    parts = {"containing": _containing(by_gram)}
    if inside:
        parts["inside"] = _inside()
    if fuzzy is not None:
        parts["fuzzy"] = _fuzzy_rows(fuzzy == "filtered")
    tagged = []
    for tag, stmt in sorted(parts.items()):
        sub = stmt.subquery()
        src = literal(tag, Text()).label("src")
        tagged.append(select(src, sub.c.name, sub.c.alias_of, sub.c.key))
    return union_all(*tagged)


def candidates(
    context_id: int,
    kind: str,
    cue: Cue,
    pool: int,
    fuzzy: dict[str, Any] | None = None,
    filtered: bool = True,
) -> Bound:
    """The (name, alias_of, key) rows of the stored keys inside the cue, of those containing
    it (at most `pool`) and, given `fuzzy` (`fuzzy_params`), of its fuzzy candidates, in one
    round trip; each row is tagged with the statement that found it (`src`: inside,
    containing, fuzzy)."""
    params = cue_params(context_id, kind, cue) | {"pool": pool} | (fuzzy or {})
    parts = inside_parts(cue.key)
    if parts is not None:
        params["parts"] = parts
    by_gram = len(cue.key) > 1
    if by_gram:
        params["rare"] = min(cue.grams, key=lambda g: (cue.df[g], g))
    shape = None if fuzzy is None else "filtered" if filtered else "raw"
    return Bound(_candidates(parts is not None, by_gram, shape), params)
