"""Spelling keys and character bigrams: the forms resolve compares (pure functions).

A key is the normalized form (NFKC, case folding, katakana → hiragana) with separators removed,
so `fetchBlock`, `fetch_block`, `Fetch-Block` and `ＦＥＴＣＨ　ＢＬＯＣＫ` share one key.
Bigrams are taken over the key; a one-character key is its own gram.
"""

from __future__ import annotations

import unicodedata

from tabane.text.tokenize import normalize


def spelling_key(name: str) -> str:
    """The normalized spelling without whitespace and punctuation (all of it if that is all)."""
    norm = normalize(name)
    key = "".join(ch for ch in norm if unicodedata.category(ch)[0] not in "PZC")
    if key != norm:  # a combining mark that followed a separator composes again
        key = normalize(key)
    return key or norm


def char_grams(key: str) -> frozenset[str]:
    """The distinct character bigrams of a key (the key itself when it is one character)."""
    if len(key) <= 1:
        return frozenset((key,)) if key else frozenset()
    return frozenset(key[i : i + 2] for i in range(len(key) - 1))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice's coefficient of two gram sets: 2·|a ∩ b| / (|a| + |b|)."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def containment(cue_key: str, key: str) -> float:
    """shorter/longer length when one key contains the other, else 0."""
    if not cue_key or not key or cue_key == key:
        return 0.0
    short, long_ = (cue_key, key) if len(cue_key) <= len(key) else (key, cue_key)
    return len(short) / len(long_) if short in long_ else 0.0
