"""Glosses: a canonical name plus its heaviest facts — a concept's (`東京都 — 所在地→関東;
首都←日本`), or a label's uses (`所在地 — 東京都→関東; 京都府→近畿`).

Resolve attaches a gloss to its top candidates so a look-alike (京都 inside 東京都) can be seen
for what it is, and the semantic tier embeds glosses (vectors in `vocabulary_vectors`, written by
the `embed_glosses` job). A gloss that will be embedded is built only from facts whose scope set
lies inside the spelling's own (the job runs with exactly that scope set), so a vector never
carries a fact its readers could not see. Pairs recorded as distinct (label `別物` or
`distinct_from`, positive net weight) make resolve warn on either spelling.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import (
    ARRAY,
    Integer,
    Text,
    and_,
    bindparam,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.models.embedder import Embedder, Vectors, checked
from tabane.storage.schema import Association, VocabEntry, VocabVector

GLOSS_FACTS = 3  # facts per gloss shown by resolve
EMBED_FACTS = 5  # facts per gloss that is embedded
DISTINCT_LABELS = ("別物", "distinct_from")
BATCH = 64


@dataclass(frozen=True)
class Fact:
    subject: str
    label: str
    object: str
    weight: float


def net_facts(session: Session, context_id: int) -> list[Fact]:
    """Every live net edge of the context (summed over visible rows and perspectives)."""
    a = Association
    stmt = (
        select(
            a.subject,
            a.label,
            a.object,
            func.sum(a.weight).label("w"),
            func.sum(a.claims).label("n"),
        )
        .where(a.context_id == context_id)
        .group_by(a.subject, a.label, a.object)
    )
    return [
        Fact(r.subject, r.label, r.object, float(r.w)) for r in session.execute(stmt) if r.n and r.w
    ]


def render(name: str, facts: Sequence[Fact], limit: int) -> str:
    """`name — label→object; label←subject` with the heaviest facts first (ties by text)."""
    parts: list[tuple[float, str]] = []
    for f in facts:
        if f.subject == name:
            text = f"{f.label}→{f.object}"
        elif f.object == name:
            text = f"{f.label}←{f.subject}"
        else:
            continue
        if f.weight < 0:
            text = f"not {text}"
        parts.append((abs(f.weight), text))
    parts.sort(key=lambda p: (-p[0], p[1]))
    shown = list(dict.fromkeys(text for _, text in parts))[:limit]
    return f"{name} — {'; '.join(shown)}" if shown else name


def render_label(name: str, facts: Sequence[Fact], limit: int) -> str:
    """`label — subject→object; …`: the label's heaviest uses first (ties by text)."""
    parts = sorted(
        (-abs(f.weight), f"{'not ' if f.weight < 0 else ''}{f.subject}→{f.object}")
        for f in facts
        if f.label == name
    )
    shown = list(dict.fromkeys(text for _, text in parts))[:limit]
    return f"{name} — {'; '.join(shown)}" if shown else name


def _label_glosses(names: Collection[str], facts: Sequence[Fact], limit: int) -> dict[str, str]:
    by_label: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        by_label[f.label].append(f)
    return {n: render_label(n, by_label.get(n, []), limit) for n in names}


def _glosses(names: Collection[str], facts: Sequence[Fact], limit: int) -> dict[str, str]:
    """The gloss of each name from `facts` (those touching it)."""
    by_name: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        by_name[f.subject].append(f)
        if f.object != f.subject:
            by_name[f.object].append(f)
    return {n: render(n, by_name.get(n, []), limit) for n in names}


@cache
def _annotations() -> Any:
    """The live net facts touching `gloss_names` (as `net_facts`) and the pairs recorded as
    distinct touching `distinct_names` (positive net weight), tagged by `part`; built once."""
    a = Association
    ctx = bindparam("ann_ctx", type_=Integer)
    glossed = bindparam("gloss_names", type_=ARRAY(Text))
    checked = bindparam("distinct_names", type_=ARRAY(Text))
    weight, claims = func.sum(a.weight), func.sum(a.claims)
    facts = (
        select(literal("f").label("part"), a.subject, a.label, a.object, weight, claims)
        .where(
            a.context_id == ctx, or_(a.subject == func.any(glossed), a.object == func.any(glossed))
        )
        .group_by(a.subject, a.label, a.object)
    )
    pairs = (
        select(literal("d"), a.subject, null().cast(Text), a.object, weight, claims)
        .where(
            a.context_id == ctx,
            a.label.in_(DISTINCT_LABELS),
            or_(a.subject == func.any(checked), a.object == func.any(checked)),
        )
        .group_by(a.subject, a.object)
        .having(and_(weight > 0, claims > 0))
    )
    return union_all(facts, pairs)


def annotate(
    session: Session,
    context_id: int,
    glossed: Collection[str],
    checked: Collection[str],
    limit: int = GLOSS_FACTS,
) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Resolve's annotations of its candidates, in one round trip: the gloss of each of
    `glossed` from the facts the caller can see, and for each of `checked` the spellings
    recorded as a different referent (either direction)."""
    if not glossed and not checked:
        return {}, {}
    params = {
        "ann_ctx": context_id,
        "gloss_names": sorted(set(glossed)),
        "distinct_names": sorted(set(checked)),
    }
    facts: list[Fact] = []
    pairs: dict[str, set[str]] = defaultdict(set)
    for part, subject, label, obj, weight, claims in session.execute(_annotations(), params):
        if part == "d":
            pairs[subject].add(obj)
            pairs[obj].add(subject)
        elif claims and weight:
            facts.append(Fact(subject, label, obj, float(weight)))
    return _glosses(glossed, facts, limit), dict(pairs)


def annotate_labels(
    session: Session, context_id: int, glossed: Collection[str], limit: int = GLOSS_FACTS
) -> dict[str, str]:
    """The gloss of each label of `glossed` from the uses the caller can see."""
    if not glossed:
        return {}
    a = Association
    rows = session.execute(
        select(a.subject, a.label, a.object, func.sum(a.weight), func.sum(a.claims))
        .where(a.context_id == context_id, a.label.in_(sorted(set(glossed))))
        .group_by(a.subject, a.label, a.object)
    )
    facts = [Fact(s, lb, o, float(w)) for s, lb, o, w, n in rows if n and w]
    return _label_glosses(glossed, facts, limit)


def distinct_pairs(session: Session, context_id: int) -> set[frozenset[str]]:
    """Every pair recorded as distinct in the context (for the audit)."""
    a = Association
    rows = session.execute(
        select(a.subject, a.object)
        .where(a.context_id == context_id, a.label.in_(DISTINCT_LABELS))
        .group_by(a.subject, a.object)
        .having(and_(func.sum(a.weight) > 0, func.sum(a.claims) > 0))
    )
    return {frozenset((s, o)) for s, o in rows if s != o}


# -- the embed_glosses job -----------------------------------------------------------------------


@dataclass(frozen=True)
class GlossTodo:
    entry_id: int
    name: str
    gloss: str
    kind: str = "concept"


def stale(session: Session, context_id: int, scopes: Sequence[str], model: str) -> list[GlossTodo]:
    """Concepts and labels stored under exactly `scopes` whose gloss changed since it was last
    embedded with `model` (or was never embedded). Run it with a principal reading only
    `scopes`."""
    v = VocabEntry
    rows = list(
        session.execute(
            select(v.id, v.name, v.kind).where(
                v.context_id == context_id,
                v.alias_of.is_(None),
                v.scopes == sorted(scopes),
            )
        )
    )
    if not rows:
        return []
    facts = net_facts(session, context_id)
    concepts = _glosses({r.name for r in rows if r.kind == "concept"}, facts, EMBED_FACTS)
    labels = _label_glosses({r.name for r in rows if r.kind == "label"}, facts, EMBED_FACTS)
    entries = [(r.id, r.name) for r in rows]
    kinds = {r.id: r.kind for r in rows}
    have = {
        entry_id: text
        for entry_id, text in session.execute(
            select(VocabVector.entry_id, VocabVector.gloss).where(
                VocabVector.context_id == context_id, VocabVector.model == model
            )
        )
    }
    todo = []
    for entry_id, name in sorted(entries, key=lambda e: e[0]):
        text = (concepts if kinds[entry_id] == "concept" else labels)[name]
        if have.get(entry_id) != text:
            todo.append(GlossTodo(entry_id, name, text, kinds[entry_id]))
    return todo


def embed(embedder: Embedder, todo: Sequence[GlossTodo]) -> Vectors:
    """The glosses' vectors, refused on NaN, infinities, zero rows or a wrong width."""
    raw = embedder.embed_documents([t.gloss for t in todo])
    return checked(raw, len(todo), embedder.dim, "gloss_embeddings")


def store(
    session: Session,
    embedder: Embedder,
    context_id: int,
    scopes: Sequence[str],
    todo: Sequence[GlossTodo],
    vectors: Vectors,
) -> int:
    """Write (or replace) the gloss vectors of one batch."""
    if not todo:
        return 0
    rows = [
        {
            "entry_id": t.entry_id,
            "model": embedder.name,
            "context_id": context_id,
            "dim": embedder.dim,
            "kind": t.kind,
            "gloss": t.gloss,
            "embedding": vec,
            "scopes": sorted(scopes),
        }
        for t, vec in zip(todo, vectors, strict=True)
    ]
    stmt = insert(VocabVector)
    stmt = stmt.on_conflict_do_update(
        index_elements=["entry_id", "model"],
        set_={
            "dim": stmt.excluded.dim,
            "gloss": stmt.excluded.gloss,
            "embedding": stmt.excluded.embedding,
            "updated_at": func.now(),
        },
    )
    session.execute(stmt, rows)
    return len(rows)
