"""Variant kanji (itaiji): forms of one character that names are written with interchangeably
(髙/高, 﨑/崎, 邊/邉/辺, 澤/沢) and that NFKC leaves apart, so a spelling key keeps them apart too.

`variant_keys` gives the other keys a name may be stored under: each character of a group
swapped for the other members, every combination, at most MAX_VARIANTS (a name has few such
characters; a longer run is cut, never enumerated). Resolve looks those keys up as exact
spellings (graph/resolve/tiers.py `variants`). The groups are the common name variants of the
jinmeiyō and traditional forms (old form, common form, and the widespread handwritten forms),
not a list taken from any data set.
"""

from __future__ import annotations

from itertools import product

MAX_VARIANTS = 16

GROUPS = (
    "高髙",
    "崎﨑嵜碕",
    "辺邊邉",
    "沢澤",
    "浜濱濵",
    "島嶋嶌",
    "斎齋",
    "斉齊",
    "桜櫻",
    "広廣",
    "国國",
    "竜龍",
    "富冨",
    "徳德",
    "桧檜",
    "蔵藏",
    "瀬瀨",
    "真眞",
    "恵惠",
    "栄榮",
    "関關",
    "会會",
    "学學",
    "実實",
    "寿壽",
    "条條",
    "黒黑",
    "静靜",
    "増增",
    "豊豐",
    "礼禮",
    "県縣",
    "万萬",
    "与與",
    "亜亞",
    "伝傳",
    "円圓",
    "応應",
    "横橫",
    "気氣",
    "吉𠮷",
)

VARIANTS: dict[str, str] = {
    ch: "".join(other for other in group if other != ch)
    for group in GROUPS
    for ch in dict.fromkeys(group)
}


def variant_keys(key: str) -> list[str]:
    """The keys `key` becomes with one or more of its characters written in another form (not
    `key` itself), in a stable order, at most MAX_VARIANTS."""
    options = [(ch, *VARIANTS.get(ch, "")) for ch in key]
    if all(len(o) == 1 for o in options):
        return []
    out: list[str] = []
    for combo in product(*options):
        alt = "".join(combo)
        if alt != key:
            out.append(alt)
            if len(out) == MAX_VARIANTS:
                break
    return out
