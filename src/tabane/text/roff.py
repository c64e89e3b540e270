"""roff escapes and request arguments, rendered to plain text (the low level of the man converter).

Font and size changes, motions and other layout escapes vanish; special characters (`\\(em`,
`\\[u00E9]`) become their Unicode characters; strings (`\\*(lq`) expand from the page's `.ds`
definitions.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

SPECIAL = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "aq": "'", "dq": '"', "bu": "•", "lq": "“",
    "rq": "”", "oq": "‘", "cq": "’", "Bq": "„", "bq": "‚", "Fo": "«", "Fc": "»", "fo": "‹",
    "fc": "›", "co": "©", "rg": "®", "tm": "™", "ga": "`", "aa": "´", "ti": "~", "ha": "^",
    "rs": "\\", "sl": "/", "ba": "|", "br": "|", "or": "|", "pl": "+", "eq": "=", "mu": "×",
    "di": "÷", "+-": "±", "<=": "≤", ">=": "≥", "!=": "≠", "==": "≡", "~~": "≈", "->": "→",
    "<-": "←", "<>": "↔", "ua": "↑", "da": "↓", "de": "°", "sc": "§", "ps": "¶", "dg": "†",
    "dd": "‡", "ct": "¢", "Po": "£", "Eu": "€", "Ye": "¥", "at": "@", "sh": "#", "Do": "$",
    "fm": "′", "sd": "″", "ul": "_", "ru": "_", "pc": "·", "ss": "ß", "12": "½", "14": "¼",
    "34": "¾", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "if": "∞",
    "no": "¬", "AE": "Æ", "ae": "æ", "OE": "Œ", "oe": "œ", "/o": "ø", "/O": "Ø", "ho": "˛",
    "*a": "α", "*b": "β", "*g": "γ", "*d": "δ", "*e": "ε", "*l": "λ", "*m": "μ", "*p": "π",
    "*s": "σ", "*W": "Ω", "sq": "□", "OK": "✓",
}  # fmt: skip
# Predefined strings (man(7), and pod2man's quote strings before its .ds lines run).
STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "C+": "C++", 'L"': "“", 'R"': "”"}
# Accent prefixes of composed special characters (`\(:a` is ä): combining marks.
_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    ":": "\u0308",
    "^": "\u0302",
    "~": "\u0303",
    ",": "\u0327",
}
# Escapes whose argument is delimited (`\h'3n'`): the argument never prints.
_DELIMITED = frozenset("ABbDHhLloRSvwXxZ")
# Escapes followed by a name (`\nx`, `\n(xx`, `\n[name]`) that print nothing here.
_NAMED_SILENT = frozenset("gkmMnVY")
_SILENT = frozenset("&|^%:,/)z{}pdurat?")


def special(name: str) -> str:
    """A special character by name (`em`, `u00E9`, `u0065_0301`, `char46`, `'e`); "" if unknown."""
    if name in SPECIAL:
        return SPECIAL[name]
    if name.startswith("u") and len(name) > 1:
        try:
            return unicodedata.normalize(
                "NFC", "".join(chr(int(part, 16)) for part in name[1:].split("_"))
            )
        except ValueError:
            return ""
    if name.startswith("char") and name[4:].isdigit():
        return chr(int(name[4:]))
    if len(name) == 2 and name[0] in _ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + _ACCENTS[name[0]])
    return ""


def render(text: str, strings: Mapping[str, str], *, depth: int = 0) -> tuple[str, bool]:
    """Plain text of one roff line, and whether it ended with `\\c` (join with the next line)."""
    out: list[str] = []
    joined = False
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= n:
            break
        escape = text[i + 1]
        i += 2
        if escape in ('"', "#"):
            break  # comment to the end of the line
        if escape in ("f", "F"):
            _, i = _name(text, i)
        elif escape == "s":
            i = _size(text, i)
        elif escape in ("(", "["):
            name, i = _name(text, i - 1)
            out.append(special(name))
        elif escape == "*":
            name, i = _name(text, i)
            if depth < 8:
                out.append(render(strings.get(name, ""), strings, depth=depth + 1)[0])
        elif escape in _NAMED_SILENT:
            if escape == "n" and i < n and text[i] in "+-":
                i += 1
            _, i = _name(text, i)
        elif escape in _DELIMITED or escape in ("C", "N"):
            argument, i = _delimited(text, i)
            if escape == "C":
                out.append(special(argument))
            elif escape == "N" and argument.isdigit():
                out.append(chr(int(argument)))
            elif escape == "h" and argument and not argument.startswith("-"):
                out.append(" ")
        elif escape in ("e", "\\"):
            out.append("\\")
        elif escape in (" ", "~", "0"):
            out.append(" ")
        elif escape == "t":
            out.append("\t")
        elif escape == "-":
            out.append("-")
        elif escape == "c":
            joined = i >= n
        elif escape == "$":
            i += 1  # a macro argument reference
        elif escape not in _SILENT:
            out.append(escape)  # \. \' \` and any other character stand for themselves
    return "".join(out), joined


def arguments(text: str) -> list[str]:
    """Split request arguments roff's way: spaces separate, double quotes group, `""` is a quote.

    Escapes stay unrendered (`\\ ` does not split).
    """
    args: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        current: list[str] = []
        if text[i] == '"':
            i += 1
            while i < n:
                if text[i] == '"':
                    if text[i + 1 : i + 2] == '"':
                        current.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                current.append(text[i : i + 2] if text[i] == "\\" else text[i])
                i += 2 if text[i] == "\\" else 1
        else:
            while i < n and text[i] not in " \t":
                current.append(text[i : i + 2] if text[i] == "\\" else text[i])
                i += 2 if text[i] == "\\" else 1
        args.append("".join(current))
    return args


def _name(text: str, i: int) -> tuple[str, int]:
    """A name after an escape: `x`, `(xx` or `[long name]`."""
    if i >= len(text):
        return "", i
    if text[i] == "(":
        return text[i + 1 : i + 3], i + 3
    if text[i] == "[":
        end = text.find("]", i)
        if end < 0:
            return text[i + 1 :], len(text)
        return text[i + 1 : end], end + 1
    return text[i], i + 1


def _delimited(text: str, i: int) -> tuple[str, int]:
    if i >= len(text):
        return "", i
    end = text.find(text[i], i + 1)
    if end < 0:
        return text[i + 1 :], len(text)
    return text[i + 1 : end], end + 1


def _size(text: str, i: int) -> int:
    """Skip a size escape's argument: `\\s+1`, `\\s-2`, `\\s12`, `\\s(12`, `\\s[12]`, `\\s'12'`."""
    n = len(text)
    if i < n and text[i] in "+-":
        i += 1
    if i < n and text[i] in "(['":
        return _name(text, i)[1] if text[i] != "'" else _delimited(text, i)[1]
    if i < n and text[i].isdigit():
        two = text[i] in "123" and i + 1 < n and text[i + 1].isdigit()
        return i + (2 if two else 1)
    return i
