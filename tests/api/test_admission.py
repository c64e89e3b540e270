"""Overload is refused at once, never queued into a 500: past the server's own limit of heavy
operations (every key and user together) a request is 503 `overloaded` with `Retry-After`; a
transaction that cannot get a pooled connection is `overloaded` too; and a request's database
work runs under its deadline, stopped by PostgreSQL when it runs out."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from tabane.api.app import create_app
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.errors import Overloaded
from tabane.service import Tabane
from tabane.storage import store as store_module
from tabane.storage.store import DEADLINE

from helpers import GatedSearch, in_threads, serve, wait_until

SEARCH = {"query": "anything at all"}


@pytest.mark.slow
def test_past_the_servers_heavy_limit_requests_are_503_overloaded_with_retry_after(
    svc: Tabane, user, make_user, context: str
) -> None:
    """Two callers, each under their own limit of 4, fill the server's limit of 3 together:
    the next heavy request of either is refused at once; light routes still pass."""
    alice = user
    bob = make_user()
    svc.grant(bob.name, alice.default_scopes[0], write=False)
    bob = svc.principal(bob.name)  # now reads alice's context too
    gated = GatedSearch(svc)
    callers = {"alice": alice, "bob": bob}
    resolve = lambda request: callers[request.headers["x-who"]]  # noqa: E731
    limiter = RateLimiter(RateLimits(rps=0, heavy=4, total=3))
    with serve(create_app(gated, resolve, limiter=limiter)) as url:  # type: ignore[arg-type]
        body = {**SEARCH, "contexts": [context]}

        def search(who: str) -> httpx.Response:
            return httpx.post(
                f"{url}/sources/search", json=body, headers={"x-who": who}, timeout=60
            )

        threads, statuses = in_threads(lambda: search("alice"), 2)
        more, more_statuses = in_threads(lambda: search("bob"), 1)
        try:
            wait_until(lambda: gated.entered == 3)
            refused = search("bob")
            assert refused.status_code == 503
            error = refused.json()["error"]
            assert (error["code"], error["written"]) == ("overloaded", "nothing")
            assert [i["path"] for i in error["issues"]] == ["TABANE_HEAVY_TOTAL"]
            assert refused.headers["retry-after"] == "1"
            light = httpx.get(f"{url}/contexts", headers={"x-who": "bob"})
            assert light.status_code == 200
            assert gated.entered == 3  # the refused search never reached the service
        finally:
            gated.gate.set()
            for t in threads + more:
                t.join(timeout=60)
        assert statuses + more_statuses == [200, 200, 200]
        assert search("bob").status_code == 200  # the slots came back


def test_a_transaction_with_no_connection_free_is_overloaded(
    svc: Tabane, user, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = svc.store.app
    held = [engine.connect() for _ in range(engine.pool.size() + engine.pool._max_overflow)]  # type: ignore[attr-defined]
    monkeypatch.setattr(engine.pool, "_timeout", 0.2)
    try:
        began = time.monotonic()
        with pytest.raises(Overloaded) as caught:
            svc.list_contexts(user)
        assert time.monotonic() - began < 5
        assert [i.path for i in caught.value.issues] == ["store"]
    finally:
        for conn in held:
            conn.close()
    assert svc.list_contexts(user) is not None


def test_database_work_past_the_requests_deadline_is_stopped_and_overloaded(
    svc: Tabane, user
) -> None:
    token = DEADLINE.set(time.monotonic() + 0.5)
    try:
        began = time.monotonic()
        with pytest.raises(Overloaded) as caught, svc.store.session(user) as session:
            session.execute(text("SELECT pg_sleep(30)"))
        assert time.monotonic() - began < 10
        assert [i.path for i in caught.value.issues] == ["TABANE_REQUEST_SECONDS"]
        with pytest.raises(Overloaded):  # past it, nothing more runs
            svc.list_contexts(user)
    finally:
        DEADLINE.reset(token)
    assert svc.list_contexts(user) is not None  # no deadline: no timeout


def test_an_http_request_runs_under_its_deadline(svc: Tabane, user) -> None:
    seen: list[Any] = []

    class Spy:
        def __getattr__(self, name: str) -> Any:
            return getattr(svc, name)

        def list_contexts(self, who: Any) -> Any:
            seen.append(DEADLINE.get())
            with svc.store.session(who) as session:
                seen.append(session.execute(text("SHOW statement_timeout")).scalar_one())
            return svc.list_contexts(who)

    app = create_app(Spy(), lambda request: user, limiter=RateLimiter(RateLimits()))  # type: ignore[arg-type]
    with serve(app) as url:
        assert httpx.get(f"{url}/contexts").status_code == 200
    deadline, timeout = seen
    assert deadline is not None and deadline > time.monotonic()
    assert timeout.endswith("ms") or timeout.endswith("s")
    assert timeout != "0"
    assert store_module.DEADLINE.get() is None  # nothing leaks into the test's own context


def test_a_heavy_request_waits_a_moment_for_a_slot_that_frees(
    svc: Tabane, user, context: str
) -> None:
    gated = GatedSearch(svc)
    limiter = RateLimiter(RateLimits(rps=0, heavy=0, total=2))
    with serve(create_app(gated, lambda request: user, limiter=limiter)) as url:  # type: ignore[arg-type]
        body = {**SEARCH, "contexts": [context]}
        search = lambda: httpx.post(f"{url}/sources/search", json=body, timeout=60)  # noqa: E731
        threads, statuses = in_threads(search, 2)
        try:
            wait_until(lambda: gated.entered == 2)
            late, late_statuses = in_threads(search, 1)  # the server's two slots are taken
            time.sleep(0.3)
            gated.gate.set()  # they end well within the wait: the third gets a slot
        finally:
            gated.gate.set()
            for t in threads + late:
                t.join(timeout=60)
        assert statuses + late_statuses == [200, 200, 200]
