"""The index terms of BM25: the tokenizer's terms (tokenize.py), English words reduced to their
Snowball stems, so `databases` matches `database` and `configured` matches `configuration`.

Only runs of ASCII letters are stemmed (the English stemmer knows nothing else): words of other
scripts, CJK bigrams, numbers and identifiers with digits stay as the tokenizer cut them. The
same function analyses the stored text and the query, so both sides always agree; the explain
twin shows the analysed terms. `ANALYZER` names the analysis the postings of a store were built
with (a store built with another one is re-indexed by a migration).
"""

from __future__ import annotations

import threading
from functools import lru_cache

import Stemmer

from tabane.text.tokenize import ASCII_RUN, ascii_terms, tokenize

ANALYZER = "snowball-english"

_LOCAL = threading.local()  # a Snowball stemmer is not safe to share between threads


def _stemmer() -> Stemmer.Stemmer:
    found: Stemmer.Stemmer | None = getattr(_LOCAL, "stemmer", None)
    if found is None:
        found = _LOCAL.stemmer = Stemmer.Stemmer("english")
    return found


@lru_cache(maxsize=1 << 18)
def stem(term: str) -> str:
    """A tokenizer term's index form: its English stem when it is ASCII letters only."""
    if term.isascii() and term.isalpha():
        return str(_stemmer().stemWord(term))
    return term


@lru_cache(maxsize=1 << 18)
def _run_terms(run: str) -> tuple[str, ...]:
    return tuple(stem(term) for term in ascii_terms(run))


def index_terms(text: str) -> list[str]:
    """The BM25 index terms of `text`, in order, with repeats."""
    if text.isascii():  # tokenize's fast path, each run's stems cached together
        out: list[str] = []
        for run in ASCII_RUN.findall(text):
            out.extend(_run_terms(run))
        return out
    return [stem(term) for term in tokenize(text)]
