"""The tokenizer and normalization shared by BM25 and resolve."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tabane.text.analyze import index_terms, stem
from tabane.text.tokenize import general_terms, normalize, tokenize


def test_ascii_words_with_camel_and_snake_pieces() -> None:
    assert tokenize("HTTPServer") == ["httpserver", "http", "server"]
    assert tokenize("snake_case fetchBlock") == [
        "snake_case",
        "snake",
        "case",
        "fetchblock",
        "fetch",
        "block",
    ]
    assert tokenize("getHTTPResponse2 x") == ["gethttpresponse2", "get", "http", "response2", "x"]
    assert tokenize("__init__ plain") == ["init", "plain"]


def test_full_width_and_case_are_normalized() -> None:
    assert tokenize("ＰＹＴＨＯＮ３") == ["python3"]
    assert normalize("Ｃａｆé") == "café"


def test_cjk_runs_give_bigrams_and_script_switches_break_runs() -> None:
    assert tokenize("日本語") == ["日本", "本語"]
    assert tokenize("語") == ["語"]
    # Han, then kana: two runs, no bigram across the switch
    assert tokenize("東京へ") == ["東京", "へ"]
    # katakana becomes hiragana, so both spellings index alike
    assert tokenize("カタカナ") == tokenize("かたかな") == ["かた", "たか", "かな"]
    assert tokenize("データベース") == ["でー", "ーた", "たべ", "べー", "ーす"]


def test_mixed_scripts_and_spaced_scripts() -> None:
    assert tokenize("git の commit") == ["git", "の", "commit"]
    assert tokenize("Привет мир") == ["привет", "мир"]
    assert tokenize("한국어") == ["한국", "국어"]
    assert tokenize("  ...  ") == []


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    assert normalize(normalize(text)) == normalize(text)


@given(st.text())
def test_tokens_are_non_empty_and_already_normalized(text: str) -> None:
    for token in tokenize(text):
        assert token
        assert token == normalize(token) or token.lower() == normalize(token)


_ASCII_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=300
) | st.lists(
    st.sampled_from(["HTTPServer", "snake_case", "__init__", "x1Y", "A", "_", "9", " ", ".", "\t"])
).map("".join)


@given(_ASCII_TEXT)
def test_the_ascii_fast_path_cuts_what_the_general_one_does(text: str) -> None:
    assert tokenize(text) == general_terms(text)
    assert index_terms(text) == [stem(t) for t in general_terms(text)]
