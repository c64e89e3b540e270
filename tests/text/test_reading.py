"""text/reading.py: kana and Hepburn meet in one loose romaji key; honorifics leave cues;
acronyms are the initials of multi-word Latin spellings."""

from __future__ import annotations

import pytest

from tabane.text.reading import (
    acronym_cue,
    acronym_key,
    analyzer,
    cue_keys,
    kana_romaji,
    loose,
    reading_key,
)


@pytest.mark.parametrize(
    ("kana", "romaji"),
    [
        ("さくら", "sakura"),
        ("シャッター", "shattaa"),
        ("きっちゃ", "kitcha"),
        ("ちょうちん", "chouchin"),
        ("じゅんいち", "junichi"),
        ("ふぇりー", "ferii"),
        ("つづみ", "tsuzumi"),
    ],
)
def test_kana_is_romanised_in_hepburn(kana: str, romaji: str) -> None:
    assert kana_romaji(kana) == romaji


def test_kana_romaji_refuses_what_is_not_kana() -> None:
    assert kana_romaji("さくらA") is None and kana_romaji("桜") is None


@pytest.mark.parametrize("spelling", ["Ōta", "Ota", "Oota", "Ohta", "OHTA", "ôta"])
def test_long_vowels_and_marks_collapse_to_one_key(spelling: str) -> None:
    assert loose(spelling) == "ota"


def test_m_before_labials_reads_as_n() -> None:
    assert loose("Namba") == loose("Nanba") == "nanba"


def test_kana_and_romaji_cues_meet_a_kana_spelling() -> None:
    stored = reading_key("フジノユキ")
    assert stored == "fujinoyuki"
    assert cue_keys("ふじのゆき") == (["fujinoyuki"], "reading")
    assert cue_keys("Fujino Yuki") == (["fujinoyuki", "yukifujino"], "romanisation")


@pytest.mark.parametrize(
    "cue", ["Fujino-san", "Fujino san", "FUJINO-SAMA", "ふじのさん", "フジノ様"]
)
def test_honorifics_leave_the_cue(cue: str) -> None:
    got = cue_keys(cue)
    assert got is not None and got[0][0] == "fujino", cue


def test_english_words_are_not_romaji() -> None:
    assert cue_keys("cache server") is None and cue_keys("build") is None


@pytest.mark.skipif(analyzer() is None, reason="the ja extra (fugashi, unidic-lite) reads kanji")
def test_kanji_are_read_and_variant_forms_folded_first() -> None:
    assert reading_key("山田太郎") == "yamadataro"
    assert reading_key("髙田") == reading_key("高田") == "takada"
    assert cue_keys("山田部長") == (["yamada"], "reading")


def test_acronyms_are_initials_of_several_words() -> None:
    assert acronym_key("BlobStoreWriter") == "bsw"
    assert acronym_key("blob_store_writer") == acronym_key("blob store writer") == "bsw"
    assert acronym_key("Writer") is None and acronym_key("山田太郎") is None
    assert acronym_cue("BSW") == "bsw"
    assert acronym_cue("bsw") is None and acronym_cue("BSWXYZQ") is None
