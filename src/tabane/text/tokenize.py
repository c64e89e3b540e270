"""Normalization and the tokenizer shared by BM25 and resolve (pure functions).

normalize: NFKC, case folding, katakana → hiragana.
tokenize: ASCII runs give the whole word plus its camelCase and snake_case pieces
(`HTTPServer` → `httpserver`, `http`, `server`); runs of CJK and other scripts written without
spaces give overlapping character bigrams (a lone character when the run has one); other scripts
written with spaces give words. A change of script ends a run.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_KATAKANA = {code: code - 0x60 for code in range(0x30A1, 0x30F7)}

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff\u3005\u3006"
_KANA = "\u3041-\u309f\u30fc"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_THAI_LAO_KHMER_MYANMAR = "\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f"

_RUNS = re.compile(
    rf"(?P<ascii>[A-Za-z0-9_]+)"
    rf"|(?P<han>[{_HAN}]+)"
    rf"|(?P<kana>[{_KANA}]+)"
    rf"|(?P<hangul>[{_HANGUL}]+)"
    rf"|(?P<nospace>[{_THAI_LAO_KHMER_MYANMAR}]+)"
    rf"|(?P<word>[^\W\d_A-Za-z{_HAN}{_KANA}{_HANGUL}{_THAI_LAO_KHMER_MYANMAR}]+)"
)
# camelCase boundaries: aB, a1B, and the end of an acronym before a capitalised word (HTTPServer).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def normalize(text: str) -> str:
    """NFKC, case folding and katakana → hiragana: the form both sides of a match share.

    Folding and normalizing do not commute for a few combining sequences (U+0345, the iota
    subscript, folds to a base letter that composes with the marks after it), so fold the
    canonical decomposition and recompose until nothing changes (at most a few rounds): the
    result is a fixed point, and folding the input first gives the same result."""
    out = text
    for _ in range(4):
        step = unicodedata.normalize(
            "NFKC", unicodedata.normalize("NFD", out.casefold()).casefold()
        )
        if step == out:
            break
        out = step
    return out.translate(_KATAKANA)


# The longest index term, in characters: a longer run (base64 data, a long hash) is cut to its
# first MAX_TERM characters, on ingest and in questions alike. An uncut 12,000-letter run made
# a BM25 index row over PostgreSQL's 8 KB limit and failed the whole ingest.
MAX_TERM = 128


# ASCII text is its own NFKC form and can hold only `_RUNS`' ascii runs: the fast path's pattern.
ASCII_RUN = re.compile(r"[A-Za-z0-9_]+")


def tokenize(text: str) -> list[str]:
    """Index terms of `text`, in order, with repeats (term frequency counts them)."""
    if text.isascii():  # the same terms as below, without a match object per run
        out_ascii: list[str] = []
        for run in ASCII_RUN.findall(text):
            out_ascii.extend(ascii_terms(run))
        return out_ascii
    return general_terms(text)


def general_terms(text: str) -> list[str]:
    """`tokenize` without its ASCII fast path (tests compare the two)."""
    text = unicodedata.normalize("NFKC", text).translate(_KATAKANA)
    out: list[str] = []
    for match in _RUNS.finditer(text):
        kind = match.lastgroup
        run = match.group()
        if kind == "ascii":
            out.extend(ascii_terms(run))
        elif kind == "word":
            out.append(run.casefold()[:MAX_TERM])
        else:
            out.extend(_bigrams(run))
    return out


@lru_cache(maxsize=65536)
def ascii_terms(run: str) -> tuple[str, ...]:
    """The terms of one run of ASCII letters, digits and underscores: the whole word, then its
    snake_case and camelCase pieces when there are several."""
    word = run.strip("_")
    if not word:
        return ()
    pieces = [p for part in word.split("_") if part for p in _CAMEL.split(part) if p]
    whole = word.lower()[:MAX_TERM]
    if len(pieces) <= 1:
        return (whole,)
    return (whole, *(p.lower()[:MAX_TERM] for p in pieces))


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def katakana_to_hiragana(text: str) -> str:
    return text.translate(_KATAKANA)


def title_key(title: str) -> str:
    """A title as matched inside a question (recall's title lane): normalized (NFKC, case
    folding, katakana → hiragana) with each run of whitespace one space, so word boundaries
    still mean something (titles are phrases, not spellings)."""
    return " ".join(normalize(title).split())
