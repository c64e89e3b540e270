"""The walk's seeds (recall's `walk` lane, recall/lanes/graph.py): the concepts a question names,
and
with a query vector the concepts whose glosses are nearest it.

A concept (or alias) is named when its spelling key occurs in the question's spelling key, when
a word of capitals in the question is its acronym (graph/readings.py: BSW for
BlobStoreWriter), or when a run of kanji of the question written with a variant-kanji character
(text/itaiji.py), less a trailing title, begins its key in one of the run's forms — a family
name for a full name, 桧山船長 for 檜山光 (`variant_prefixes`, resolve's variant route taken as
a prefix). The
question's parts — its key's substrings of up to 64 characters — are made by the server
(parts.py) and looked up through the vocabulary's key index: nothing for Python to build or send
(a 4,000-character question has ~200,000 parts: 215 ms to build in Python and 7 MB to send).

A walk from every concept a long question names reads every edge of hundreds of hubs (599 seeds:
709 ms), so at most `walk_seeds` seeds per context start it: the strongest (named before
glossed), then the longest names (the most specific), then by name. The trace says how many
were left out.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from sqlalchemy import (
    ARRAY,
    CTE,
    Float,
    Integer,
    Select,
    Text,
    and_,
    cast,
    func,
    literal,
    or_,
    select,
    true,
    union_all,
)

from tabane.recall.lanes.lanes import contexts_table, nearest, p
from tabane.recall.parts import substrings
from tabane.storage.schema import VocabEntry, VocabReading, VocabVector
from tabane.text.itaiji import variant_keys
from tabane.text.reading import acronym_cue, strip_honorific_ja
from tabane.text.spelling import spelling_key

_CAPITALS = re.compile(r"(?<![A-Za-z0-9_])[A-Z]{2,6}(?![A-Za-z0-9_])")
_KANJI_RUN = re.compile("[\u3400-\u9fff\uf900-\ufaff々]{2,}")


def acronyms_in(question: str) -> list[str]:
    """The acronym keys of the question's words of 2–6 capitals (text/reading.py)."""
    found = (acronym_cue(word) for word in _CAPITALS.findall(question))
    return sorted({key for key in found if key})


def variant_prefixes(question: str) -> list[str]:
    """LIKE patterns of the names a question writes with variant kanji: each run of two or more
    kanji of its spelling key, less a trailing honorific or title, that has a character of a
    variant group, in each of its forms (itself too), as a key's beginning."""
    out: set[str] = set()
    for run in _KANJI_RUN.findall(spelling_key(question)):
        name = strip_honorific_ja(run)
        forms = variant_keys(name)
        if len(name) >= 2 and forms:
            out.update(f"{form}%" for form in (name, *forms))
    return sorted(out)


@cache
def seeds_statement(dim: int | None = None) -> Select[Any]:
    """The seeds (`seeds_cte`) as one statement, built once per width (compiling it again for
    every question cost ~2 ms): context, name, strength, and how many the context had before
    the cut."""
    seeds = seeds_cte(dim)
    return select(seeds.c.context_id, seeds.c.name, seeds.c.strength, seeds.c.found)


def name_parts() -> Any:
    """The parts of the bound `question_spelling` a seed's key may be (`long_enough`): 2 to 64
    characters, 4 or more where all of them are ASCII."""
    return substrings(p("question_spelling", Text), 2, latin_shortest=4)


def named_by_initials() -> Select[Any]:
    """The concepts whose acronym is a word of capitals of the question (`question_acronyms`),
    at strength 1.0 like a named one."""
    r = VocabReading
    return (
        select(
            VocabEntry.context_id,
            func.coalesce(VocabEntry.alias_of, VocabEntry.name).label("name"),
            literal(1.0, Float).label("strength"),
        )
        .select_from(r)
        .join(VocabEntry, VocabEntry.id == r.entry_id)
        .where(
            r.context_id == func.any(p("ctx_ids", ARRAY(Integer))),
            r.kind == "concept",
            r.how == "acronym",
            r.key == func.any(p("question_acronyms", ARRAY(Text))),
        )
    )


def named_by_variant() -> Select[Any]:
    """The concepts whose key begins with a form of a name the question writes with variant
    kanji (`question_variants`, `variant_prefixes`), at strength 1.0 like a named one; nothing
    to read for a question without one (the custom plan drops the branch)."""
    patterns = p("question_variants", ARRAY(Text))
    return select(
        VocabEntry.context_id,
        func.coalesce(VocabEntry.alias_of, VocabEntry.name).label("name"),
        literal(1.0, Float).label("strength"),
    ).where(
        func.cardinality(patterns) > 0,
        VocabEntry.context_id == func.any(p("ctx_ids", ARRAY(Integer))),
        VocabEntry.kind == "concept",
        VocabEntry.key.like(func.any(patterns)),
    )


def seeds_cte(dim: int | None = None) -> CTE:
    """The walk's seeds with a strength: a concept (or alias) whose spelling key occurs in the
    question's counts 1.0; with a query vector, the concepts whose gloss (name plus heaviest
    facts) is nearest the question — resolve's semantic tier — join at their cosine, the best
    `gloss_seeds` per context above the context's floor. At most `walk_seeds` per context."""
    key = VocabEntry.key
    # Latin keys shorter than 4 ("arm", "gps") sit inside too many unrelated words; a key with
    # a character outside ASCII (CJK names) carries a word in two characters.
    long_enough = or_(
        func.length(key) >= 4,
        and_(func.length(key) >= 2, func.octet_length(key) > func.length(key)),
    )
    named = select(
        VocabEntry.context_id,
        func.coalesce(VocabEntry.alias_of, VocabEntry.name).label("name"),
        literal(1.0, Float).label("strength"),
    ).where(
        VocabEntry.context_id == func.any(p("ctx_ids", ARRAY(Integer))),
        VocabEntry.kind == "concept",
        long_enough,
        key == func.any(name_parts()),
    )
    initials, variant = named_by_initials(), named_by_variant()
    found: Any = union_all(named, initials, variant)
    if dim is not None:
        c = contexts_table()
        # the HNSW index's order (migration 0014)
        near = nearest(
            c,
            VocabVector,
            VocabVector.entry_id,
            dim,
            p("gloss_seeds", Integer),
            "gloss",
            where=(VocabVector.kind == "concept",),  # a label names no node to walk from
        )
        glossed = (
            select(VocabEntry.context_id, VocabEntry.name, cast(1.0 - near.c.d, Float))
            .select_from(c)
            .join(near, true())
            .join(VocabEntry, VocabEntry.id == near.c.id)
        )
        found = union_all(named, initials, variant, glossed)
    every = found.subquery("seed_candidates")
    best = (
        select(every.c.context_id, every.c.name, func.max(every.c.strength).label("strength"))
        .group_by(every.c.context_id, every.c.name)
        .subquery("seed_names")
    )
    order = (best.c.strength.desc(), func.length(best.c.name).desc(), best.c.name)
    ranked = select(
        best,
        func.row_number().over(partition_by=best.c.context_id, order_by=order).label("r"),
        func.count().over(partition_by=best.c.context_id).label("found"),
    ).subquery("ranked_seeds")
    return (
        select(ranked.c.context_id, ranked.c.name, ranked.c.strength, ranked.c.found)
        .where(ranked.c.r <= p("walk_seeds", Integer))
        .cte("seeds")
    )


def bound_seeds() -> CTE:
    """The walk's seeds as found by `seeds_cte` just before the statement (gather.py
    `bind_before`), bound as parallel arrays: the trace reports the same seeds without a
    second query."""
    rows = (
        func.unnest(
            p("seed_ctx", ARRAY(Integer)),
            p("seed_names", ARRAY(Text)),
            p("seed_strengths", ARRAY(Float)),
        )
        .table_valued("context_id", "name", "strength")
        .render_derived(name="bound_seeds")
    )
    return select(
        rows.c.context_id, rows.c.name, rows.c.strength, rows.c.strength.label("reach")
    ).cte("seeds")
