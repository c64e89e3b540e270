"""Summarizers: the offline extractive default, and the OpenAI-compatible chat provider over real
HTTP on loopback against the public fake server (time is injected: nothing really sleeps)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest

from tabane.config import Settings
from tabane.errors import InvalidInput, SummarizerUnavailable
from tabane.models.extractive import ExtractiveSummarizer, sentences
from tabane.models.openai_summarizer import OpenAISummarizer
from tabane.models.registry import build_summarizer
from tabane.models.summarizer import (
    MARKER,
    Member,
    Summarizer,
    cited,
    fingerprint,
    fit,
    keep_known,
    strip_citations,
)

from fakes.chat_server import FakeChatServer
from helpers import FakeClock

PYTHON = [
    Member(
        "p:1",
        "Python is a programming language that emphasizes readability. "
        "Its syntax lets programmers express concepts in fewer lines. "
        "The weather in Amsterdam was rainy that week.",
    ),
    Member(
        "p:2",
        "Python supports several programming paradigms, including object-oriented programming. "
        "Guido van Rossum began working on Python in the late 1980s.",
    ),
    Member(
        "c:3",
        "Python is a programming language that emphasizes readability. "
        "The Python language has a large standard library.",
        0.5,
    ),
]
JAPANESE = [
    Member("p:10", "東京は日本の首都です。東京には多くの人が住んでいます。富士山は美しい山です。"),
    Member("p:11", "日本の首都は東京です。東京の人口は約千四百万人です。"),
    Member("p:12", "京都は古い都です。京都には多くの寺があります。"),
]

extractive = ExtractiveSummarizer()


def summarize(members: list[Member], budget: int = 400) -> str:
    return extractive.summarize(members, budget_chars=budget).text


def sentences_of(text: str) -> list[str]:
    return sentences(strip_citations(text))


# -- the protocol and its helpers ----------------------------------------------------------------


def test_both_are_summarizers() -> None:
    with OpenAISummarizer("http://127.0.0.1:9/v1", "m") as remote:
        chosen: list[Summarizer] = [extractive, remote]
        assert [s.name for s in chosen] == ["extractive", "openai:m"]


def test_fingerprint_covers_refs_texts_and_order_but_not_weights() -> None:
    base = fingerprint(PYTHON)
    assert base == fingerprint(list(PYTHON)) and len(base) == 64
    assert base != fingerprint([replace(PYTHON[0], text=PYTHON[0].text + "!"), *PYTHON[1:]])
    assert base != fingerprint([replace(PYTHON[0], ref="p:9"), *PYTHON[1:]])
    assert base != fingerprint(PYTHON[::-1])
    assert base == fingerprint([replace(PYTHON[0], weight=9.0), *PYTHON[1:]])
    # refs and texts cannot run into each other
    assert fingerprint([Member("p:1", "ab")]) != fingerprint([Member("p:1a", "b")])


@pytest.mark.parametrize(
    ("members", "budget", "path"),
    [
        ([Member("p:1", "x")], 0, "budget_chars"),
        ([Member("123", "x")], 10, "members[0].ref"),
        ([Member("p:1", "x"), Member("p:1", "y")], 10, "members[1].ref"),
        ([Member("p:1", "x", 0.0)], 10, "members[0].weight"),
        ([Member("p:1", "x", float("nan"))], 10, "members[0].weight"),
    ],
)
def test_bad_members_are_refused_with_a_path(members: list[Member], budget: int, path: str) -> None:
    with OpenAISummarizer("http://127.0.0.1:9/v1", "m") as remote:
        for summarizer in (extractive, remote):
            with pytest.raises(InvalidInput) as caught:
                summarizer.summarize(members, budget_chars=budget)
            assert [i.path for i in caught.value.issues] == [path]


def test_citations_are_parsed_in_order_and_only_when_given() -> None:
    text = "A [p:2]. B [p:1, c:9; p:3]. C [p:2][x:1]. Not a ref [1] or [see p:1]."
    assert cited(text, {"p:1", "p:2", "p:3"}) == ("p:2", "p:1", "p:3")
    assert strip_citations("A [p:2]. B [p:1, c:9] [1].") == "A. B [1]."
    assert keep_known("[x:1] A [x:7]. B [p:1, q:2] C [p:1][x:2].", {"p:1"}) == "A. B [p:1] C [p:1]."


def test_fit_cuts_at_a_sentence_end_with_its_markers() -> None:
    text = "Python 3.5 is old. It came out in 2015 [p:1]. Japan is large [p:2]."
    assert fit(text, 200) == text
    assert fit(text, 50) == "Python 3.5 is old. It came out in 2015 [p:1]."
    assert fit(text, 20) == "Python 3.5 is old."  # not after "3."
    assert fit(text, 10) == "Python…"
    assert fit("東京です。[p:1]京都です。[p:2]", 14) == "東京です。[p:1]"


# -- the extractive default ----------------------------------------------------------------------


def test_sentences_in_english_and_japanese() -> None:
    assert sentences("One. Two, e.g. this! Three? (Four.) Five\n\nSix 3.5 seven") == [
        "One.",
        "Two, e.g. this!",
        "Three?",
        "(Four.)",
        "Five",
        "Six 3.5 seven",
    ]
    japanese = sentences("東京です。「本当？」はい！そう")
    assert japanese == ["東京です。", "「本当？」", "はい！", "そう"]


def test_extractive_is_deterministic() -> None:
    first = extractive.summarize(PYTHON + JAPANESE, budget_chars=300)
    again = ExtractiveSummarizer().summarize(PYTHON + JAPANESE, budget_chars=300)
    assert first == again and first.text
    assert first.summarizer == "extractive" and first.fingerprint == fingerprint(PYTHON + JAPANESE)


@pytest.mark.parametrize("budget", [1, 5, 12, 25, 40, 60, 90, 130, 200, 300, 1000])
def test_extractive_respects_the_budget_and_cites_given_refs(budget: int) -> None:
    for members in (PYTHON, JAPANESE, PYTHON + JAPANESE):
        summary = extractive.summarize(members, budget_chars=budget)
        assert len(summary.text) <= budget
        given = [m.ref for m in members]
        assert set(summary.refs) <= set(given)
        assert summary.refs == cited(summary.text, given)
        assert bool(summary.text) == bool(summary.refs)
        if budget >= 25:
            assert summary.text  # something always fits, cut with an ellipsis if need be


def test_extractive_picks_central_sentences_in_member_order() -> None:
    text = summarize(PYTHON, 200)
    assert "Amsterdam" not in text  # off topic
    assert "readability" in text
    chosen = sentences_of(text)
    by_member = [next(i for i, m in enumerate(PYTHON) if s in m.text) for s in chosen]
    assert by_member == sorted(by_member)
    # a larger budget adds sentences and keeps the ones it had
    assert set(chosen) <= set(sentences_of(summarize(PYTHON, 400)))


def test_extractive_cites_each_sentence_with_its_member() -> None:
    summary = extractive.summarize(PYTHON + JAPANESE, budget_chars=1000)
    for match in MARKER.finditer(summary.text):
        ref = match.group(1)
        before = summary.text[: match.start()].rstrip()
        member = next(m for m in PYTHON + JAPANESE if m.ref == ref)
        last = sentences_of(before)[-1].lstrip("]")
        assert last in " ".join(member.text.split()), (ref, last)


def test_extractive_japanese() -> None:
    summary = extractive.summarize(JAPANESE, budget_chars=60)
    assert "東京" in summary.text and summary.text.endswith("]")
    assert " " not in summary.text  # no spaces written between Japanese sentences
    assert summary.refs[0] == "p:10"


def test_duplicates_are_not_repeated() -> None:
    text = summarize(PYTHON, 1000)
    assert text.count("emphasizes readability") == 1
    japanese = summarize(JAPANESE, 1000)
    # "日本の首都は東京です" says what "東京は日本の首都です" says, in other words
    assert japanese.count("首都") == 1
    same = [Member("p:1", "Cats purr. Dogs bark."), Member("p:2", "Cats purr. Dogs bark.")]
    assert summarize(same, 1000) == "Cats purr. Dogs bark. [p:1]"


def test_weights_matter() -> None:
    members = [
        Member("p:1", "Rust guarantees memory safety without a garbage collector."),
        Member("p:2", "Haskell is a purely functional language with lazy evaluation."),
    ]
    budget = 70  # room for one sentence
    light_first = [replace(members[0], weight=0.2), members[1]]
    light_second = [members[0], replace(members[1], weight=0.2)]
    assert extractive.summarize(light_first, budget_chars=budget).refs == ("p:2",)
    assert extractive.summarize(light_second, budget_chars=budget).refs == ("p:1",)
    related = [
        Member("p:1", "Rust guarantees memory safety with its borrow checker."),
        Member("p:2", "Rust guarantees thread safety with its type system."),
        Member("p:3", "The Rust borrow checker and type system guarantee safety."),
    ]
    one = 70
    assert extractive.summarize(related, budget_chars=one).refs == ("p:3",)  # the most central
    for i, ref in enumerate(["p:1", "p:2"]):
        heavier = [replace(m, weight=2.0) if k == i else m for k, m in enumerate(related)]
        assert extractive.summarize(heavier, budget_chars=one).refs == (ref,)
    lighter = [*related[:2], replace(related[2], weight=0.5)]
    assert extractive.summarize(lighter, budget_chars=one).refs == ("p:1",)


def test_ties_go_to_the_smaller_ref_whatever_the_order() -> None:
    members = [
        Member("p:2", "Rust guarantees memory safety."),
        Member("p:1", "Haskell evaluates lazily."),
    ]
    for order in (members, members[::-1]):
        assert extractive.summarize(order, budget_chars=35).refs == ("p:1",)


def test_nothing_to_summarize() -> None:
    for members in ([], [Member("p:1", "  \n ")], [Member("p:1", "... !!!")]):
        summary = extractive.summarize(members, budget_chars=100)
        assert (summary.text, summary.refs) == ("", ())


def test_a_long_text_without_punctuation_is_cut() -> None:
    words = " ".join(f"word{i}" for i in range(400))
    summary = extractive.summarize([Member("p:1", words)], budget_chars=80)
    assert summary.text.endswith("… [p:1]") and len(summary.text) <= 80


# -- the OpenAI-compatible provider ---------------------------------------------------------------


@pytest.fixture
def server(clock: FakeClock) -> Iterator[FakeChatServer]:
    with FakeChatServer(api_key="sk-test", clock=clock) as fake:
        yield fake


Make = Callable[..., OpenAISummarizer]


@pytest.fixture
def make(server: FakeChatServer, clock: FakeClock) -> Iterator[Make]:
    made: list[OpenAISummarizer] = []

    def make(**options: object) -> OpenAISummarizer:
        options.setdefault("api_key", "sk-test")
        summarizer = OpenAISummarizer(
            server.url,
            "fake-chat",
            clock=clock,
            sleep=clock.sleep,
            **options,  # type: ignore[arg-type]
        )
        made.append(summarizer)
        return summarizer

    yield make
    for summarizer in made:
        summarizer.close()


def test_openai_summary_cites_refs(make: Make, server: FakeChatServer) -> None:
    summary = make().summarize(PYTHON, budget_chars=400, language_hint="English")
    assert summary.summarizer == "openai:fake-chat"
    assert summary.refs == ("p:1", "p:2", "c:3")
    assert summary.text.startswith("Python is a programming language") and "[p:2]" in summary.text
    assert summary.fingerprint == fingerprint(PYTHON)
    [request] = server.requests
    assert request.path == "/v1/chat/completions" and request.model == "fake-chat"
    assert request.authorization == "Bearer sk-test" and request.temperature == 0.0
    assert request.max_tokens is not None and request.max_tokens >= 400
    (system_role, system), (user_role, user) = request.messages
    assert (system_role, user_role) == ("system", "user")
    assert "at most 400 characters" in system and "Write in English." in system
    assert "[p:1] (weight 1) Python is a programming language" in user
    assert "[c:3] (weight 0.5)" in user


def test_openai_keeps_only_given_refs_and_the_budget(make: Make, server: FakeChatServer) -> None:
    server.answer_next(
        "Python is readable [p:1, p:99]. It has many paradigms [x:7]. "
        "Its library is large [c:3]. " + "More words. " * 50
    )
    summary = make().summarize(PYTHON, budget_chars=85)
    assert summary.refs == ("p:1", "c:3")
    assert summary.text == (
        "Python is readable [p:1]. It has many paradigms. Its library is large [c:3]."
    )


def test_openai_drops_a_think_block(make: Make, server: FakeChatServer) -> None:
    server.answer_next("<think>Cite [p:2] maybe.</think>\nPython is readable [p:1].")
    summary = make().summarize(PYTHON, budget_chars=400)
    assert (summary.text, summary.refs) == ("Python is readable [p:1].", ("p:1",))


def test_openai_429_with_retry_after_then_success(
    make: Make, server: FakeChatServer, clock: FakeClock
) -> None:
    server.fail_next(2, status=429, retry_after=1.5, message="Rate limit reached")
    start = clock.now
    summary = make().summarize(JAPANESE, budget_chars=200)
    assert summary.refs == ("p:10", "p:11", "p:12")
    assert "東京は日本の首都です。 [p:10]" in summary.text
    assert server.count == 3 and [r.status for r in server.requests] == [429, 429, 200]
    assert clock.sleeps == [1.5, 1.5] and clock.now - start == 3.0
    assert [r.time - start for r in server.requests] == [0.0, 1.5, 3.0]


def test_openai_pacing(make: Make, server: FakeChatServer, clock: FakeClock) -> None:
    summarizer = make(max_rps=2.0)
    for _ in range(3):
        summarizer.summarize(PYTHON[:1], budget_chars=200)
    assert [r.time - server.requests[0].time for r in server.requests] == [0.0, 0.5, 1.0]


def test_openai_5xx_until_the_breaker_opens(make: Make, server: FakeChatServer) -> None:
    server.fail_next(100, status=503, message="model is loading")
    summarizer = make(attempts=2, breaker_failures=3, breaker_cooldown=30.0)
    with pytest.raises(SummarizerUnavailable, match="2 attempts"):
        summarizer.summarize(PYTHON, budget_chars=200)
    with pytest.raises(SummarizerUnavailable, match="circuit opened") as caught:
        summarizer.summarize(PYTHON, budget_chars=200)
    assert caught.value.code == "summarizer_unavailable" and caught.value.status == 503
    assert "model is loading" in caught.value.message
    assert [i.path for i in caught.value.issues] == ["summarizer"]
    assert server.count == 3 and summarizer.breaker.state == "open"
    with pytest.raises(SummarizerUnavailable, match="circuit open for another"):
        summarizer.summarize(PYTHON, budget_chars=200)
    assert server.count == 3  # failed fast: no request


def test_openai_wrong_key_is_not_retried(server: FakeChatServer, clock: FakeClock) -> None:
    summarizer = OpenAISummarizer(server.url, "m", api_key="wrong", clock=clock, sleep=clock.sleep)
    with summarizer, pytest.raises(SummarizerUnavailable, match="Incorrect API key"):
        summarizer.summarize(PYTHON, budget_chars=200)
    assert server.count == 1 and clock.sleeps == []


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("<think>Thinking [p:1] forever", "empty"),
        ("Python is a language.", "cites none"),
        ("Python is a language [p:99].", "cites none"),
        ("I cannot help with that.", "cites none"),
    ],
)
def test_openai_garbled_answers_are_refused(
    make: Make, server: FakeChatServer, answer: str, problem: str
) -> None:
    server.answer_next(answer)
    with pytest.raises(InvalidInput, match="unusable answer") as caught:
        make().summarize(PYTHON, budget_chars=200)
    [issue] = caught.value.issues
    assert issue.path == "summarizer" and problem in issue.problem
    assert server.count == 1  # not retried


@pytest.mark.parametrize("malformation", ["not_json", "no_choices", "no_message", "null_content"])
def test_openai_malformed_answers_are_refused(
    make: Make, server: FakeChatServer, malformation: str
) -> None:
    server.malformed_next(malformation)
    with pytest.raises(InvalidInput, match="unusable answer"):
        make().summarize(PYTHON, budget_chars=200)
    assert server.count == 1


def test_openai_nothing_to_summarize_sends_nothing(make: Make, server: FakeChatServer) -> None:
    summary = make().summarize([Member("p:1", " ")], budget_chars=100)
    assert (summary.text, summary.refs, server.count) == ("", (), 0)


def test_openai_prompt_is_capped_keeping_the_heaviest(make: Make) -> None:
    members = [Member(f"p:{i}", f"passage {i} " + "x" * 300, float(i)) for i in range(1, 11)]
    prompt = make(max_member_chars=100, max_prompt_chars=500).user_prompt(members, 100)
    listed = [line.split("]")[0][1:] for line in prompt.splitlines() if line.startswith("[p:")]
    assert listed == ["p:7", "p:8", "p:9", "p:10"]  # heaviest, in the given order
    assert all(len(line) < 130 for line in prompt.splitlines())


# -- the registry ---------------------------------------------------------------------------------


def test_registry_builds_the_configured_summarizer() -> None:
    env = {"TABANE_HOME": "/tmp/tabane-test-home"}
    assert isinstance(build_summarizer(Settings.from_env(env)), ExtractiveSummarizer)
    with pytest.raises(InvalidInput) as caught:
        build_summarizer(Settings.from_env({**env, "TABANE_SUMMARIZER": "openai"}))
    assert [i.path for i in caught.value.issues] == [
        "TABANE_SUMMARIZE_URL",
        "TABANE_SUMMARIZE_MODEL",
    ]
    with pytest.raises(InvalidInput):
        Settings.from_env({**env, "TABANE_SUMMARIZER": "gpt"})
    settings = Settings.from_env(
        {
            **env,
            "TABANE_SUMMARIZER": "openai",
            "TABANE_SUMMARIZE_URL": "http://127.0.0.1:9/v1",
            "TABANE_SUMMARIZE_MODEL": "llama3",
            "TABANE_SUMMARIZE_API_KEY": "k",
            "TABANE_SUMMARIZE_MAX_RPS": "0",
        }
    )
    built = build_summarizer(settings)
    assert isinstance(built, OpenAISummarizer) and built.name == "openai:llama3"
    assert built.url == "http://127.0.0.1:9/v1/chat/completions"
    built.close()
