"""A search's usage counts (contexts/usage.py): written at most once per interval per user and
context, the reader's own shown at once, another user's within the interval, none lost."""

from __future__ import annotations

from tabane.contexts.usage import Tally
from tabane.ingest.documents import DocumentInput, block
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

from helpers import FakeClock, unique


def _facade(svc: Tabane, clock: FakeClock, interval: float = 5.0) -> Tabane:
    fresh = Tabane.build(svc.store, svc.settings, None)
    fresh.usage = Tally(interval, clock=clock)
    return fresh


def _shared(svc: Tabane, make_user, make_context):
    team = unique("team:")
    alice = make_user(extra_write=(team,))
    bob = make_user(extra_read=(team,))
    ctx = make_context(owner=alice, scopes=[team])
    svc.ingest(alice, ctx, DocumentInput("k", paragraphs=[block("the kettle boils water")]))
    return alice, bob, ctx


def _reads(svc: Tabane, user, ctx: str) -> tuple[int, int]:
    usage = svc.get_context(user, ctx).usage
    return usage.reads, usage.misses


def test_counts_wait_for_the_interval_but_the_reader_sees_their_own(
    svc: Tabane, make_user, make_context
) -> None:
    alice, bob, ctx = _shared(svc, make_user, make_context)
    clock = FakeClock()
    mine = _facade(svc, clock)
    for query in ("kettle", "boils", "nothing like it"):
        mine.search(alice, SearchRequest(query, contexts=(ctx,)))
    assert _reads(svc, bob, ctx) == (1, 0)  # the first at once, two waiting
    clock.now += 5.0
    mine.search(bob, SearchRequest("kettle", contexts=(ctx,)))  # another pair: its own first
    assert _reads(svc, bob, ctx) == (2, 0)
    mine.search(alice, SearchRequest("water", contexts=(ctx,)))  # due: the waiting ones ride
    assert _reads(svc, bob, ctx) == (5, 1)
    mine.search(alice, SearchRequest("kettle", contexts=(ctx,)))
    assert _reads(mine, alice, ctx) == (6, 1)  # alice's own, written before she is shown them


def test_interval_zero_writes_every_search(svc: Tabane, make_user, make_context) -> None:
    alice, bob, ctx = _shared(svc, make_user, make_context)
    mine = _facade(svc, FakeClock(), interval=0.0)
    for _ in range(3):
        mine.search(alice, SearchRequest("kettle", contexts=(ctx,)))
    assert _reads(svc, bob, ctx) == (3, 0)


def test_close_writes_what_waits_and_a_deleted_context_loses_only_its_counts(
    svc: Tabane, make_user, make_context
) -> None:
    alice, bob, ctx = _shared(svc, make_user, make_context)
    gone = make_context(owner=alice)
    mine = _facade(svc, FakeClock())
    for name in (ctx, ctx, gone, gone):
        mine.search(alice, SearchRequest("kettle", contexts=(name,)))
    svc.delete_context(alice, gone)
    mine.write_usage()
    assert _reads(svc, bob, ctx) == (2, 0)
