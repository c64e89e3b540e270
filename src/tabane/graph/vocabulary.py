"""The vocabulary of a context's graph: concepts and labels, their canonical spellings, the
normalized keys and bigrams resolve matches (entry-only aliases: aliases.py).

A spelling has one row per scope set that minted it, so a spelling is visible exactly to those
who can see a claim that used it. Case twins (`Frame`, `frame`) are different spellings, hence
different concepts, even though they share a key.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Literal

from sqlalchemy import ARRAY, Integer, Text, bindparam, func, literal, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.checks import text_problem
from tabane.errors import (
    InvalidInput,
    Issue,
    StoreBusy,
)
from tabane.graph import readings, vocabulary_stats
from tabane.principal import PUBLIC
from tabane.storage.bulk import insert_columns
from tabane.storage.schema import VocabEntry, VocabGram
from tabane.text.spelling import char_grams, spelling_key
from tabane.text.tokenize import normalize

Kind = Literal["concept", "label"]
KINDS: tuple[Kind, ...] = ("concept", "label")
MAX_SPELLING = 300


def check_spelling(value: object, path: str, issues: list[Issue]) -> str | None:
    """A concept or label spelling: non-empty text without control characters, NFC-normalized,
    invisible format characters dropped (a zero-width space, a soft hyphen; a joiner stays only
    inside a word), every kind of space trimmed and runs of them made one space (`"  coffee "`,
    `"coffee\u00a0"` and `"co\u00adffee"` are the concept `coffee`, not look-alike twins of it).
    Problems are appended to `issues` (so a batch reports all of them); returns None then."""
    if not isinstance(value, str):
        issues.append(Issue(path, "not a string"))
        return None
    text = unicodedata.normalize("NFC", value)
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        issues.append(Issue(path, "contains control characters"))
        return None
    name = " ".join(_visible(text).split())
    if not name:
        issues.append(Issue(path, "empty"))
        return None
    if len(name) > MAX_SPELLING:
        issues.append(Issue(path, f"{len(name)} characters, at most {MAX_SPELLING}"))
        return None
    if problem := text_problem(name):  # a lone surrogate (an undecodable command-line byte)
        issues.append(Issue(path, problem))
        return None
    return name


_JOINERS = frozenset("\u200c\u200d")  # they shape a word (Persian, Indic, emoji sequences)


def _visible(text: str) -> str:
    """`text` without its invisible format characters (category Cf), but for a joiner between
    two characters of a word."""
    padded = f" {text} "
    return "".join(
        ch
        for before, ch, after in zip(padded, text, padded[2:], strict=False)
        if unicodedata.category(ch) != "Cf" or (ch in _JOINERS and _inner(before) and _inner(after))
    )


def _inner(ch: str) -> bool:
    return not ch.isspace() and unicodedata.category(ch) != "Cf"


def spelling(value: object, path: str) -> str:
    issues: list[Issue] = []
    name = check_spelling(value, path, issues)
    if name is None:
        raise InvalidInput(f"invalid {path}", issues=issues)
    return name


def check_kind(value: object, path: str = "kind") -> Kind:
    if value not in KINDS:
        raise InvalidInput(f"unknown {path}", issues=[Issue(path, "use 'concept' or 'label'")])
    return value


def ensure(
    session: Session,
    context_id: int,
    kind: Kind,
    names: Iterable[str],
    scopes: Sequence[str],
) -> list[str]:
    """Mint the canonical spellings not yet stored under `scopes`; returns the new ones, sorted."""
    wanted = sorted(set(names))
    if not wanted:
        return []
    keys = [spelling_key(name) for name in wanted]
    columns: dict[str, tuple[list[Any], Any]] = {
        "name": (wanted, ARRAY(Text())),
        "norm": ([normalize(name) for name in wanted], ARRAY(Text())),
        "key": (keys, ARRAY(Text())),
        "grams": ([len(char_grams(key)) for key in keys], ARRAY(Integer())),
    }
    arrays = [bindparam(f"v_{col}", values, type_=t) for col, (values, t) in columns.items()]
    rows = func.unnest(*arrays).table_valued(*columns).render_derived(name="v")
    stmt = (
        insert(VocabEntry)
        .from_select(
            ["context_id", "kind", "scopes", *columns],
            select(
                literal(context_id),
                literal(kind),
                literal(list(scopes), type_=ARRAY(Text())),
                *(rows.c[col] for col in columns),
            ),
        )
        .on_conflict_do_nothing(index_elements=["context_id", "kind", "name", "scopes"])
        .returning(VocabEntry.id, VocabEntry.name, VocabEntry.key)
    )
    minted = session.execute(stmt).all()
    made = {row.name for row in minted}
    # the batch canonicalized its spellings before: one that is an alias now was made one since
    raced = canonical(session, context_id, kind, [name for name in wanted if name not in made])
    if raced:
        name = min(raced)
        raise StoreBusy(
            f"{kind} {name!r} became an alias of {raced[name]!r} meanwhile; nothing written, retry",
            issues=[Issue(kind, f"{name!r} is an alias now")],
        )
    index_grams(session, context_id, kind, scopes, [(row.id, row.key) for row in minted])
    readings.index(session, context_id, kind, scopes, [(row.id, row.name) for row in minted])
    # A spelling minted under these scopes may already exist under others the caller can see.
    seen = set(
        session.scalars(
            select(VocabEntry.name).where(
                VocabEntry.context_id == context_id,
                VocabEntry.kind == kind,
                VocabEntry.name.in_([row.name for row in minted]),
                VocabEntry.scopes != list(scopes),
            )
        )
    )
    return sorted(row.name for row in minted if row.name not in seen)


def index_grams(
    session: Session,
    context_id: int,
    kind: Kind,
    scopes: Sequence[str],
    entries: Sequence[tuple[int, str]],
) -> None:
    """Write the bigrams of freshly minted spellings and add them to the statistics."""
    if not entries:
        return
    ids: list[int] = []
    grams: list[str] = []
    sizes: list[int] = []
    df: Counter[str] = Counter()
    for entry_id, key in entries:
        own = sorted(char_grams(key))
        ids.extend([entry_id] * len(own))
        grams.extend(own)
        sizes.extend([len(own)] * len(own))
        df.update(own)
    vocabulary_stats.bump(session, context_id, kind, scopes, len(entries), df)
    insert_columns(
        session,
        VocabGram.__table__,  # type: ignore[arg-type]
        {"entry_id": ids, "gram": grams, "size": sizes},
        {"context_id": context_id, "kind": kind, "scopes": list(scopes)},
    )


def canonical(
    session: Session, context_id: int, kind: Kind, spellings: Collection[str]
) -> dict[str, str]:
    """The canonical spelling of every alias among `spellings` (aliases are entry-only).

    A spelling that is also a canonical concept the caller can see stays itself: an alias row
    under one scope set never redirects a concept another scope set minted with that spelling
    (an alias cannot join two concepts, whoever wrote them). Of aliases of one spelling under
    different scope sets, the one read by the fewest wins — the most scopes besides `public` in
    its set: your own word for a thing goes before a shared one you may not even know of — then
    the alphabetically first target."""
    if not spellings:
        return {}
    rows = session.execute(
        select(VocabEntry.name, VocabEntry.alias_of)
        .where(
            VocabEntry.context_id == context_id,
            VocabEntry.kind == kind,
            VocabEntry.name.in_(list(set(spellings))),
        )
        .order_by(*narrowest_first())
    ).all()
    concepts = {row.name for row in rows if row.alias_of is None}
    out: dict[str, str] = {}
    for row in rows:
        if row.alias_of is not None and row.name not in concepts:
            out.setdefault(row.name, row.alias_of)
    return out


def narrowest_first() -> tuple[Any, ...]:
    """Rows of one spelling, those read by the fewest (most scopes) first, then by target."""
    return (
        VocabEntry.name,
        func.cardinality(func.array_remove(VocabEntry.scopes, PUBLIC)).desc(),
        VocabEntry.alias_of.nulls_first(),
        VocabEntry.id,
    )


def exists(session: Session, context_id: int, kind: Kind, name: str) -> bool:
    """Whether `name` is a canonical spelling the caller can see."""
    return (
        session.scalar(
            select(VocabEntry.id)
            .where(
                VocabEntry.context_id == context_id,
                VocabEntry.kind == kind,
                VocabEntry.name == name,
                VocabEntry.alias_of.is_(None),
            )
            .limit(1)
        )
        is not None
    )
