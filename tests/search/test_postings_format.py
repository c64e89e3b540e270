"""Merged rows in the compact format (decision 0038): rows written in PACK before migration 0040
still answer, the merge job converts them in steps, a conversion cut short leaves a readable
store and goes on where it stopped, and the explain twin scores what the lane scores."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from sqlalchemy import func, select, text, update

from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.principal import Principal, personal_scope
from tabane.search import bm25, merge
from tabane.search.codec import MARK, decode, pack
from tabane.service import Tabane
from tabane.storage.schema import Context, Job, MergedPack, Paragraph
from tabane.text.analyze import index_terms
from tests.search.test_bm25_merge import _both, _random_doc, _text

pytestmark = pytest.mark.slow  # a corpus and its merges per test

QUESTIONS = 8


def _corpus(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> tuple[Principal, str, int, tuple[str, ...]]:
    """A context of 10 random sources, merged (compact rows): (owner, name, id, scope set)."""
    owner = make_user()
    ctx = make_context(owner)
    scopes = (personal_scope(owner.name),)
    rng = random.Random(5)
    for i in range(10):
        svc.ingest(owner, ctx, _random_doc(rng, f"doc{i}", scopes))
    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        assert merge.merge(session, ctx_id, scopes, force=True).merged
    return owner, ctx, ctx_id, scopes


def _questions() -> list[str]:
    rng = random.Random(9)
    return [_text(rng, rng.randint(2, 5)) for _ in range(QUESTIONS)]


def _answers(svc: Tabane, owner: Principal, ctx: str) -> list[list[tuple[int, float]]]:
    """Each question's lane through the merged rows, checked against the packs' path."""
    out = []
    for q in _questions():
        merged_hits, pack_hits = _both(svc, owner, ctx, q)
        assert merged_hits == pack_hits, q
        out.append(merged_hits)
    return out


def _formats(svc: Tabane, ctx_id: int) -> list[tuple[int, bool]]:
    """(format, the blob starts with the compact mark) of each merged row of the context."""
    with svc.store.owner.connect() as conn:
        rows = conn.execute(
            select(MergedPack.format, MergedPack.postings).where(MergedPack.context_id == ctx_id)
        ).all()
    return [(f, bytes(b)[:1] == bytes([MARK])) for f, b in rows]


def _as_before_0040(svc: Tabane, ctx_id: int) -> int:
    """Write the context's merged rows back in PACK, format 0, as a store from before migration
    0040 holds them (as the owner, past row-level security): the rows rewritten."""
    with svc.store.owner.begin() as conn:
        rows = conn.execute(
            select(MergedPack.term, MergedPack.scopes, MergedPack.postings).where(
                MergedPack.context_id == ctx_id
            )
        ).all()
        for term, scopes, blob in rows:
            conn.execute(
                update(MergedPack)
                .where(
                    MergedPack.context_id == ctx_id,
                    MergedPack.term == term,
                    MergedPack.scopes == scopes,
                )
                .values(postings=pack(decode(blob)), format=merge.PACK_ROWS)
            )
    return len(rows)


def test_rows_written_before_the_format_answer_alike_and_the_job_converts_them(
    svc: Tabane,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner, ctx, ctx_id, scopes = _corpus(svc, make_user, make_context)
    compact = _answers(svc, owner, ctx)
    assert compact and any(compact) and set(_formats(svc, ctx_id)) == {(1, True)}
    rows = _as_before_0040(svc, ctx_id)
    assert set(_formats(svc, ctx_id)) == {(0, False)}
    assert _answers(svc, owner, ctx) == compact  # old rows still answer, the same
    with svc.store.session(owner) as session:
        before = merge.backlog(session, ctx_id, scopes)
    assert before.old == rows and not before.due() and before.merged > 0
    monkeypatch.setattr(merge, "STEP_TERMS", 4)
    with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
        session.execute(
            update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
        )
    with svc.store.session(owner) as session:  # what migration 0040 queues
        queue.enqueue_merge(session, context_id=ctx_id, scopes=scopes)
    assert Worker(svc.store, None).drain() >= 1
    assert set(_formats(svc, ctx_id)) == {(1, True)}
    assert _answers(svc, owner, ctx) == compact
    with svc.store.session(owner) as session:
        assert merge.backlog(session, ctx_id, scopes).old == 0


class _Cut(Exception):
    pass


def test_a_conversion_cut_short_reads_exactly_and_resumes_where_it_stopped(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner, ctx, ctx_id, scopes = _corpus(svc, make_user, make_context)
    compact = _answers(svc, owner, ctx)
    rows = _as_before_0040(svc, ctx_id)

    def cut(step: int) -> None:
        assert _answers(svc, owner, ctx) == compact  # between steps: a mix of formats
        if step == 1:
            raise _Cut

    sessions = lambda: svc.store.session(owner)  # noqa: E731
    with pytest.raises(_Cut):
        merge.convert_in_steps(sessions, ctx_id, scopes, step_terms=3, between=cut)
    formats = [f for f, _ in _formats(svc, ctx_id)]
    assert formats.count(0) == rows - 6 and formats.count(1) == 6  # two steps of 3 terms
    assert _answers(svc, owner, ctx) == compact
    # a step dying inside its transaction leaves nothing of itself
    with pytest.raises(_Cut), sessions() as session:
        merge.rebuild(session, ctx_id, sorted(scopes), None, None)
        raise _Cut
    assert [f for f, _ in _formats(svc, ctx_id)].count(0) == rows - 6
    assert merge.convert_in_steps(sessions, ctx_id, scopes, step_terms=3) >= rows - 6
    assert set(_formats(svc, ctx_id)) == {(1, True)}
    assert _answers(svc, owner, ctx) == compact
    assert merge.convert_in_steps(sessions, ctx_id, scopes) == 0  # nothing left


def test_the_explain_twin_scores_the_compact_rows_as_the_lane_does(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner, _, ctx_id, _ = _corpus(svc, make_user, make_context)
    checked = 0
    with svc.store.session(owner) as session:
        session.execute(text("SELECT 1"))
        for q in _questions():
            terms = bm25.unique_terms(index_terms(q))
            stats, hits = bm25.ranked(session, ctx_id, terms, pool=10)
            twin = bm25.statistics(session, ctx_id, terms)
            assert twin == stats
            ranked = bm25.scores(session, ctx_id, terms, twin)
            assert ranked.best(10) == [(h.paragraph_id, h.score) for h in hits]
            for hit in hits:
                source_pk = session.scalar(
                    select(Paragraph.source_pk).where(Paragraph.id == hit.paragraph_id)
                )
                assert source_pk is not None
                parts = bm25.contributions(
                    session, ctx_id, terms, twin, hit.paragraph_id, source_pk
                )
                assert sum(parts.values()) == pytest.approx(hit.score, abs=1e-9)
                assert ranked.rank(hit.paragraph_id) == hit.rank
                checked += 1
        rows = session.scalar(select(func.count()).where(MergedPack.context_id == ctx_id))
    assert checked >= QUESTIONS and rows
