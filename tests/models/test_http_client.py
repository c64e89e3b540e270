"""ResilientClient over real HTTP on loopback (the fake rerank server); time is injected."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import httpx
import pytest

from tabane.errors import EmbedderUnavailable, InvalidInput, RerankerUnavailable
from tabane.models.http_client import (
    CircuitBreaker,
    ResilientClient,
    retry_after_seconds,
    server_message,
)

from fakes.rerank_server import FakeRerankServer
from helpers import FakeClock

BODY = {"query": "where is the cat", "texts": ["the cat sat", "a dog ran"]}


# A real class of the hierarchy: a subclass defined here would join `all_error_classes()` and
# the documentation test would ask for its code in the guide.
Down = RerankerUnavailable


@pytest.fixture
def server(clock: FakeClock) -> Iterator[FakeRerankServer]:
    with FakeRerankServer(clock=clock) as fake:
        yield fake


Make = Callable[..., ResilientClient]


@pytest.fixture
def make(server: FakeRerankServer, clock: FakeClock) -> Iterator[Make]:
    made: list[ResilientClient] = []

    def make(**options: object) -> ResilientClient:
        options.setdefault("base_url", server.url)
        options.setdefault("unavailable", RerankerUnavailable)
        client = ResilientClient(
            kind="rerank service",
            name="tei:fake",
            issue_path="reranker",
            clock=clock,
            sleep=clock.sleep,
            **options,  # type: ignore[arg-type]
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def test_posts_json_and_returns_the_answer(make: Make, server: FakeRerankServer) -> None:
    response = make().post_json("/rerank", BODY)
    assert response.status_code == 200
    assert [item["index"] for item in response.json()] == [0, 1]
    assert server.requests[0].texts == ("the cat sat", "a dog ran")


def test_api_key_is_sent_as_a_bearer(clock: FakeClock) -> None:
    with FakeRerankServer(api_key="k-right") as fake:
        with ResilientClient(
            fake.url, kind="k", name="n", issue_path="p", api_key="k-right", sleep=clock.sleep
        ) as good:
            good.post_json("/rerank", BODY)
        with (
            ResilientClient(
                fake.url, kind="k", name="n", issue_path="p", api_key="k-wrong", sleep=clock.sleep
            ) as bad,
            pytest.raises(EmbedderUnavailable) as caught,  # the default class
        ):
            bad.post_json("/rerank", BODY)
        assert [r.authorization for r in fake.requests] == ["Bearer k-right", "Bearer k-wrong"]
    assert "HTTP 401: invalid api token" in caught.value.message
    assert "k-wrong" not in str(caught.value.to_body())
    assert clock.sleeps == []


# -- retries -----------------------------------------------------------------------------------


def test_429_is_retried_honouring_retry_after(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    server.fail_next(2, status=429, retry_after=2.5, message="slow down")
    make().post_json("/rerank", BODY)
    assert clock.sleeps == [2.5, 2.5]
    assert [r.status for r in server.requests] == [429, 429, 200]
    times = [r.time for r in server.requests]
    assert [b - a for a, b in itertools.pairwise(times)] == [2.5, 2.5]


def test_retry_after_is_clamped_to_a_minute(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    server.fail_next(1, status=503, retry_after=3600)
    make().post_json("/rerank", BODY)
    assert clock.sleeps == [60.0]


def test_5xx_backoff_grows_with_jitter_and_is_capped(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    server.fail_next(5, status=502)
    make(attempts=6, backoff=1.0, max_backoff=4.0, breaker_failures=10).post_json("/rerank", BODY)
    assert server.count == 6
    ceilings = [1.0, 2.0, 4.0, 4.0, 4.0]
    assert all(c / 2 <= s <= c for s, c in zip(clock.sleeps, ceilings, strict=True))
    assert len(set(clock.sleeps)) == len(clock.sleeps)  # jittered, not a fixed ladder


def test_gives_up_with_the_configured_error(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    server.fail_next(9, status=500, message="boom")
    with pytest.raises(Down) as caught:
        make(unavailable=Down, attempts=3).post_json("/rerank", BODY)
    error = caught.value
    assert (error.code, error.status) == ("reranker_unavailable", 503)
    assert error.message.startswith("rerank service tei:fake is unavailable: gave up after 3")
    assert "HTTP 500: boom" in error.message
    assert error.issues[0].path == "reranker"
    assert error.issues[0].problem == f"tei:fake at {server.url}/rerank"
    assert server.count == 3 and len(clock.sleeps) == 2


@pytest.mark.parametrize("status", [400, 413, 422])
def test_input_faults_are_not_retried(
    make: Make, server: FakeRerankServer, clock: FakeClock, status: int
) -> None:
    server.fail_next(1, status=status, message="input is too long")
    client = make()
    with pytest.raises(InvalidInput, match=f"HTTP {status}: input is too long"):
        client.post_json("/rerank", BODY)
    assert server.count == 1 and clock.sleeps == [] and client.breaker.state == "closed"


def test_a_wrong_path_is_a_configuration_fault(make: Make, server: FakeRerankServer) -> None:
    with pytest.raises(RerankerUnavailable, match="refused the request: HTTP 404"):
        make().post_json("/v9/nowhere", BODY)
    assert server.count == 1


def test_a_timeout_is_retried(make: Make, server: FakeRerankServer, clock: FakeClock) -> None:
    server.slow_next(1, seconds=5.0)  # cut short when the server closes
    assert make(timeout=0.1).post_json("/rerank", BODY).status_code == 200
    assert server.count == 2 and len(clock.sleeps) == 1


def test_connection_refused_is_retried_then_unavailable(clock: FakeClock) -> None:
    with FakeRerankServer() as gone:
        url = gone.url
    client = ResilientClient(
        url, kind="k", name="n", issue_path="p", unavailable=Down, attempts=2, sleep=clock.sleep
    )
    with client, pytest.raises(Down, match="ConnectError"):
        client.post_json("/rerank", BODY)
    assert len(clock.sleeps) == 1


# -- the circuit breaker -----------------------------------------------------------------------


def open_circuit(make: Make, server: FakeRerankServer) -> ResilientClient:
    """Three consecutive failures open it: two in the first call, one in the second."""
    server.fail_next(100, status=500, message="down")
    client = make(attempts=2, breaker_failures=3, breaker_cooldown=30.0)
    with pytest.raises(RerankerUnavailable, match="2 attempts"):
        client.post_json("/rerank", BODY)
    with pytest.raises(RerankerUnavailable, match="circuit opened"):
        client.post_json("/rerank", BODY)
    assert server.count == 3 and client.breaker.state == "open"
    return client


def test_open_circuit_fails_fast(make: Make, server: FakeRerankServer, clock: FakeClock) -> None:
    client = open_circuit(make, server)
    clock.now += 10.0
    with pytest.raises(RerankerUnavailable) as caught:
        client.post_json("/rerank", BODY)
    assert server.count == 3
    assert "circuit open for another 20.0 s after 3 consecutive failures" in caught.value.message
    assert "HTTP 500: down" in caught.value.message


def test_half_open_trial_success_closes(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    client = open_circuit(make, server)
    clock.now += 30.0
    assert client.breaker.state == "half_open"
    server.clear_faults()
    assert client.post_json("/rerank", BODY).status_code == 200
    assert server.count == 4 and client.breaker.state == "closed"
    client.post_json("/rerank", BODY)  # closed again: requests flow
    assert server.count == 5


def test_half_open_trial_failure_reopens_at_once(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    client = open_circuit(make, server)
    clock.now += 30.0
    with pytest.raises(RerankerUnavailable, match="circuit opened"):
        client.post_json("/rerank", BODY)
    assert server.count == 4 and client.breaker.state == "open"
    with pytest.raises(RerankerUnavailable, match=r"circuit open for another 30\.0 s"):
        client.post_json("/rerank", BODY)
    assert server.count == 4


def test_a_success_resets_the_failure_count(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    client = make(attempts=3, breaker_failures=3)
    for _ in range(3):
        server.fail_next(2, status=500)
        client.post_json("/rerank", BODY)  # two failures, then a success: never three in a row
    assert client.breaker.state == "closed" and server.count == 9


def test_breaker_lets_one_trial_through(clock: FakeClock) -> None:
    breaker = CircuitBreaker(failures=2, cooldown=10.0, clock=clock)
    assert not breaker.failure("a") and breaker.failure("b")
    assert breaker.before() is not None
    clock.now += 10.0
    assert breaker.before() is None  # the trial
    assert "trial" in (breaker.before() or "")  # everyone else waits for it
    breaker.success()
    assert breaker.state == "closed" and breaker.before() is None


# -- pacing ------------------------------------------------------------------------------------


def test_pacing_spaces_requests(make: Make, server: FakeRerankServer, clock: FakeClock) -> None:
    client = make(max_rps=5)
    for _ in range(4):
        client.post_json("/rerank", BODY)
    times = [r.time for r in server.requests]
    assert all(b - a >= 0.2 - 1e-9 for a, b in itertools.pairwise(times))
    assert len(clock.sleeps) == 3


@pytest.mark.parametrize("option", ["max_rps", "timeout", "attempts", "breaker_failures"], ids=str)
def test_settings_are_checked(option: str) -> None:
    with pytest.raises(InvalidInput, match=option):
        ResilientClient(
            "http://127.0.0.1:1",
            kind="k",
            name="n",
            issue_path="p",
            **{option: 0},  # type: ignore[arg-type]
        )


# -- reading answers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (httpx.Response(500, json={"error": {"message": "openai says"}}), "openai says"),
        (httpx.Response(422, json={"error": "tei says", "error_type": "Validation"}), "tei says"),
        (httpx.Response(429, json={"message": "cohere says"}), "cohere says"),
        (httpx.Response(502, text="<html>gateway</html>"), "<html>gateway</html>"),
        (httpx.Response(503, text=""), "Service Unavailable"),
    ],
)
def test_server_message_reads_each_dialect(answer: httpx.Response, words: str) -> None:
    assert server_message(answer) == words


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("2", 2.0),
        ("0.5", 0.5),
        ("-3", 0.0),
        ("999999", 60.0),
        ("nan", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", None),
    ],
)
def test_retry_after_seconds(header: str | None, seconds: float | None) -> None:
    headers = {"Retry-After": header} if header is not None else {}
    assert retry_after_seconds(httpx.Response(429, headers=headers)) == seconds
