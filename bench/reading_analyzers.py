"""Which analyzer reads the names of the graph sets better: every pair of a kana or romaji
spelling (a cue or an alias of the set) and the kanji spelling it names, matched through
text/reading.py's loose romaji keys (whole reading, or a reading the cue begins) with kanji read
by fugashi + unidic-lite (the `ja` extra) or by pykakasi (GPL-3.0, measured only).

    .venv/bin/python bench/reading_analyzers.py $E/graph.json $E/graph2.json

Prints, per analyzer: pairs, matched, and the time to read every concept spelling of the sets.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from unittest import mock

from tabane.text import reading


def pairs(paths: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    out: list[tuple[str, str]] = []
    names: set[str] = set()
    for path in paths:
        data = json.loads(Path(path).read_text())
        for ctx in data["contexts"]:
            out.extend(ctx["aliases"].items())
            for a in ctx["associations"]:
                names.update((a["subject"], a["object"]))
        for q in data["questions"]:
            out.extend(q["resolves_to"].items())
    japanese = [(c, t) for c, t in out if c != t and any(reading._is_kanji(ch) for ch in t)]
    return [(c, t) for c, t in japanese if reading.cue_keys(c) is not None], sorted(names)


def pykakasi_kana(text: str) -> str | None:
    import pykakasi

    folded = reading.hiragana("".join(reading.COMMON.get(c, c) for c in text))
    if not any(reading._is_kana(c) or reading._is_kanji(c) for c in folded):
        return None
    return "".join(part["hira"] for part in pykakasi.kakasi().convert(folded)) or None


def score(label: str, kana_of: object, matched: list[tuple[str, str]], names: list[str]) -> None:
    with mock.patch.object(reading, "read_kana", kana_of):
        hit = 0
        for cue, target in matched:
            keys = reading.cue_keys(cue)
            stored = reading.reading_key(target)
            assert keys is not None
            hit += int(stored is not None and any(stored.startswith(k) for k in keys[0]))
        start = time.perf_counter()
        read = sum(reading.reading_key(n) is not None for n in names)
        took = time.perf_counter() - start
    print(f"| {label} | {len(matched)} | {hit} | {read}/{len(names)} | {took * 1000:.0f} ms |")


def main() -> None:
    matched, names = pairs(sys.argv[1:])
    print("| analyzer | kana/romaji → kanji pairs | matched | spellings read | time |")
    print("|---|---|---|---|---|")
    score("fugashi + unidic-lite", reading.read_kana, matched, names)
    score("pykakasi", pykakasi_kana, matched, names)


if __name__ == "__main__":
    main()
