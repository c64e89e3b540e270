"""OpenAIEmbedder over real HTTP on loopback, against the public fake server; time is injected."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import httpx
import numpy as np
import pytest

from tabane.errors import EmbedderUnavailable, InvalidInput
from tabane.models.embedder import Embedder
from tabane.models.openai_embedder import CircuitBreaker, OpenAIEmbedder

from fakes.openai_server import FakeOpenAIServer
from helpers import FakeClock

DIM = 32
MODEL = "fake-embed"


@pytest.fixture
def server(clock: FakeClock) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(dim=DIM, clock=clock) as fake:
        yield fake


Make = Callable[..., OpenAIEmbedder]


@pytest.fixture
def make(server: FakeOpenAIServer, clock: FakeClock) -> Iterator[Make]:
    made: list[OpenAIEmbedder] = []

    def make(**options: object) -> OpenAIEmbedder:
        options.setdefault("base_url", server.url)
        embedder = OpenAIEmbedder(
            model=MODEL,
            clock=clock,
            sleep=clock.sleep,
            **options,  # type: ignore[arg-type]
        )
        made.append(embedder)
        return embedder

    yield make
    for embedder in made:
        embedder.close()


def expected(server: FakeOpenAIServer, *texts: str) -> np.ndarray:
    return np.array([server.vector(t) for t in texts], dtype=np.float32)


# -- the protocol ------------------------------------------------------------------------------


def test_batches_and_orders_by_index(make: Make, server: FakeOpenAIServer) -> None:
    texts = [f"passage number {i} about topic {i % 2}" for i in range(5)]
    vectors = make(batch_size=2).embed_documents(texts)
    assert server.batch_sizes == [2, 2, 1]
    assert vectors.dtype == np.float32 and vectors.shape == (5, DIM)
    np.testing.assert_allclose(vectors, expected(server, *texts), atol=1e-6)
    assert {r.model for r in server.requests} == {MODEL}


def test_prefixes_apply_to_queries_and_documents(make: Make, server: FakeOpenAIServer) -> None:
    embedder = make(query_prefix="query: ", document_prefix="passage: ")
    query = embedder.embed_query("where is the cat")
    embedder.embed_documents(["the cat sat"])
    assert [r.inputs for r in server.requests] == [
        ("query: where is the cat",),
        ("passage: the cat sat",),
    ]
    assert query.shape == (DIM,)
    np.testing.assert_allclose(query, expected(server, "query: where is the cat")[0], atol=1e-6)


def test_is_an_embedder_with_a_stable_name(make: Make, server: FakeOpenAIServer) -> None:
    embedder: Embedder = make(dim=DIM)  # mypy checks the protocol; no runtime isinstance probe
    assert callable(embedder.embed_documents) and callable(embedder.embed_query)
    assert embedder.dim == DIM
    assert embedder.name == f"openai:{MODEL}"
    assert embedder.embed_documents([]).shape == (0, DIM)
    assert server.count == 0


def test_api_key_is_sent_and_a_wrong_one_is_not_retried(clock: FakeClock) -> None:
    with FakeOpenAIServer(dim=DIM, api_key="sk-right") as fake:
        with OpenAIEmbedder(fake.url, MODEL, api_key="sk-right", sleep=clock.sleep) as good:
            good.embed_query("hello")
        bad = OpenAIEmbedder(fake.url, MODEL, api_key="sk-wrong", sleep=clock.sleep)
        with bad, pytest.raises(EmbedderUnavailable) as caught:
            bad.embed_query("hello")
        assert [r.status for r in fake.requests] == [200, 401]
        assert fake.requests[0].authorization == "Bearer sk-right"
    assert "401" in caught.value.message and "Incorrect API key" in caught.value.message
    assert "sk-wrong" not in str(caught.value.to_body())
    assert clock.sleeps == []


# -- width and values --------------------------------------------------------------------------


def test_dim_is_discovered_then_fixed(make: Make, server: FakeOpenAIServer) -> None:
    embedder = make()
    assert embedder.dim == DIM  # one probe request
    assert server.count == 1
    server.wrong_width_next(1, width=DIM * 2)
    with pytest.raises(InvalidInput, match="wrong shape"):
        embedder.embed_documents(["a", "b"])
    assert embedder.dim == DIM
    assert embedder.embed_documents(["a", "b"]).shape == (2, DIM)


def test_dim_comes_from_the_first_answer_without_a_probe(
    make: Make, server: FakeOpenAIServer
) -> None:
    embedder = make()
    embedder.embed_documents(["one", "two"])
    assert embedder.dim == DIM and server.count == 1


def test_declared_dim_must_match_the_server(make: Make) -> None:
    with pytest.raises(InvalidInput) as caught:
        make(dim=DIM // 2).embed_query("x")
    assert f"expected 1×{DIM // 2}, got 1×{DIM}" in caught.value.issues[0].problem


@pytest.mark.parametrize(("fault", "words"), [("nan_next", "not finite"), ("zero_next", "zero")])
def test_bad_vectors_are_refused_not_retried(
    make: Make, server: FakeOpenAIServer, clock: FakeClock, fault: str, words: str
) -> None:
    getattr(server, fault)()
    with pytest.raises(InvalidInput, match=words):
        make().embed_documents(["alpha", "beta"])
    assert server.count == 1 and clock.sleeps == []


def test_malformed_answers_are_refused(clock: FakeClock) -> None:
    answers = iter(
        [
            httpx.Response(200, text="<html>gateway</html>"),
            httpx.Response(200, json={"data": [{"index": 5, "embedding": [1.0]}]}),
            httpx.Response(200, json={"data": [{"index": 0, "embedding": ["1", "2"]}]}),
            httpx.Response(200, json={"data": [{"index": 0}]}),
        ]
    )
    transport = httpx.MockTransport(lambda request: next(answers))
    with OpenAIEmbedder("http://embed.invalid/v1", MODEL, transport=transport) as embedder:
        for problem in ["not JSON", "indices", "numbers", "`index`"]:
            with pytest.raises(InvalidInput) as caught:
                embedder.embed_query("x")
            assert problem in caught.value.issues[0].problem


# -- retries -----------------------------------------------------------------------------------


def test_429_is_retried_honouring_retry_after(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    server.fail_next(2, status=429, retry_after=1.5, message="slow down")
    make().embed_query("hello")
    assert clock.sleeps == [1.5, 1.5]
    assert [r.status for r in server.requests] == [429, 429, 200]


def test_retry_after_is_clamped(make: Make, server: FakeOpenAIServer, clock: FakeClock) -> None:
    server.fail_next(1, status=429, retry_after=3600)
    make().embed_query("hello")
    assert clock.sleeps == [60.0]


def test_500_is_retried_with_growing_jittered_backoff(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    server.fail_next(2, status=500)
    make(backoff=0.5).embed_query("hello")
    assert server.count == 3
    first, second = clock.sleeps
    assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0


def test_gives_up_after_the_attempts(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    server.fail_next(5, status=503, message="overloaded")
    with pytest.raises(EmbedderUnavailable) as caught:
        make(attempts=3).embed_query("hello")
    assert server.count == 3 and len(clock.sleeps) == 2
    error = caught.value
    assert (error.code, error.status) == ("embedder_unavailable", 503)
    assert "3 attempts" in error.message and "HTTP 503: overloaded" in error.message


def test_400_is_not_retried_and_names_the_servers_words(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    server.fail_next(1, status=400, message="maximum context length is 8192 tokens")
    embedder = make()
    with pytest.raises(InvalidInput) as caught:
        embedder.embed_query("a very long text")
    assert "HTTP 400: maximum context length is 8192 tokens" in caught.value.message
    assert server.count == 1 and clock.sleeps == []
    assert embedder.breaker.state == "closed"


def test_a_timeout_is_retried(make: Make, server: FakeOpenAIServer, clock: FakeClock) -> None:
    server.slow_next(1, seconds=5.0)  # cut short when the server closes
    make(timeout=0.1).embed_query("hello")
    assert server.count == 2 and len(clock.sleeps) == 1


def test_connection_refused_is_retried_then_unavailable(clock: FakeClock) -> None:
    with FakeOpenAIServer(dim=DIM) as gone:
        url = gone.url
    embedder = OpenAIEmbedder(url, MODEL, attempts=2, sleep=clock.sleep)
    with embedder, pytest.raises(EmbedderUnavailable, match="ConnectError"):
        embedder.embed_query("hello")
    assert len(clock.sleeps) == 1


# -- the circuit breaker -----------------------------------------------------------------------


def open_circuit(make: Make, server: FakeOpenAIServer) -> OpenAIEmbedder:
    """Three consecutive failures open it: two in the first call, one in the second."""
    server.fail_next(100, status=500, message="down")
    embedder = make(attempts=2, breaker_failures=3, breaker_cooldown=30.0)
    with pytest.raises(EmbedderUnavailable, match="2 attempts"):
        embedder.embed_query("one")
    with pytest.raises(EmbedderUnavailable, match="circuit opened"):
        embedder.embed_query("two")
    assert server.count == 3 and embedder.breaker.state == "open"
    return embedder


def test_open_circuit_fails_fast_without_a_request(make: Make, server: FakeOpenAIServer) -> None:
    embedder = open_circuit(make, server)
    with pytest.raises(EmbedderUnavailable) as caught:
        embedder.embed_documents(["three"])
    assert server.count == 3
    assert "circuit open for another 30.0 s after 3 consecutive failures" in caught.value.message
    assert "HTTP 500: down" in caught.value.message


def test_half_open_trial_success_closes(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    embedder = open_circuit(make, server)
    clock.now += 30.0
    assert embedder.breaker.state == "half_open"
    server.clear_faults()
    assert embedder.embed_query("back").shape == (DIM,)
    assert server.count == 4 and embedder.breaker.state == "closed"


def test_half_open_trial_failure_reopens_at_once(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    embedder = open_circuit(make, server)
    clock.now += 30.0
    with pytest.raises(EmbedderUnavailable, match="circuit opened"):
        embedder.embed_query("still down")
    assert server.count == 4 and embedder.breaker.state == "open"
    with pytest.raises(EmbedderUnavailable, match="circuit open for another"):
        embedder.embed_query("again")
    assert server.count == 4


def test_half_open_lets_one_trial_through(clock: FakeClock) -> None:
    breaker = CircuitBreaker(failures=2, cooldown=10.0, clock=clock)
    assert not breaker.failure("a") and breaker.failure("b")
    assert breaker.before() is not None
    clock.now += 10.0
    assert breaker.before() is None  # the trial
    assert "trial" in (breaker.before() or "")  # everyone else waits for it
    breaker.success()
    assert breaker.state == "closed" and breaker.before() is None


# -- pacing ------------------------------------------------------------------------------------


def test_pacing_spaces_requests(make: Make, server: FakeOpenAIServer, clock: FakeClock) -> None:
    embedder = make(max_rps=4)
    for i in range(5):
        embedder.embed_query(f"question {i}")
    times = [r.time for r in server.requests]
    assert all(b - a >= 0.25 - 1e-9 for a, b in itertools.pairwise(times))
    assert len(clock.sleeps) == 4  # the first request goes at once


def test_pacing_lets_a_slow_caller_go_at_once(
    make: Make, server: FakeOpenAIServer, clock: FakeClock
) -> None:
    embedder = make(max_rps=2)
    embedder.embed_query("first")
    clock.now += 5.0
    embedder.embed_query("second")
    assert clock.sleeps == []


def test_settings_are_checked() -> None:
    with pytest.raises(InvalidInput, match="batch_size"):
        OpenAIEmbedder("http://127.0.0.1:1/v1", MODEL, batch_size=0)


# -- the fake itself ---------------------------------------------------------------------------


def test_fake_vectors_put_shared_words_close(server: FakeOpenAIServer) -> None:
    cat, kitten, stocks = expected(
        server, "the cat sat on the mat", "a cat sat on a mat", "stock prices fell sharply"
    )
    assert float(cat @ kitten) > float(cat @ stocks) + 0.3
    assert np.allclose(np.linalg.norm(expected(server, "", "a b c", "x"), axis=1), 1.0)


def test_fake_speaks_openai_errors(server: FakeOpenAIServer) -> None:
    url = server.url
    with httpx.Client() as client:
        assert client.post(f"{url}/nowhere", json={}).status_code == 404
        missing = client.post(f"{url}/embeddings", json={"input": ["x"]})
        assert missing.status_code == 400 and "model" in missing.json()["error"]["message"]
        single = client.post(f"{url}/embeddings", json={"model": MODEL, "input": "one text"})
        assert single.status_code == 200 and single.json()["data"][0]["index"] == 0
    assert [r.status for r in server.requests] == [404, 400, 200]
