"""Variant kanji (itaiji): the keys a name may be stored under when it is written with another
form of one of its characters."""

from __future__ import annotations

import unicodedata

from tabane.text.itaiji import MAX_VARIANTS, VARIANTS, variant_keys


def test_each_variant_swaps_both_ways() -> None:
    assert set(variant_keys("高崎")) == {"髙崎", "高﨑", "髙﨑", "高嵜", "髙嵜", "高碕", "髙碕"}
    assert "高崎" in variant_keys("髙﨑")
    assert variant_keys("abc") == [] and variant_keys("") == []


def test_the_keys_are_bounded_and_exclude_the_key_itself() -> None:
    key = "高崎辺沢浜島"
    got = variant_keys(key)
    assert key not in got and len(got) == MAX_VARIANTS and len(set(got)) == len(got)


def test_the_table_is_symmetric_and_never_maps_a_character_to_itself() -> None:
    for ch, others in VARIANTS.items():
        assert ch not in others
        for other in others:
            assert ch in VARIANTS[other], (ch, other)


def test_every_form_is_one_a_spelling_key_keeps() -> None:
    for ch in VARIANTS:
        assert unicodedata.normalize("NFKC", ch) == ch, hex(ord(ch))
