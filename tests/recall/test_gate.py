"""The relevance gate: trivial turns in English and Japanese, and the questions it must let by."""

from __future__ import annotations

import pytest

from tabane.recall.gate import (
    CJK_WEIGHT,
    MIN_WEIGHT,
    REASON_EMPTY,
    REASON_GREETING,
    REASON_SHORT,
    gate,
    weight,
)


@pytest.mark.parametrize(
    "turn",
    [
        "hi",
        "Hello there!",
        "HEY everyone 👋",
        "thanks so much!!",
        "Thank you very much 🙏",
        "ok, thanks",
        "Okay okay, thanks a lot everyone",
        "thanksss",
        "good morning team",
        "I see, thanks, that makes sense",
        "no worries, see you later",
        "you're welcome",
        "ＴＨＡＮＫ ＹＯＵ",  # full width: NFKC
        "こんにちは",
        "おはようございます😊",
        "ありがとうございます！",
        "本当にありがとうございました",
        "了解です",
        "はい、わかりました",
        "サンキュー",  # katakana and the long-vowel mark
        "アリガトウゴザイマス",
        "よろしくお願いします。",
        "お疲れ様です〜",
    ],
)
def test_greetings_and_thanks_are_trivial(turn: str) -> None:
    assert gate(turn) == REASON_GREETING


@pytest.mark.parametrize(
    "turn",
    [
        "hi, where is apt's config?",
        "thanks, but what about scopes?",
        "How do I configure the embedder?",
        "hiking trips in japan?",  # "hi" only at a word boundary
        "okay so what does recall return?",
        "ありがとう、RLSの設定はどこ?",
        "了解です。次にスコープの説明を",
        "東京の天気は?",  # 6 CJK characters weigh 12
        "What is RLS?",  # 12 characters
    ],
)
def test_questions_pass(turn: str) -> None:
    assert gate(turn) is None


@pytest.mark.parametrize("turn", ["", "   ", "?!", "🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂", "……。"])
def test_no_words_is_trivial(turn: str) -> None:
    assert gate(turn) == REASON_EMPTY


@pytest.mark.parametrize("turn", ["weather?", "  what  is  x  ", "天気は？", "RLSとは?", "why so?"])
def test_short_turns_are_trivial(turn: str) -> None:
    assert gate(turn) == REASON_SHORT


def test_cjk_characters_weigh_more() -> None:
    assert CJK_WEIGHT == 2 and MIN_WEIGHT == 12
    assert weight("  a   b  ") == 3  # stripped, whitespace runs as one space
    assert weight("東京") == 4
    assert weight("東京の天気は?") == 13
    assert weight("ｱｲ") == 4  # half-width katakana: NFKC first
    assert weight("한국어") == 6
    # the boundary: 11 weighted characters are trivial, 12 are not
    assert gate("abcd efg hi") == REASON_SHORT  # 11
    assert gate("abcd efg hij") is None  # 12
    assert gate("設計図の場所") is None  # 6 × 2
    assert gate("設計図の場") == REASON_SHORT  # 5 × 2
    assert gate("RLS設計図は") == REASON_SHORT  # 3 + 4 × 2 = 11


def test_deterministic_and_pure() -> None:
    turns = ["hi", "hello, what is a context?", "ありがとう"]
    assert [gate(t) for t in turns] == [gate(t) for t in turns]
