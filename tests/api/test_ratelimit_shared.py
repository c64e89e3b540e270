"""Rate limits shared through PostgreSQL: two apps, each with its own store and pools (as two
API processes have) against one server, admit together what one bucket allows; a heavy slot
taken by one is refused to the other; a killed process's slot comes back; the setting chooses."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest

from tabane.api.app import create_app
from tabane.api.ratelimit import HEAVY_WAIT, RateLimiter, RateLimits
from tabane.api.ratelimit_shared import SharedRateLimiter, limiter_for, shares
from tabane.config import Settings
from tabane.errors import Overloaded, RateLimited
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve, unique, wait_until


@pytest.fixture(scope="module")
def other(settings: Settings, svc: Tabane) -> Iterator[Tabane]:
    """A second open store on the same server: its own engines and pools, as another process."""
    second = Tabane.open(settings)
    yield second
    second.close()


@pytest.fixture
def user(svc: Tabane) -> Principal:
    name = unique("rl")
    svc.add_user(name)
    return svc.principal(name)


def _admitted(limiters: list[RateLimiter], stores: list[Tabane], who: Principal, n: int) -> int:
    """Send `n` requests of `who`, alternating between one app per limiter; the 200s."""
    with ExitStack() as stack:
        urls = [
            stack.enter_context(serve(create_app(s, lambda r: who, limiter=lim)))
            for s, lim in zip(stores, limiters, strict=True)
        ]
        codes = [httpx.get(f"{urls[i % len(urls)]}/contexts").status_code for i in range(n)]
    assert set(codes) <= {200, 429}, codes
    return codes.count(200)


def test_two_apps_share_one_bucket(svc: Tabane, other: Tabane, user: Principal) -> None:
    limits = RateLimits(rps=0.5, burst=4)
    shared = [SharedRateLimiter(limits, s.store) for s in (svc, other)]
    began = time.monotonic()
    admitted = _admitted(shared, [svc, other], user, 16)
    earned = (time.monotonic() - began) * limits.rps
    assert limits.burst <= admitted <= limits.burst + int(earned) + 1
    for lim in shared:
        lim.close()


def test_per_process_limits_let_each_app_take_the_whole_burst(
    svc: Tabane, other: Tabane, user: Principal
) -> None:
    """The contrast the shared limiter removes: two processes, twice the burst."""
    limits = RateLimits(rps=0.01, burst=4)
    admitted = _admitted([RateLimiter(limits), RateLimiter(limits)], [svc, other], user, 16)
    assert admitted == 2 * limits.burst


def test_a_heavy_slot_is_one_for_the_whole_store(svc: Tabane, other: Tabane) -> None:
    key = f"key:{unique('k')}"
    one, two = (SharedRateLimiter(RateLimits(heavy=1), s.store) for s in (svc, other))
    assert one.acquire_heavy(key) is True
    assert two.in_flight(key) == 1
    with pytest.raises(RateLimited) as refused:
        two.acquire_heavy(key)
    assert refused.value.issues[0].path == "TABANE_HEAVY_CONCURRENCY"
    another = f"key:{unique('k')}"
    assert two.acquire_heavy(another) is True  # another key has its own slots
    two.release_heavy(another)
    one.release_heavy(key)
    assert two.acquire_heavy(key) is True
    two.release_heavy(key)
    assert one.in_flight(key) == 0
    one.close()
    two.close()


def test_the_store_wide_total_waits_then_refuses(svc: Tabane, other: Tabane) -> None:
    limits = RateLimits(total=1)
    one, two = (SharedRateLimiter(limits, s.store) for s in (svc, other))
    assert one.acquire_heavy(f"key:{unique('a')}")
    began = time.monotonic()
    with pytest.raises(Overloaded):
        two.acquire_heavy(f"key:{unique('b')}")
    assert time.monotonic() - began >= HEAVY_WAIT * 0.9  # it waited for a slot to end
    one.release_heavy(next(iter(one._holds)))
    assert two.acquire_heavy("key:b2")
    two.release_heavy("key:b2")
    one.close()
    two.close()


HOLDER = """
import sys, time
from sqlalchemy import create_engine
from tabane.storage.shared_limits import LimitsPool
pool = LimitsPool(create_engine(sys.argv[1]), 1.0)
hold = pool.hold()
assert pool.take(hold, [(sys.argv[2], 1)]) != [None]
print("held", flush=True)
time.sleep(120)
"""


def test_a_killed_process_gives_its_slot_back(svc: Tabane) -> None:
    key = f"key:{unique('dead')}"
    url = svc.store.owner.url.render_as_string(hide_password=False)
    mine = SharedRateLimiter(RateLimits(heavy=1), svc.store)
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, key], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(RateLimited):
                mine.acquire_heavy(key)
            assert mine.in_flight(key) == 1
        finally:
            holder.kill()
    wait_until(lambda: mine.in_flight(key) == 0, timeout=10)  # its session ended with it
    assert mine.acquire_heavy(key)
    mine.release_heavy(key)
    mine.close()


def test_the_setting_chooses(svc: Tabane, settings: Settings) -> None:
    assert not shares(settings)  # auto on the embedded store: per process
    assert shares(Settings(home=settings.home, database_url="postgresql://x@h/db"))
    chosen = Settings(home=settings.home, rate_shared="database")
    shared = limiter_for(chosen, svc.store)
    assert isinstance(shared, SharedRateLimiter)
    assert svc.store.closers.pop() == shared.close  # the store closes it
    shared.close()
    assert type(limiter_for(settings, svc.store)) is RateLimiter
    env = {"TABANE_HOME": str(settings.home), "TABANE_RATE_SHARED": "db"}
    with pytest.raises(Exception, match="TABANE_RATE_SHARED"):
        Settings.from_env(env)


def test_processes_starting_at_once_make_the_table_once(svc: Tabane) -> None:
    """Seen with two `tabane serve` started together on a fresh store: both made the schema
    and one died on the catalog's unique index."""
    from sqlalchemy.schema import DropSchema

    from tabane.storage.shared_limits import SCHEMA, LimitsPool

    with svc.store.owner.begin() as conn:
        conn.execute(DropSchema(SCHEMA, cascade=True, if_exists=True))
    pools = [LimitsPool(svc.store.owner, 1.0) for _ in range(6)]
    barrier, errors = threading.Barrier(len(pools)), []

    def make(pool: LimitsPool) -> None:
        barrier.wait()
        try:
            pool.ensure_table()
        except Exception as exc:  # the assertion names it
            errors.append(exc)

    threads = [threading.Thread(target=make, args=(pool,)) for pool in pools]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for pool in pools:
        pool.close()
    assert errors == []
