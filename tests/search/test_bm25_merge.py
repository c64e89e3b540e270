"""Merged BM25 packs (search/merge.py) read exactly what the packs hold: after merges, removals
and re-ingests in any order, the one-read lane equals the statistics-rows path over the packs
themselves, for every caller."""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
from sqlalchemy import func, select, update

from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.principal import Principal, personal_scope
from tabane.search import bm25, merge
from tabane.service import Tabane
from tabane.storage.schema import Context, DeadPostings, Job, MergedPack, Pack, Source
from tabane.text.analyze import index_terms

from helpers import unique

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

WORDS = [
    "kernel",
    "module",
    "socket",
    "packet",
    "route",
    "table",
    "cache",
    "page",
    "memory",
    "swap",
    "disk",
    "mount",
    "file",
    "inode",
    "lock",
    "queue",
    "thread",
    "signal",
    "timer",
    "clock",
    "power",
    "network",
    "bridge",
    "vlan",
    "tunnel",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _doc(name: str, texts: list[str], scopes: tuple[str, ...]) -> DocumentInput:
    return DocumentInput(source_id=name, paragraphs=[block(t) for t in texts], scopes=scopes)


def _random_doc(rng: random.Random, name: str, scopes: tuple[str, ...]) -> DocumentInput:
    texts = [_text(rng, rng.randint(3, 12)) for _ in range(rng.randint(1, 6))]
    return _doc(name, texts, scopes)


def _both(svc: Tabane, who: Principal, ctx_name: str, question: str) -> tuple[list, list]:
    """The lane through the merged rows, and through the packs (the filter path: every source)."""
    terms = bm25.unique_terms(index_terms(question))
    with svc.store.session(who) as session:
        ctx = session.scalar(select(Context).where(Context.name == ctx_name))
        assert ctx is not None
        _, merged_hits = bm25.ranked(session, ctx.id, terms, pool=50)
        every = select(Source.id).where(Source.context_id == ctx.id)
        _, pack_hits = bm25.ranked(session, ctx.id, terms, pool=50, eligible=every)
    as_rows = lambda hits: [(h.paragraph_id, round(h.score, 9)) for h in hits]  # noqa: E731
    return as_rows(merged_hits), as_rows(pack_hits)


def _merge(svc: Tabane, who: Principal, ctx_name: str, scopes: tuple[str, ...]) -> merge.Merged:
    with svc.store.session(who) as session:
        ctx = session.scalar(select(Context).where(Context.name == ctx_name))
        assert ctx is not None
        return merge.merge(session, ctx.id, scopes, force=True)


def _two_sources(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str], *texts: str
) -> tuple[Principal, str, tuple[str, ...]]:
    """A new owner and context with sources "a" and "b" of one paragraph each (`texts`) in the
    owner's personal scope: (owner, context, scopes)."""
    owner = make_user()
    ctx = make_context(owner)
    scopes = (personal_scope(owner.name),)
    for name, text in zip("ab", texts, strict=True):
        svc.ingest(owner, ctx, _doc(name, [text], scopes))
    return owner, ctx, scopes


def test_merged_reads_equal_the_packs_through_merges_removals_and_reingests(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner = make_user(extra_write=("team",))
    mine = (personal_scope(owner.name),)
    ctx = make_context(owner)
    rng = random.Random(11)
    names = [f"doc{i}" for i in range(12)]
    questions = [_text(rng, 3) for _ in range(6)]
    stored: dict[str, DocumentInput] = {}
    for step in range(48):
        action = rng.choice(("ingest", "ingest", "retract", "merge", "retitle"))
        name = rng.choice(names)
        scopes = rng.choice((mine, ("team",)))
        if action == "ingest":
            stored[name] = _random_doc(rng, name, scopes)
            svc.ingest(owner, ctx, stored[name])
        elif action == "retract":
            if stored.pop(name, None) is None:  # not stored (or already retracted)
                continue
            svc.retract(owner, ctx, name)
        elif action == "retitle":  # same paragraphs (same ids), new heading terms
            if name not in stored:
                continue
            stored[name] = dataclasses.replace(stored[name], title=_text(rng, 2))
            assert svc.ingest(owner, ctx, stored[name]).outcome == "unchanged"
        elif step % 2:
            _merge(svc, owner, ctx, scopes)
        else:  # the job's way: a few terms per transaction
            with svc.store.session(owner) as session:
                ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
            assert ctx_id is not None
            merge.merge_in_steps(
                lambda: svc.store.session(owner), ctx_id, scopes, force=True, step_terms=4
            )
        for q in questions:
            merged_hits, pack_hits = _both(svc, owner, ctx, q)
            assert merged_hits == pack_hits, (step, action, q)
    with svc.store.session(owner) as session:
        rows = session.scalar(select(func.count()).select_from(MergedPack))
    assert rows  # the sequence merged something (and masked what it removed after)


def test_a_merged_source_retracted_is_masked_until_the_next_merge_drops_it(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner, ctx, scopes = _two_sources(
        svc, make_user, make_context, "zebra crossing", "zebra stripes"
    )
    first = _merge(svc, owner, ctx, scopes)
    # a: a, zebra, crossing; b: b, zebra, stripes (a source's title is its paragraphs' term)
    assert first.merged and first.packs == 6
    svc.retract(owner, ctx, "a")
    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        dead = session.scalars(
            select(DeadPostings.ids).where(DeadPostings.context_id == ctx_id)
        ).all()
        packs = bm25.read(session, ctx_id, ["zebra", "cross"])  # index terms: stems
    assert len(dead) == 1 and len(np.frombuffer(dead[0], ">i8")) == 1
    assert len(packs["zebra"]) == 1 and len(packs["cross"]) == 0  # masked, df counts 1
    _merge(svc, owner, ctx, scopes)
    with svc.store.session(owner) as session:
        dead_left = select(func.count()).where(DeadPostings.context_id == ctx_id)
        assert session.scalar(dead_left) == 0
        terms = set(session.scalars(select(MergedPack.term).where(MergedPack.context_id == ctx_id)))
        assert terms == {"b", "zebra", "stripe"}
        fresh = select(func.count()).where(Pack.context_id == ctx_id, ~Pack.merged)
        assert session.scalar(fresh) == 0


def test_another_scope_sets_merged_rows_stay_invisible(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner = make_user(extra_write=("team",))
    reader = make_user(extra_read=("team",))
    ctx = make_context(owner, scopes=["team"])
    svc.ingest(owner, ctx, _doc("t", ["shared kernel notes"], ("team",)))
    svc.ingest(owner, ctx, _doc("p", ["private kernel notes"], (personal_scope(owner.name),)))
    _merge(svc, owner, ctx, ("team",))
    _merge(svc, owner, ctx, (personal_scope(owner.name),))
    with svc.store.session(reader) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        packs = bm25.read(session, ctx_id, ["kernel", "private"])
    assert len(packs["kernel"]) == 1 and "private" not in packs
    merged_hits, pack_hits = _both(svc, reader, ctx, "private kernel")
    assert merged_hits == pack_hits and len(merged_hits) == 1


def test_the_merge_job_merges_only_when_the_backlog_is_due(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner = make_user()
    ctx = make_context(owner)
    scopes = (personal_scope(owner.name),)
    svc.ingest(owner, ctx, _doc("s", ["alpha beta gamma"], scopes))
    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        queued = session.scalar(
            select(func.count()).where(
                Job.kind == queue.MERGE_BM25, Job.context_id == ctx_id, Job.state == "queued"
            )
        )
        small = merge.merge(session, ctx_id, scopes)  # 4 postings (title "s"): under MIN_FRESH
        assert not small.merged and small.backlog.fresh == 4
        due = merge.merge(session, ctx_id, scopes, min_fresh=4)
        assert due.merged and due.terms == 4
        again = merge.merge(session, ctx_id, scopes, min_fresh=1)  # nothing fresh since
        assert not again.merged
    assert queued == 1


def test_a_removal_waiting_on_a_merge_masks_what_the_merge_folded_in(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner, ctx, scopes = _two_sources(svc, make_user, make_context, "quokka island", "quokka smile")
    finished: list[float] = []

    def retract() -> None:
        svc.retract(owner, ctx, "a")
        finished.append(time.monotonic())

    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        assert merge.merge(session, ctx_id, scopes, force=True).merged  # holds the set's writers
        worker = threading.Thread(target=retract)
        worker.start()
        time.sleep(0.5)
        assert not finished  # the removal waits for the merge
        committed = time.monotonic()
    worker.join(10)
    assert finished and finished[0] >= committed
    # It saw the merge's flags: "a" is masked in the merged rows, not left in them.
    merged_hits, pack_hits = _both(svc, owner, ctx, "quokka island")
    assert merged_hits == pack_hits and len(merged_hits) == 1


def test_writes_between_the_steps_of_a_merge_keep_the_read_exact(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner, ctx, scopes = _two_sources(
        svc, make_user, make_context, "kernel module socket", "packet route table"
    )
    svc.ingest(owner, ctx, _doc("c", ["cache page memory swap", "disk mount"], scopes))
    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        merge.merge(session, ctx_id, scopes, force=True)
    svc.retract(owner, ctx, "b")  # masked before the next merge starts: dropped by it
    questions = ["kernel packet cache", "route table disk", "memory swap socket", "vlan bridge"]
    seen: list[int] = []

    def meanwhile(step: int) -> None:
        seen.append(step)
        if step == 0:  # merged packs of "a" in the rebuilt range, older ones elsewhere
            svc.retract(owner, ctx, "a")
        if step == 1:
            svc.ingest(owner, ctx, _doc("d", ["bridge vlan tunnel kernel"], scopes))
        for q in questions:
            merged_hits, pack_hits = _both(svc, owner, ctx, q)
            assert merged_hits == pack_hits, (step, q)

    done = merge.merge_in_steps(
        lambda: svc.store.session(owner), ctx_id, scopes, force=True, step_terms=3,
        between=meanwhile,
    )  # fmt: skip
    assert done.merged and len(seen) >= 3  # 12 terms in steps of 3
    for q in questions:
        merged_hits, pack_hits = _both(svc, owner, ctx, q)
        assert merged_hits == pack_hits, q
    with svc.store.session(owner) as session:
        masks = session.scalar(select(func.count()).where(DeadPostings.context_id == ctx_id))
    assert masks == 1  # b's mask is dropped; a's, written during the merge, stays


def test_a_paragraph_reindexed_in_place_stays_found_between_the_steps_of_a_merge(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    """A replaced source's kept paragraphs keep their ids and get new packs; their old merged
    records are masked. A step that folds the new packs in must not lose them to that mask
    (which the merge drops only after its last step), nor must a merge that dies after a step."""
    owner, ctx, scopes = _two_sources(
        svc, make_user, make_context, "kernel module socket", "packet route table"
    )
    texts = ["aardvark burrow night", "badger sett dusk", "capybara river noon"]
    svc.ingest(owner, ctx, _doc("c", texts, scopes))
    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        assert ctx_id is not None
        merge.merge(session, ctx_id, scopes, force=True)
    svc.ingest(owner, ctx, _doc("c", [texts[0], "badger sett dawn", texts[2]], scopes))
    questions = ["aardvark burrow", "capybara noon", "badger dawn", "kernel socket"]

    class Died(Exception):
        pass

    def meanwhile(step: int) -> None:
        for q in questions:
            merged_hits, pack_hits = _both(svc, owner, ctx, q)
            assert merged_hits and merged_hits == pack_hits, (step, q)
        if step == 1:
            raise Died  # the job dies here: its lease runs out, nothing after is done

    with pytest.raises(Died):
        merge.merge_in_steps(
            lambda: svc.store.session(owner), ctx_id, scopes, force=True, step_terms=2,
            between=meanwhile,
        )  # fmt: skip
    for q in questions:
        merged_hits, pack_hits = _both(svc, owner, ctx, q)
        assert merged_hits and merged_hits == pack_hits, q


def test_a_mask_hides_only_its_own_scope_sets_rows(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    """A source re-ingested under another scope set keeps its paragraph ids: the mask its old
    set's merged rows need must not hide the same ids in the new set's rows."""
    team = unique("org:team")
    owner = make_user(extra_write=(team,))
    ctx = make_context(owner)
    mine = (personal_scope(owner.name),)
    texts = ["aardvark burrow night", "badger sett dusk", "capybara river noon"]
    svc.ingest(owner, ctx, _doc("c", texts, mine))
    svc.ingest(owner, ctx, _doc("d", ["kernel module socket"], mine))
    assert _merge(svc, owner, ctx, mine).merged
    svc.ingest(owner, ctx, _doc("c", texts, (team,)))  # the same paragraphs, another set
    assert _merge(svc, owner, ctx, (team,)).merged  # the new set's rows; the old set's wait
    for q in ("aardvark burrow", "capybara noon", "kernel socket"):
        merged_hits, pack_hits = _both(svc, owner, ctx, q)
        assert merged_hits and merged_hits == pack_hits, q


def test_the_job_merges_in_steps_once_its_budget_is_due(
    svc: Tabane,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(merge, "MIN_FRESH", 1)  # any fresh posting is due
    monkeypatch.setattr(merge, "STEP_TERMS", 2)
    with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
        session.execute(
            update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
        )
    owner, ctx, _ = _two_sources(svc, make_user, make_context, "alpha beta gamma", "delta epsilon")
    assert Worker(svc.store, None).drain() >= 1
    with svc.store.session(owner) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == ctx))
        terms = set(session.scalars(select(MergedPack.term).where(MergedPack.context_id == ctx_id)))
        fresh = session.scalar(select(func.count()).where(Pack.context_id == ctx_id, ~Pack.merged))
    assert terms == {"a", "b", "alpha", "beta", "gamma", "delta", "epsilon"} and fresh == 0
