"""The paragraph vectors' write path (search/vectors.py): the job plan embeds each distinct text
once and keeps a paragraph's vectors in one batch; vectors are checked before anything is stored
and reach PostgreSQL bit for bit through the binary format."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.contexts import contexts
from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput, block
from tabane.models.embedder import Vectors
from tabane.principal import Principal
from tabane.search import vectors
from tabane.service import Tabane
from tabane.storage.schema import ContextModel, Paragraph, ParagraphVector, Source

from helpers import BadEmbedder, unique

Todo = list[tuple[int, str, list[str]]]

texts_of = st.sampled_from(["a", "b", "c", "boilerplate", "x" * 40, "y" * 7, "z"])
todos = st.lists(st.tuples(texts_of, st.lists(texts_of, max_size=3)), min_size=0, max_size=60).map(
    lambda ps: [(100 + i, t, qs) for i, (t, qs) in enumerate(ps)]
)


class Hashing:
    """A deterministic embedder: each text's vector depends on the text alone; counts texts."""

    name = "hashing-8"
    dim = 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.seen.extend(texts)
        rows = [np.random.default_rng(sum(map(ord, t)) + len(t)).random(self.dim) for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(todo=todos, size=st.integers(1, 9))
def test_the_plan_embeds_each_text_once_and_keeps_paragraphs_whole(todo: Todo, size: int) -> None:
    plan = vectors.batches(todo, size)
    own = {pid: [text, *qs] for pid, text, qs in todo}
    embedded = [t for b in plan for t in b.texts]
    assert sorted(embedded) == sorted({t for ts in own.values() for t in ts})  # each once
    assert all(len(b.texts) <= size for b in plan)
    keys = [k for b in plan for k in b.keys]
    assert sorted(keys) == sorted((pid, i) for pid, ts in own.items() for i in range(len(ts)))
    for b in plan:  # a paragraph's vectors are written together, its text first
        pids = {pid for pid, _ in b.keys}
        assert sum(len(own[p]) for p in pids) == len(b.keys) and b.paragraphs == len(pids)
        assert len(b.keys) <= vectors.ROWS or b.paragraphs == 1
    # Each key's id names its own text, embedded in this batch or an earlier one, and forgotten
    # (`last`) only once no later batch needs it.
    text_of = dict(enumerate(embedded))
    alive: set[int] = set()
    for b in plan:
        alive |= set(range(b.first, b.first + len(b.texts)))
        assert all(i in alive for i in b.ids)
        assert [text_of[i] for i in b.ids] == [own[p][o] for p, o in b.keys]
        assert set(b.last) <= set(b.ids)
        alive -= set(b.last)
    assert not alive
    assert vectors.batches(todo, size) == plan  # deterministic


def test_repeated_texts_go_first_and_the_last_calls_shrink() -> None:
    todo: Todo = [(i, f"unique paragraph {i}", []) for i in range(300)]
    todo += [(1000 + i, "Part of the Stable ABI.", []) for i in range(50)]
    plan = vectors.batches(todo)
    assert plan[0].texts[0] == "Part of the Stable ABI."  # its 50 rows are written first
    assert len(plan[0].keys) == 50 + len(plan[0].texts) - 1
    calls = [len(b.texts) for b in plan if b.texts]
    assert max(calls) == vectors.BATCH and calls[-1] <= vectors.TAIL
    assert calls[-4:] == sorted(calls[-4:], reverse=True)


def test_a_paragraph_with_many_questions_stays_in_one_batch() -> None:
    questions = [f"question {i}?" for i in range(vectors.BATCH + 5)]
    plan = vectors.batches([(1, "text", questions), (2, "other", [])])
    holding = [b for b in plan if any(pid == 1 for pid, _ in b.keys)]
    assert len(holding) == 1 and len(holding[0].keys) == len(questions) + 1


def test_embed_shares_vectors_of_equal_texts_and_forgets_them() -> None:
    model = Hashing()
    todo: Todo = [(1, "same", ["q"]), (2, "other", []), (3, "same", [])]
    known: dict[int, Vectors] = {}
    got = {}
    for b in vectors.batches(todo, 1):
        for key, vec in zip(b.keys, vectors.embed(model, b, known), strict=True):
            got[key] = vec
    assert sorted(model.seen) == ["other", "q", "same"]
    assert np.array_equal(got[(1, 0)], got[(3, 0)]) and not known
    assert all(abs(float(np.linalg.norm(v)) - 1.0) < 1e-6 for v in got.values())  # checked


@pytest.mark.parametrize("mode", ["nan", "width"])
def test_embed_refuses_bad_vectors(mode: str) -> None:
    plan = vectors.batches([(1, "text", [])])
    with pytest.raises(InvalidInput):
        vectors.embed(BadEmbedder(mode), plan[0], {})


def _source(vsvc: Tabane, user: Principal, context: str, texts: list[str]) -> tuple[int, int]:
    doc = DocumentInput(source_id=unique("src"), paragraphs=[block(t) for t in texts])
    vsvc.ingest(user, context, doc)
    with vsvc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        pk = session.scalar(
            select(Source.id).where(Source.context_id == ctx.id, Source.source_id == doc.source_id)
        )
        assert pk is not None
        return ctx.id, pk


def _scopes(session: Session, source_pk: int) -> list[str]:
    source = session.get(Source, source_pk)
    assert source is not None
    return list(source.scopes)


def test_store_writes_the_vectors_bit_for_bit(vsvc: Tabane, user: Principal, context: str) -> None:
    context_id, source_pk = _source(vsvc, user, context, ["one", "two", "three"])
    model = Hashing()
    rng = np.random.default_rng(7)
    with vsvc.store.session(user) as session:
        todo = vectors.missing(session, source_pk, model.name)
        keys = [(pid, 0) for pid, _, _ in todo]
        first = rng.standard_normal((3, model.dim)).astype(np.float32)
        first[0, 0] = np.float32(1.0000001192092896)  # the next float32 after 1: no rounding
        scopes = _scopes(session, source_pk)
        vectors.store(session, model, context_id, source_pk, scopes, keys[:2], first[:2])
    with vsvc.store.session(user) as session:  # a second transaction, maybe a new connection
        vectors.store(session, model, context_id, source_pk, scopes, keys, -first)
        rows = session.execute(
            select(ParagraphVector.paragraph_id, ParagraphVector.embedding, ParagraphVector.dim)
            .where(ParagraphVector.source_pk == source_pk, ParagraphVector.model == model.name)
            .order_by(ParagraphVector.paragraph_id)
        ).all()
        assert vectors.missing(session, source_pk, model.name) == []
        assert (
            session.scalar(
                select(ContextModel.dim).where(
                    ContextModel.context_id == context_id, ContextModel.model == model.name
                )
            )
            == model.dim
        )
    stored = np.asarray([np.asarray(r.embedding, dtype=np.float32) for r in rows])
    assert [r.paragraph_id for r in rows] == [k[0] for k in keys]
    assert {r.dim for r in rows} == {model.dim}
    # The first two were kept (a stored vector is never replaced), the third written later.
    assert np.array_equal(stored, np.vstack([first[:2], -first[2:]]))


def test_a_batch_is_all_or_nothing(vsvc: Tabane, user: Principal, context: str) -> None:
    """One bad row (a paragraph that does not exist) refuses the whole batch's statement."""
    context_id, source_pk = _source(vsvc, user, context, ["alpha", "beta"])
    model = Hashing()
    with vsvc.store.session(user) as session:
        pids = list(session.scalars(select(Paragraph.id).where(Paragraph.source_pk == source_pk)))
        scopes = _scopes(session, source_pk)
    keys = [(pids[0], 0), (pids[1], 0), (max(pids) + 10**9, 0)]
    vecs = np.ones((3, model.dim), dtype=np.float32)
    with pytest.raises(IntegrityError), vsvc.store.session(user) as session:
        vectors.store(session, model, context_id, source_pk, scopes, keys, vecs)
    with vsvc.store.session(user) as session:
        assert len(vectors.missing(session, source_pk, model.name)) == 2
