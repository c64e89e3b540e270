"""HttpReranker over real HTTP on loopback (the fake TEI/Cohere server), and its settings."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tabane.config import Settings
from tabane.errors import InvalidInput, RerankerUnavailable
from tabane.models.http_reranker import HttpReranker
from tabane.models.registry import build_reranker
from tabane.models.reranker import NoReranker, Reranker, checked_scores

from fakes.rerank_server import MALFORMATIONS, FakeRerankServer
from helpers import FakeClock

MODEL = "fake-rerank"
QUERY = "where did the cat sleep"
TEXTS = [
    "stock prices fell sharply",  # 0.0
    "the cat slept on the mat",  # the, cat: 0.4
    "where did the cat sleep last night",  # all five words: 1.0
    "the dog",  # the: 0.2
]


@pytest.fixture
def server(clock: FakeClock) -> Iterator[FakeRerankServer]:
    with FakeRerankServer(clock=clock) as fake:
        yield fake


Make = Callable[..., HttpReranker]


@pytest.fixture
def make(server: FakeRerankServer, clock: FakeClock) -> Iterator[Make]:
    made: list[HttpReranker] = []

    def make(format: str = "tei", **options: object) -> HttpReranker:
        if format == "cohere":
            options.setdefault("model", MODEL)
        base = server.url if format == "tei" else server.cohere_url
        reranker = HttpReranker(
            str(options.pop("base_url", base)),
            format=format,
            clock=clock,
            sleep=clock.sleep,
            **options,  # type: ignore[arg-type]
        )
        made.append(reranker)
        return reranker

    yield make
    for reranker in made:
        reranker.close()


def expected(query: str, texts: list[str]) -> list[float]:
    return [FakeRerankServer.score(query, t) for t in texts]


# -- both formats ------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["tei", "cohere"])
def test_scores_come_back_in_input_order(make: Make, server: FakeRerankServer, format: str) -> None:
    reranker: Reranker = make(format)
    scores = reranker.rerank(QUERY, TEXTS)
    assert scores == pytest.approx([0.0, 0.4, 1.0, 0.2])
    assert scores == expected(QUERY, TEXTS)
    assert sorted(range(4), key=lambda i: -scores[i]) == [2, 1, 3, 0]
    (request,) = server.requests
    assert (request.format, request.query, request.texts) == (format, QUERY, tuple(TEXTS))


def test_tei_wire_format(make: Make, server: FakeRerankServer) -> None:
    bodies: list[bytes] = []
    inner = httpx.HTTPTransport()

    def spy(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        return inner.handle_request(request)

    reranker = make(transport=httpx.MockTransport(spy))
    reranker.rerank("q", ["a"])
    inner.close()
    assert reranker.url == f"{server.url}/rerank" and reranker.name.startswith("tei:127.0.0.1:")
    assert server.requests[0].path == "/rerank" and server.requests[0].model is None
    assert httpx.Response(200, content=bodies[0]).json() == {
        "query": "q",
        "texts": ["a"],
        "raw_scores": False,
        "truncate": True,
    }


def test_cohere_wire_format(make: Make, server: FakeRerankServer) -> None:
    reranker = make("cohere", api_key="co-key")
    reranker.rerank(QUERY, TEXTS)
    (request,) = server.requests
    assert request.path == "/v1/rerank" and request.model == MODEL
    assert request.authorization == "Bearer co-key"
    assert reranker.name == f"cohere:{MODEL}"


def test_a_url_ending_in_rerank_is_used_as_it_is(make: Make, server: FakeRerankServer) -> None:
    reranker = make("cohere", base_url=f"{server.root}/v2/rerank/")
    assert reranker.url == f"{server.root}/v2/rerank"
    reranker.rerank(QUERY, TEXTS)
    assert server.requests[0].path == "/v2/rerank"


def test_no_texts_no_request(make: Make, server: FakeRerankServer) -> None:
    assert make().rerank(QUERY, []) == []
    assert server.count == 0


# -- batching ----------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["tei", "cohere"])
def test_long_lists_go_in_batches_mapped_back_in_order(
    make: Make, server: FakeRerankServer, format: str
) -> None:
    texts = [" ".join(["the cat"] * (i % 3) + [f"word{i}"]) for i in range(70)]
    texts[65] = QUERY  # the best text sits in the last batch
    scores = make(format, max_batch=32).rerank(QUERY, texts)
    assert server.batch_sizes == [32, 32, 6]
    assert scores == expected(QUERY, texts)
    assert max(range(70), key=lambda i: scores[i]) == 65


def test_tei_refuses_a_batch_over_its_limit(make: Make, server: FakeRerankServer) -> None:
    with pytest.raises(InvalidInput, match="HTTP 413"):
        make(max_batch=64).rerank(QUERY, ["text"] * 40)
    assert server.count == 1


# -- malformed answers -------------------------------------------------------------------------

PROBLEMS = {
    "not_json": "not JSON",
    "wrong_shape": "expected",
    "missing_index": "has no `index`",
    "bad_index": "`index` is not an integer",
    "duplicate_index": "appears twice",
    "out_of_range": "out of range 0..3",
    "missing_score": "has no `",
    "string_score": "not a number",
    "nan": "NaN or infinity",
    "inf": "NaN or infinity",
    "short": "no score for texts [0]",
}


def test_every_malformation_is_covered() -> None:
    assert set(PROBLEMS) == set(MALFORMATIONS)


@pytest.mark.parametrize("format", ["tei", "cohere"])
@pytest.mark.parametrize("malformation", MALFORMATIONS)
def test_malformed_answers_are_refused_not_retried(
    make: Make, server: FakeRerankServer, clock: FakeClock, format: str, malformation: str
) -> None:
    server.malformed_next(malformation)
    reranker = make(format)
    with pytest.raises(InvalidInput) as caught:
        reranker.rerank(QUERY, TEXTS)
    error = caught.value
    assert error.message.startswith(f"{reranker.name} response is")
    assert PROBLEMS[malformation] in " ".join(f"{i.path} {i.problem}" for i in error.issues)
    assert server.count == 1 and clock.sleeps == []
    assert reranker.breaker.state == "closed"
    assert reranker.rerank(QUERY, TEXTS) == expected(QUERY, TEXTS)  # the next answer is fine


def test_a_bad_score_names_its_text_by_input_position(make: Make, server: FakeRerankServer) -> None:
    texts = [f"text {i}" for i in range(5)]
    texts[3] = QUERY  # the best of the second batch, whose score the fault spoils
    server.slow_next(1, seconds=0.0)  # the first batch answers normally
    server.malformed_next("nan")
    with pytest.raises(InvalidInput) as caught:
        make(max_batch=2).rerank(QUERY, texts)
    assert [i.path for i in caught.value.issues] == [f"tei:{server.url[7:]} response[3]"]
    assert server.batch_sizes == [2, 2]  # it stopped at the bad batch


def test_malformed_answers_over_a_mock_transport() -> None:
    answers = iter(
        [
            httpx.Response(200, json=[{"index": 0, "score": 0.5}, {"index": 1}]),
            httpx.Response(200, json=[{"index": True, "score": 0.5}, {"index": 1, "score": 1}]),
            httpx.Response(200, json=[{"index": 0, "score": 10**400}, {"index": 1, "score": 1}]),
            httpx.Response(200, json=[{"index": -1, "score": 1}, {"index": 1, "score": 1}]),
            httpx.Response(200, json=["0", {"index": 1, "score": 1}]),
        ]
    )
    transport = httpx.MockTransport(lambda request: next(answers))
    with HttpReranker("http://rerank.invalid", transport=transport) as reranker:
        for problem in ["has no `score`", "not an integer", "NaN or infinity", "out of range"]:
            with pytest.raises(InvalidInput) as caught:
                reranker.rerank("q", ["a", "b"])
            assert problem in caught.value.issues[0].problem
        with pytest.raises(InvalidInput, match="malformed"):
            reranker.rerank("q", ["a", "b"])


# -- resilience --------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["tei", "cohere"])
def test_429_is_retried_honouring_retry_after(
    make: Make, server: FakeRerankServer, clock: FakeClock, format: str
) -> None:
    server.fail_next(2, status=429, retry_after=1.5, message="too many requests")
    assert make(format).rerank(QUERY, TEXTS) == expected(QUERY, TEXTS)
    assert clock.sleeps == [1.5, 1.5]
    assert [r.status for r in server.requests] == [429, 429, 200]


def test_circuit_opens_then_recovers_half_open(
    make: Make, server: FakeRerankServer, clock: FakeClock
) -> None:
    server.fail_next(100, status=500, message="model crashed")
    reranker = make(attempts=2, breaker_failures=2, breaker_cooldown=15.0)
    with pytest.raises(RerankerUnavailable) as caught:
        reranker.rerank(QUERY, TEXTS)
    error = caught.value
    assert (error.code, error.status) == ("reranker_unavailable", 503)
    assert "rerank service tei:" in error.message and "HTTP 500: model crashed" in error.message
    assert reranker.breaker.state == "open"
    with pytest.raises(RerankerUnavailable, match="circuit open for another"):
        reranker.rerank(QUERY, TEXTS)
    assert server.count == 2
    clock.now += 15.0
    server.clear_faults()
    assert reranker.rerank(QUERY, TEXTS) == expected(QUERY, TEXTS)  # the trial succeeds
    assert reranker.breaker.state == "closed" and server.count == 3


def test_a_wrong_key_is_unavailable_not_retried(clock: FakeClock) -> None:
    with (
        FakeRerankServer(api_key="right") as fake,
        HttpReranker(fake.url, api_key="wrong", sleep=clock.sleep) as reranker,
        pytest.raises(RerankerUnavailable, match="HTTP 401: invalid api token") as caught,
    ):
        reranker.rerank(QUERY, TEXTS)
    assert "wrong" not in str(caught.value.to_body()) and clock.sleeps == []


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"format": "jina"}, "format"),
        ({"format": "cohere"}, "model"),
        ({"max_batch": 0}, "max_batch"),
        ({"attempts": 0}, "attempts"),
    ],
)
def test_options_are_checked(options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        HttpReranker("http://127.0.0.1:1", **options)  # type: ignore[arg-type]
    assert caught.value.issues[0].path == field


# -- the protocol and the identity -------------------------------------------------------------


def test_no_reranker_keeps_the_input_order() -> None:
    reranker: Reranker = NoReranker()
    scores = reranker.rerank("anything", ["c", "a", "b"])
    assert sorted(range(3), key=lambda i: -scores[i]) == [0, 1, 2]
    assert reranker.rerank("q", []) == [] and reranker.name == "none"


def test_checked_scores() -> None:
    assert checked_scores([1, 0.5, -2], 3) == [1.0, 0.5, -2.0]
    with pytest.raises(InvalidInput, match="wrong length"):
        checked_scores([1.0], 2)
    with pytest.raises(InvalidInput, match="not a list"):
        checked_scores("0.5", 3)
    with pytest.raises(InvalidInput) as caught:
        checked_scores([math.nan, 1.0, -math.inf, None, True], 5, where="s", offset=10)
    assert [(i.path, i.problem) for i in caught.value.issues] == [
        ("s[10]", "NaN or infinity"),
        ("s[12]", "NaN or infinity"),
        ("s[13]", "not a number: 'None'"),
        ("s[14]", "not a number: 'True'"),
    ]


# -- settings ----------------------------------------------------------------------------------


def settings(**env: str) -> Settings:
    return Settings.from_env({"TABANE_HOME": str(Path("/tmp/unused")), **env})


def test_reranker_defaults_to_none() -> None:
    config = settings()
    assert (config.reranker, config.rerank_format) == ("none", "tei")
    assert build_reranker(config) is None


def test_build_an_http_reranker(server: FakeRerankServer) -> None:
    config = settings(
        TABANE_RERANKER="http",
        TABANE_RERANK_URL=server.cohere_url,
        TABANE_RERANK_FORMAT="cohere",
        TABANE_RERANK_MODEL=MODEL,
        TABANE_RERANK_API_KEY="key",
    )
    reranker = build_reranker(config)
    assert isinstance(reranker, HttpReranker)
    with reranker:
        assert reranker.rerank(QUERY, TEXTS) == expected(QUERY, TEXTS)
    assert server.requests[0].authorization == "Bearer key"


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({"TABANE_RERANKER": "cross"}, "TABANE_RERANKER"),
        ({"TABANE_RERANK_FORMAT": "jina"}, "TABANE_RERANK_FORMAT"),
    ],
)
def test_bad_settings_are_refused(env: dict[str, str], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        settings(**env)
    assert caught.value.issues[0].path == field


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({"TABANE_RERANKER": "http"}, "TABANE_RERANK_URL"),
        (
            {
                "TABANE_RERANKER": "http",
                "TABANE_RERANK_URL": "http://x",
                "TABANE_RERANK_FORMAT": "cohere",
            },
            "TABANE_RERANK_MODEL",
        ),
    ],
)
def test_incomplete_settings_are_refused_at_build(env: dict[str, str], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        build_reranker(settings(**env))
    assert caught.value.issues[0].path == field
