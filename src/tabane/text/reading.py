"""Readings, romanisations and acronyms of names: the keys resolve's `reading` route matches.

A Japanese name is written in kanji (藤野雪), read in kana (ふじのゆき) and romanised in
Hepburn with or without long vowels (Fujino Yuki; Ōta, Ota, Oota). All of them meet in
one loose romaji key: lower case, macrons dropped, long vowels collapsed (ou, oo, uu, aa, ii, ee
and a final or pre-consonant oh become one vowel), m before b/m/p read as n, letters only. A
stored spelling's key comes from its kana (a morphological analyzer reads the kanji: fugashi with
unidic-lite, the `ja` extra; without it only spellings written in kana get a key); a cue's from
its kana, its kanji (the same analyzer) or its Latin letters when they are romaji. Honorifics and
titles after a name (-san, さん, 様, 部長 …) are a rule of the language, stripped from cues.

An acronym key is the initials of a Latin spelling of two or more words (BlobStoreWriter,
blob_store_writer, "blob store writer" → bsw); a cue of 2–6 capital letters looks it up.
Pure functions: no storage.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from tabane.text.itaiji import GROUPS

COMMON = {ch: group[0] for group in GROUPS for ch in group}  # variant kanji → common form

_ROWS = {
    "": "あいうえお",
    "k": "かきくけこ",
    "s": "さしすせそ",
    "t": "たちつてと",
    "n": "なにぬねの",
    "h": "はひふへほ",
    "m": "まみむめも",
    "y": "や\0ゆ\0よ",
    "r": "らりるれろ",
    "w": "わゐ\0ゑを",
    "g": "がぎぐげご",
    "z": "ざじずぜぞ",
    "d": "だぢづでど",
    "b": "ばびぶべぼ",
    "p": "ぱぴぷぺぽ",
}
_IRREGULAR = {"し": "shi", "ち": "chi", "つ": "tsu", "ふ": "fu", "じ": "ji", "ぢ": "ji", "づ": "zu"}
_IRREGULAR |= {"ゐ": "i", "ゑ": "e", "を": "o", "ん": "n", "ゔ": "vu"}
KANA: dict[str, str] = {
    ch: _IRREGULAR.get(ch, consonant + vowel)
    for consonant, row in _ROWS.items()
    for ch, vowel in zip(row, "aiueo", strict=True)
    if ch != "\0"
} | _IRREGULAR
SMALL_Y = {"ゃ": "a", "ゅ": "u", "ょ": "o"}
SMALL_VOWEL = {"ぁ": "a", "ぃ": "i", "ぅ": "u", "ぇ": "e", "ぉ": "o"}

HONORIFICS_LATIN = ("san", "sama", "kun", "chan", "sensei", "senpai", "shi", "dono")
HONORIFICS_JA = (
    "さん", "さま", "様", "くん", "君", "ちゃん", "氏", "殿", "先生", "先輩",
    "船長", "社長", "部長", "課長", "係長", "会長", "店長", "院長", "所長", "教授", "博士",
)  # fmt: skip
MIN_PREFIX = 4  # a cue key shorter than this matches only a whole reading, never a prefix

_SYLLABLES = re.compile(
    r"(?:(?:sh|ch|ts|[kgsztdnhbpmrfjvw])y?[aeiou]|y[aeiou]|[aeiou]|n(?![aeiouy])"
    r"|([kstpgdbzfjmc])(?=\1)|t(?=ch))+"
)


def hiragana(text: str) -> str:
    """Katakana folded to hiragana (NFKC first: half-width kana too)."""
    norm = unicodedata.normalize("NFKC", text)
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in norm)


def kana_romaji(kana: str) -> str | None:
    """Hepburn romaji of a kana string (hiragana or katakana), or None when it holds anything
    else than kana and the long-vowel mark."""
    text = hiragana(kana)
    out: list[str] = []
    double = False
    for i, ch in enumerate(text):
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "っ":
            double = True
            continue
        if ch in SMALL_Y or ch in SMALL_VOWEL:
            if not out:
                out.append(SMALL_Y.get(ch) or SMALL_VOWEL[ch])
            continue
        if ch == "ー":
            if out:
                out.append(out[-1][-1])
            continue
        syllable = KANA.get(ch)
        if syllable is None:
            return None
        if nxt in SMALL_Y and syllable.endswith("i") and len(syllable) > 1:
            stem = syllable[:-1]
            syllable = stem + ("" if stem in ("sh", "ch", "j") else "y") + SMALL_Y[nxt]
        elif nxt in SMALL_VOWEL and len(syllable) > 1:
            syllable = syllable.rstrip("aiueo") + SMALL_VOWEL[nxt]
        if double:
            syllable = ("t" if syllable.startswith("ch") else syllable[0]) + syllable
            double = False
        out.append(syllable)
    return "".join(out) or None


_LONG = re.compile(r"ou|oo|uu|aa|ii|ee|oh(?=[^aeiouy]|$)")


def loose(romaji: str) -> str:
    """The loose romaji key: lower case, marks dropped, letters only, m before b/m/p as n, long
    vowels collapsed (so Ōta, Ota, Oota and Ohta are one key)."""
    plain = unicodedata.normalize("NFKD", romaji.casefold())
    letters = "".join(c for c in plain if "a" <= c <= "z")
    letters = re.sub(r"m(?=[bmp])", "n", letters)
    while True:
        shorter = _LONG.sub(lambda m: m.group(0)[0], letters)
        if shorter == letters:
            return letters
        letters = shorter


@cache
def _tagger() -> Any:
    """fugashi's tagger over unidic-lite (the `ja` extra), or None when it is not installed."""
    try:
        import fugashi  # type: ignore[import-not-found,import-untyped,unused-ignore]

        return fugashi.Tagger()
    except (ImportError, RuntimeError):
        return None


def analyzer() -> str | None:
    """The name of the analyzer that reads kanji here, or None (kana and romaji only)."""
    return "fugashi+unidic-lite" if _tagger() is not None else None


def _is_kana(ch: str) -> bool:
    return "ぁ" <= ch <= "ゖ" or ch == "ー"


def read_kana(text: str) -> str | None:
    """The kana reading of a Japanese spelling (kanji read by the analyzer, variant kanji folded
    to their common form first), or None when a part cannot be read or there is no Japanese."""
    folded = "".join(COMMON.get(c, c) for c in text)
    folded = hiragana(folded)
    if not any(_is_kana(c) or _is_kanji(c) for c in folded):
        return None
    if all(_is_kana(c) or not c.strip() for c in folded):
        return "".join(folded.split())
    tagger = _tagger()
    if tagger is None:
        return None
    parts: list[str] = []
    for word in tagger(folded):
        surface = hiragana(word.surface)
        kana = getattr(word.feature, "kana", None)
        if kana:
            parts.append(hiragana(kana))
        elif all(_is_kana(c) for c in surface):
            parts.append(surface)
        elif not surface.strip() or all(unicodedata.category(c)[0] in "PZ" for c in surface):
            continue
        else:
            return None
    return "".join(parts) or None


def _is_kanji(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or ch == "々"


def has_kanji(text: str) -> bool:
    """Whether a kanji is among the characters of `text`."""
    return any(_is_kanji(ch) for ch in text)


def reading_key(spelling: str) -> str | None:
    """The loose romaji key of a stored spelling's reading, or None (no Japanese in it, or a
    part the analyzer cannot read)."""
    kana = read_kana(spelling)
    if kana is None:
        return None
    romaji = kana_romaji(kana)
    key = loose(romaji) if romaji else ""
    return key or None


def strip_honorific_ja(text: str) -> str:
    """A Japanese name less a trailing honorific or title (山田さん, 檜山船長)."""
    for suffix in sorted(HONORIFICS_JA, key=len, reverse=True):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)]
    return text


def _latin_words(text: str) -> list[str] | None:
    """The words of a Latin cue less a trailing honorific (Fujino-san, Ota sama), or None
    when a word is not romaji."""
    words = [w for w in re.split(r"[\s\-‐_.,']+", text.strip()) if w]
    if len(words) > 1 and loose(words[-1]) in HONORIFICS_LATIN:
        words = words[:-1]
    keys = [loose(w) for w in words]
    if not keys or not all(k and _SYLLABLES.fullmatch(k) for k in keys):
        return None
    return keys


def cue_keys(cue: str) -> tuple[list[str], str] | None:
    """The loose romaji keys a cue may be stored under and how they were read (`reading` for a
    kana or kanji cue, `romanisation` for a Latin one), or None. A Latin cue of two words is
    also read in the other order (given name first)."""
    text = cue.strip()
    if not text:
        return None
    if all(c.isascii() or unicodedata.category(c)[0] in "LMPZ" for c in text) and any(
        "a" <= c <= "z" for c in unicodedata.normalize("NFKD", text.casefold())
    ):
        words = _latin_words(text)
        if words is None:
            return None
        keys = ["".join(words)]
        if len(words) == 2:
            keys.append(words[1] + words[0])
        return list(dict.fromkeys(keys)), "romanisation"
    key = reading_key(strip_honorific_ja(hiragana(text)))
    return ([key], "reading") if key else None


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def acronym_key(spelling: str) -> str | None:
    """The initials of a Latin spelling of two to six words (camelCase, snake_case, spaced), in
    lower case, or None."""
    if not spelling.isascii():
        return None
    words = _WORD.findall(spelling)
    if not 2 <= len(words) <= 6 or not all(w[0].isalpha() for w in words):
        return None
    return "".join(w[0] for w in words).lower()


def acronym_cue(cue: str) -> str | None:
    """The key an acronym cue (2–6 capital letters) looks up, or None."""
    text = cue.strip()
    if 2 <= len(text) <= 6 and text.isascii() and text.isalpha() and text.isupper():
        return text.lower()
    return None
