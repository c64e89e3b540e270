"""What erasing a user's claims leaves to repair in the graph that outlives them.

access/erasure.py deletes the claims; the service then calls these, in the same transaction,
for the contexts and scope sets that stay:

- `closed_by`: the claims an erased claim closed ("superseded"). A correction that is gone
  corrects nothing: `reopen` opens them again with the `valid_until` they had before it, and
  their edges are re-netted with the rest.
- `forget_glosses`: a stored gloss quotes the heaviest facts of its concept (or uses of its
  label), the erased claims among them (text and vector), in the claims' scope set and in every
  wider one of the context (a gloss reads the facts of the sets inside its own). Those of the
  concepts and labels the erased claims named are deleted; the `embed_glosses` job of each set
  writes them again from the facts left, where a worker has an embedder.
- `forget_spellings`: a concept or label spelled only by the erased claims (no claim left of
  that context and scope set names it, no alias points at it) leaves the vocabulary, with its
  statistics, so resolve no longer finds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ARRAY,
    ColumnElement,
    Text,
    and_,
    delete,
    exists,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session, aliased

from tabane.checks import EdgeKey
from tabane.graph import vocabulary_stats
from tabane.storage.schema import Claim, VocabEntry, VocabVector

Where = tuple[int, tuple[str, ...]]  # (context id, scope set)
Edges = Mapping[Where, set[EdgeKey]]


def closed_by(session: Session, erased: ColumnElement[bool]) -> list[Any]:
    """The claims that stay and that a claim matching `erased` closed as superseded (id,
    context, scope set and edge key), read before the erased claims are deleted."""
    closers = select(Claim.id).where(erased).scalar_subquery()
    return list(
        session.execute(
            select(
                Claim.id,
                Claim.context_id,
                Claim.scopes,
                Claim.perspective,
                Claim.subject,
                Claim.label,
                Claim.object,
            ).where(Claim.closed_by.in_(closers), ~erased)
        )
    )


def reopen(session: Session, rows: Sequence[Any]) -> dict[Where, set[EdgeKey]]:
    """Open the claims `closed_by` found again; returns the edges to re-net, by context and
    scope set."""
    if not rows:
        return {}
    session.execute(
        update(Claim)
        .where(Claim.id.in_([r.id for r in rows]))
        .values(
            closed_at=None,
            closed_by=None,
            close_reason=None,
            valid_until=Claim.valid_until_before,
            valid_until_before=None,
        )
    )
    edges: dict[Where, set[EdgeKey]] = {}
    for r in rows:
        if r.subject is not None:
            key = (r.perspective, str(r.subject), str(r.label), str(r.object))
            edges.setdefault((r.context_id, tuple(r.scopes)), set()).add(key)
    return edges


def _named(edges: Iterable[EdgeKey]) -> tuple[set[str], set[str]]:
    concepts = {name for _, s, _, o in edges for name in (s, o)}
    return concepts, {label for _, _, label, _ in edges}


def forget_glosses(session: Session, edges: Edges) -> set[Where]:
    """Delete the stored glosses (every model's) of the concepts and labels the erased claims
    named (a label's gloss quotes its uses), in their scope sets and the wider ones; returns the
    (context, scope set) pairs to embed again."""
    touched: set[Where] = set()
    for (context_id, scopes), keys in edges.items():
        concepts, labels = _named(keys)
        entries = select(VocabEntry.id, VocabEntry.scopes).where(
            VocabEntry.context_id == context_id,
            or_(
                and_(VocabEntry.kind == "concept", VocabEntry.name.in_(sorted(concepts))),
                and_(VocabEntry.kind == "label", VocabEntry.name.in_(sorted(labels))),
            ),
            VocabEntry.scopes.op("@>", is_comparison=True)(literal(list(scopes), ARRAY(Text))),
            exists().where(VocabVector.entry_id == VocabEntry.id),
        )
        found = session.execute(entries).all()
        if found:
            ids = [r.id for r in found]
            session.execute(delete(VocabVector).where(VocabVector.entry_id.in_(ids)))
            touched |= {(context_id, tuple(r.scopes)) for r in found}
    return touched


def forget_spellings(session: Session, edges: Edges) -> list[str]:
    """Delete the concepts and labels the erased claims named that nothing left names (one
    query per context, scope set and kind); returns their names."""
    doomed: list[int] = []
    alias = aliased(VocabEntry)
    for (context_id, scopes), keys in edges.items():
        concepts, labels = _named(keys)
        for kind, names in (("concept", concepts), ("label", labels)):
            v = VocabEntry
            named_by = (
                or_(Claim.subject == v.name, Claim.object == v.name)
                if kind == "concept"
                else Claim.label == v.name
            )
            left = exists().where(
                Claim.context_id == context_id, Claim.scopes == list(scopes), named_by
            )
            aliased_to = exists().where(
                alias.context_id == context_id, alias.kind == kind, alias.alias_of == v.name
            )
            doomed += session.scalars(
                select(v.id).where(
                    v.context_id == context_id,
                    v.kind == kind,
                    v.scopes == list(scopes),
                    v.name.in_(sorted(names)),
                    v.alias_of.is_(None),
                    ~left,
                    ~aliased_to,
                )
            ).all()
    vocabulary_stats.unbump_entries(session, doomed)
    if not doomed:
        return []
    gone = delete(VocabEntry).where(VocabEntry.id.in_(doomed)).returning(VocabEntry.name)
    return sorted(set(session.scalars(gone)))
