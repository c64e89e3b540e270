"""Spelling keys, character bigrams and normalization: pure properties (Hypothesis)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabane.text.spelling import char_grams, containment, dice, spelling_key
from tabane.text.tokenize import normalize

PROPS = settings(max_examples=400, deadline=None, database=None)

# Any text, weighted towards the scripts and marks the graph vocabulary meets.
SCRIPTS = st.sampled_from(
    [
        st.characters(codec="utf-8"),
        st.characters(min_codepoint=0x20, max_codepoint=0x7E),
        st.characters(min_codepoint=0x3000, max_codepoint=0x30FF),  # kana, CJK punctuation
        st.characters(min_codepoint=0xFF01, max_codepoint=0xFF9F),  # full- and halfwidth forms
        st.characters(min_codepoint=0x0300, max_codepoint=0x036F),  # combining marks
        st.characters(min_codepoint=0x4E00, max_codepoint=0x4E80),  # a few kanji
        st.characters(min_codepoint=0x1100, max_codepoint=0x1175),  # conjoining Hangul jamo
        st.sampled_from("-_ .:/\u3000\u30fb"),  # separators
    ]
)
texts = st.lists(SCRIPTS.flatmap(lambda s: s), max_size=24).map("".join)
ascii_texts = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=24)
hiragana = st.text(st.characters(min_codepoint=0x3041, max_codepoint=0x3096), max_size=16)
KATAKANA = range(0x30A1, 0x30F7)


def fullwidth(text: str) -> str:
    """ASCII → its fullwidth forms (the ideographic space for a space)."""
    return "".join("\u3000" if ch == " " else chr(ord(ch) + 0xFEE0) for ch in text)


@PROPS
@given(texts)
def test_normalize_is_idempotent(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


@PROPS
@given(texts)
def test_spelling_key_is_idempotent(text: str) -> None:
    key = spelling_key(text)
    assert spelling_key(key) == key
    assert normalize(key) == key


@PROPS
@given(texts)
def test_spelling_key_has_no_katakana(text: str) -> None:
    assert not any(ord(ch) in KATAKANA for ch in spelling_key(text))


@pytest.mark.parametrize("text", ["e-\u0301", "\u0300:\u0316", "a \u0301b", "\u1100-\u1161"])
def test_dropping_separators_keeps_the_key_normal(text: str) -> None:
    key = spelling_key(text)
    assert spelling_key(key) == key
    assert normalize(key) == key


@PROPS
@given(texts)
def test_spelling_key_ignores_case_folding(text: str) -> None:
    assert spelling_key(text.casefold()) == spelling_key(text)


@PROPS
@given(ascii_texts, st.sampled_from([str.upper, str.lower, str.swapcase, str.title]))
def test_spelling_key_ignores_ascii_case_and_width(text: str, case: object) -> None:
    changed = case(text)  # type: ignore[operator]
    assert spelling_key(changed) == spelling_key(text)
    assert spelling_key(fullwidth(changed)) == spelling_key(text)


@PROPS
@given(hiragana)
def test_spelling_key_joins_katakana_and_hiragana(text: str) -> None:
    katakana = "".join(chr(ord(ch) + 0x60) for ch in text)
    halfwidth = unicodedata.normalize("NFKC", katakana)  # NFKC of the same kana
    assert spelling_key(katakana) == spelling_key(text) == spelling_key(halfwidth)


@PROPS
@given(st.lists(st.sampled_from(["fetch", "block", "Fetch", "BLOCK"]), min_size=1, max_size=3))
def test_separators_do_not_matter(words: list[str]) -> None:
    forms = ["".join(words), "_".join(words), "-".join(words), " ".join(words)]
    forms.append(fullwidth(" ".join(words)))
    assert len({spelling_key(f) for f in forms}) == 1


def test_a_key_of_separators_only_is_the_normalized_spelling() -> None:
    assert spelling_key("---") == "---"
    assert spelling_key("　") == " "  # NFKC: the ideographic space is a space
    assert spelling_key("") == ""


@PROPS
@given(texts)
def test_char_grams_are_bigrams_of_the_key(text: str) -> None:
    key = spelling_key(text)
    grams = char_grams(key)
    if len(key) <= 1:
        assert grams == (frozenset({key}) if key else frozenset())
    else:
        assert all(len(g) == 2 and g in key for g in grams)
        assert len(grams) <= len(key) - 1


@pytest.mark.slow
@PROPS
@given(texts, texts)
def test_dice_is_symmetric_and_bounded(a: str, b: str) -> None:
    ga, gb = char_grams(spelling_key(a)), char_grams(spelling_key(b))
    d = dice(ga, gb)
    assert d == dice(gb, ga)
    assert 0.0 <= d <= 1.0
    assert dice(ga, ga) == (1.0 if ga else 0.0)
    assert (d == 1.0) == (bool(ga) and ga == gb)


@PROPS
@given(texts, texts)
def test_containment_is_symmetric_and_bounded(a: str, b: str) -> None:
    ka, kb = spelling_key(a), spelling_key(b)
    c = containment(ka, kb)
    assert c == containment(kb, ka)
    assert 0.0 <= c < 1.0
    if ka and kb and ka != kb and (ka in kb or kb in ka):
        assert c == min(len(ka), len(kb)) / max(len(ka), len(kb))
    else:
        assert c == 0.0
