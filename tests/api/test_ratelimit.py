"""Rate limits over real HTTP: a token bucket per API key or user (burst, 429 with `Retry-After`,
refill on a fake clock), heavy operations capped per caller while light routes pass, `/mcp`
charged like any route, `/health` never, and everything off at zero."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import httpx
import pytest
from starlette.requests import Request

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.api.deps import PrincipalResolver
from tabane.api.ratelimit import RateLimiter, RateLimits, is_heavy
from tabane.config import Settings
from tabane.errors import InvalidInput, RateLimited
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import FakeClock, GatedSearch, in_threads, serve, unique, wait_until

RPC_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
SEARCH = {"query": "anything at all"}


@contextmanager
def limited(
    svc: Tabane | Any, resolve: PrincipalResolver, limits: RateLimits, clock: FakeClock
) -> Iterator[tuple[str, RateLimiter]]:
    limiter = RateLimiter(limits, clock)
    with serve(create_app(cast(Tabane, svc), resolve, limiter=limiter)) as url:
        yield url, limiter


def as_user(who: Principal) -> PrincipalResolver:
    return lambda request: who


def refused(response: httpx.Response, limit: str) -> str:
    """Assert a 429 `rate_limited` naming `limit`; return its Retry-After."""
    assert response.status_code == 429, response.text
    body = response.json()["error"]
    assert set(body) == {"code", "message", "issues", "written"}
    assert (body["code"], body["written"]) == ("rate_limited", "nothing")
    assert [i["path"] for i in body["issues"]] == [limit]
    retry = response.headers["retry-after"]
    assert re.fullmatch(r"[1-9][0-9]*", retry), retry
    return retry


@pytest.mark.slow
def test_burst_then_429_with_retry_after_and_nothing_written(svc: Tabane, user: Principal) -> None:
    clock = FakeClock()
    with limited(svc, as_user(user), RateLimits(rps=0.5, burst=3), clock) as (url, _):
        for _ in range(3):
            assert httpx.get(f"{url}/contexts").status_code == 200
        name = unique("ctx")
        response = httpx.post(f"{url}/contexts", json={"name": name})
        assert refused(response, "TABANE_RATE_RPS") == "2"  # one token at 0.5 a second
        clock.now += 2
        assert httpx.get(f"{url}/contexts/{name}").status_code == 404  # the refused POST never ran
    assert name not in {c.name for c in svc.list_contexts(user)}


@pytest.mark.slow
def test_the_bucket_refills_as_the_clock_advances(svc: Tabane, user: Principal) -> None:
    clock = FakeClock()
    with limited(svc, as_user(user), RateLimits(rps=1, burst=2), clock) as (url, _):
        get = lambda: httpx.get(f"{url}/contexts")  # noqa: E731
        assert [get().status_code for _ in range(2)] == [200, 200]
        assert refused(get(), "TABANE_RATE_RPS") == "1"
        clock.now += 0.5
        assert refused(get(), "TABANE_RATE_RPS") == "1"  # half a token: wait, in whole seconds
        clock.now += 0.5
        assert get().status_code == 200
        assert refused(get(), "TABANE_RATE_RPS") == "1"
        clock.now += 60  # a long rest refills to the burst, no further
        assert [get().status_code for _ in range(3)] == [200, 200, 429]


@pytest.mark.slow
def test_two_users_have_independent_buckets(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    people = {"a": make_user(), "b": make_user()}

    def resolve(request: Request) -> Principal:
        return people[request.headers["x-who"]]

    with limited(svc, resolve, RateLimits(rps=1, burst=2), FakeClock()) as (url, _):
        get = lambda who: httpx.get(f"{url}/contexts", headers={"x-who": who})  # noqa: E731
        assert [get("a").status_code for _ in range(3)] == [200, 200, 429]
        assert [get("b").status_code for _ in range(3)] == [200, 200, 429]


def test_each_api_key_has_its_own_bucket_and_a_401_costs_nothing(
    svc: Tabane, user: Principal
) -> None:
    first, second = (svc.create_key(user.name).token for _ in range(2))
    bearer = lambda token: {"authorization": f"Bearer {token}"}  # noqa: E731
    with limited(svc, key_resolver(svc), RateLimits(rps=1, burst=2), FakeClock()) as (url, _):
        get = lambda token: httpx.get(f"{url}/contexts", headers=bearer(token))  # noqa: E731
        assert [get(first).status_code for _ in range(3)] == [200, 200, 429]
        # Bad credentials are refused before any charge: never 429, and no one's token is spent.
        assert {get("tbn_00000000_" + "x" * 43).status_code for _ in range(5)} == {401}
        assert [get(second).status_code for _ in range(3)] == [200, 200, 429]


def test_mcp_is_charged_and_health_never_is(svc: Tabane, user: Principal) -> None:
    clock = FakeClock()
    with limited(svc, as_user(user), RateLimits(rps=1, burst=2), clock) as (url, _):
        mcp = lambda: httpx.post(f"{url}/mcp", headers=RPC_HEADERS, json=LIST_TOOLS, timeout=60)  # noqa: E731
        assert mcp().status_code == 200
        assert httpx.get(f"{url}/contexts", timeout=60).status_code == 200
        assert refused(mcp(), "TABANE_RATE_RPS") == "1"  # one bucket for both doors
        assert refused(httpx.get(f"{url}/contexts", timeout=60), "TABANE_RATE_RPS") == "1"
        assert {httpx.get(f"{url}/health", timeout=60).status_code for _ in range(10)} == {200}
        clock.now += 1
        assert mcp().status_code == 200


def test_heavy_operations_beyond_the_limit_are_429_while_light_routes_pass(
    svc: Tabane, user: Principal, context: str
) -> None:
    gated = GatedSearch(svc)
    key = f"user:{user.user_id}"
    limits = RateLimits(rps=0, heavy=2)
    with limited(gated, as_user(user), limits, FakeClock()) as (url, limiter):
        body = {**SEARCH, "contexts": [context]}
        search = lambda: httpx.post(f"{url}/sources/search", json=body, timeout=60)  # noqa: E731
        threads, statuses = in_threads(search, 2)
        try:
            wait_until(lambda: gated.entered == 2)
            assert limiter.in_flight(key) == 2
            assert refused(search(), "TABANE_HEAVY_CONCURRENCY") == "1"
            explain = httpx.post(f"{url}/contexts/{context}/sources/search/explain", json=SEARCH)
            refused(explain, "TABANE_HEAVY_CONCURRENCY")  # another heavy route, same slots
            mcp = httpx.post(f"{url}/mcp", headers=RPC_HEADERS, json=LIST_TOOLS)
            refused(mcp, "TABANE_HEAVY_CONCURRENCY")
            assert httpx.get(f"{url}/contexts").status_code == 200  # light routes still pass
            assert httpx.get(f"{url}/contexts/{context}").status_code == 200
            assert gated.entered == 2  # the refused search never reached the service
        finally:
            gated.gate.set()
            for t in threads:
                t.join(timeout=60)
        assert statuses == [200, 200]
        wait_until(lambda: limiter.in_flight(key) == 0)  # slots come back when responses end
        assert search().status_code == 200


@pytest.mark.slow
def test_limits_off_with_zero(svc: Tabane, user: Principal, context: str) -> None:
    gated = GatedSearch(svc)
    with limited(gated, as_user(user), RateLimits(rps=0, heavy=0), FakeClock()) as (url, lim):
        assert {httpx.get(f"{url}/contexts").status_code for _ in range(30)} == {200}
        body = {**SEARCH, "contexts": [context]}
        search = lambda: httpx.post(f"{url}/sources/search", json=body, timeout=60)  # noqa: E731
        threads, statuses = in_threads(search, 5)
        try:
            wait_until(lambda: gated.entered == 5)  # five heavy at once, none refused
        finally:
            gated.gate.set()
            for t in threads:
                t.join(timeout=60)
        assert statuses == [200] * 5
        assert lim.in_flight(f"user:{user.user_id}") == 0


def test_the_bucket_is_exact_under_threads() -> None:
    limiter = RateLimiter(RateLimits(rps=1, burst=500), FakeClock())
    admitted: list[int] = []

    def hammer() -> None:
        n = 0
        for _ in range(200):
            try:
                limiter.admit("k")
                n += 1
            except RateLimited:
                pass
        admitted.append(n)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(admitted) == 500  # the clock never moved: exactly the burst, no more


# Which routes are heavy; a new route or pattern has to be placed here on purpose.
HEAVY = {
    ("POST", "/recall"),
    ("POST", "/recall/explain"),
    ("POST", "/recall/evidence"),
    ("POST", "/contexts/{context}/recall"),
    ("POST", "/contexts/{context}/retrieve"),
    ("POST", "/sources/search"),
    ("POST", "/sources/search/explain"),
    ("POST", "/contexts/{context}/sources/search"),
    ("POST", "/contexts/{context}/sources/search/explain"),
    ("POST", "/contexts/{context}/sources"),
    ("POST", "/query"),
    ("POST", "/contexts/{context}/query"),
    ("POST", "/contexts/{context}/describe"),
    ("POST", "/contexts/{context}/activate"),
    ("POST", "/contexts/{context}/explore"),
    ("POST", "/contexts/{context}/paths"),
    ("POST", "/contexts/{context}/unreachable_from"),
    ("GET", "/contexts/{context}/vocabulary/audit"),
    ("POST", "/contexts/{context}/vocabulary/audit"),
    ("GET", "/users/{name}/export"),
    ("DELETE", "/users/{name}"),
    ("GET", "/contexts/{context}/export"),
    ("POST", "/contexts/import"),
    ("GET", "/groups/{group}/export"),
    ("POST", "/groups/import"),
    ("POST", "/contexts/{context}/compact"),
    ("POST", "/contexts/{context}/schema/audit"),
    ("POST", "/contexts/{context}/schema/validate"),
    ("POST", "/contexts/{context}/consolidation/audit"),
    ("POST", "/contexts/{context}/drift/audit"),
    ("POST", "/mcp"),
    ("POST", "/mcp/"),
    # Taguru's forms of the same reads and writes (decision 0023)
    ("POST", "/taguru/recall"),
    ("POST", "/taguru/query"),
    ("POST", "/taguru/sources/search"),
    ("POST", "/taguru/contexts/{context}/recall"),
    ("POST", "/taguru/contexts/{context}/query"),
    ("POST", "/taguru/contexts/{context}/sources"),
    ("POST", "/taguru/contexts/{context}/sources/search"),
    ("POST", "/taguru/contexts/{context}/describe"),
    ("POST", "/taguru/contexts/{context}/activate"),
    ("POST", "/taguru/contexts/{context}/paths"),
    ("POST", "/taguru/contexts/{context}/unreachable_from"),
    # decision 0027
    ("POST", "/taguru/contexts/{context}/explore"),
    ("POST", "/taguru/contexts/{context}/compact"),
    ("POST", "/taguru/maintenance/compact"),
    ("GET", "/taguru/contexts/{context}/export"),
    ("GET", "/taguru/groups/{group}/export"),
    ("POST", "/taguru/contexts/{context}/vocabulary/audit"),
    ("POST", "/taguru/contexts/{context}/sources/search/explain"),
    ("POST", "/taguru/contexts/{context}/evidence"),
    # Taguru's import and promote (issue 35)
    ("POST", "/taguru/import"),
    ("POST", "/taguru/contexts/{context}/promote"),
    # the schema audits in Taguru's form (decision 0027, "The schema")
    ("POST", "/taguru/contexts/{context}/schema/audit"),
    ("POST", "/taguru/contexts/{context}/schema/validate"),
    ("POST", "/taguru/contexts/{context}/consolidation/audit"),
    # Taguru's drift audit: the graph against its archive (decision 0027, "The drift audit")
    ("POST", "/taguru/contexts/{context}/drift/audit"),
}


def test_heavy_routes_are_the_listed_ones(svc: Tabane) -> None:
    app = create_app(svc)
    routes = {(m.upper(), path) for path, ops in app.openapi()["paths"].items() for m in ops}
    assert {"/mcp", "/mcp/"} <= {getattr(r, "path", None) for r in app.router.routes}
    routes |= {("POST", "/mcp"), ("POST", "/mcp/"), ("GET", "/mcp"), ("DELETE", "/mcp")}
    found = {(m, path) for m, path in routes if is_heavy(m, re.sub(r"\{[^}]+\}", "x", path))}
    assert found == HEAVY
    assert not is_heavy("GET", "/health")


def test_settings_from_env() -> None:
    home = {"TABANE_HOME": "/tmp/tabane-rate-test"}
    default = RateLimits.from_settings(Settings.from_env(home))
    cores = os.cpu_count() or 1
    assert default == RateLimits(rps=20.0, burst=40, heavy=4, total=2 * cores)
    env = {
        **home,
        "TABANE_RATE_RPS": "2.5",
        "TABANE_RATE_BURST": "7",
        "TABANE_HEAVY_CONCURRENCY": "0",
        "TABANE_HEAVY_TOTAL": "0",
    }
    assert RateLimits.from_settings(Settings.from_env(env)) == RateLimits(
        2.5, burst=7, heavy=0, total=0
    )
    assert Settings.from_env({**home, "TABANE_RATE_RPS": "0"}).rate_rps == 0.0
    for name, bad in [
        ("TABANE_RATE_RPS", "-1"),
        ("TABANE_RATE_RPS", "fast"),
        ("TABANE_RATE_BURST", "0"),
        ("TABANE_HEAVY_CONCURRENCY", "-2"),
    ]:
        with pytest.raises(InvalidInput) as caught:
            Settings.from_env({**home, name: bad})
        assert [i.path for i in caught.value.issues] == [name]
