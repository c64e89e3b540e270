"""mdoc(7) inline macros (BSD man pages) rendered to text: `.Fl a Ar file` → `-a file`.

Only what text needs: flags get their dash, `.Xr name 1` becomes `name(1)`, enclosures (`.Op`,
`.Dq`, …) wrap the rest of the line, `.Ns` removes a space, punctuation attaches to the word before
it, and every other semantic macro simply prints its arguments. Block structure (`.Sh`, `.It`,
`.Bd`) is man.py's.
"""

from __future__ import annotations

_ENCLOSURES = {
    "Op": ("[", "]"), "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("<", ">"), "Pq": ("(", ")"),
    "Dq": ("“", "”"), "Sq": ("‘", "’"), "Ql": ("‘", "’"), "Qq": ('"', '"'),
}  # fmt: skip
_PASS = frozenset({
    "Ad", "An", "Ap", "Ar", "At", "Bsx", "Bx", "Cd", "Cm", "Dv", "Dx", "Em", "Er", "Ev", "Fa", "Fd",
    "Fn", "Ft", "Fx", "Ic", "In", "Lb", "Li", "Lk", "Ms", "Mt", "No", "Nx", "Ot", "Ox", "Pa", "Pf",
    "St", "Sy", "Ta", "Tg", "Tn", "Ux", "Va", "Vt", "Xc", "Xo",
})  # fmt: skip
_SYSTEMS = {
    "Bx": "BSD", "Ux": "UNIX", "Nx": "NetBSD", "Fx": "FreeBSD", "Ox": "OpenBSD", "Bsx": "BSD/OS",
}  # fmt: skip
MACROS = frozenset(_ENCLOSURES) | _PASS | {"Fl", "Xr", "Nm", "Ns", "Nd"}
_PUNCTUATION = frozenset({".", ",", ";", ":", "?", "!", ")", "]", "}"})


def render_mdoc(tokens: list[str], name: str) -> str:
    """Text of one mdoc line (a macro and its arguments, or an `.It` head); `name` is what a bare
    `.Nm` prints (the page's first `.Nm` argument)."""
    out: list[str] = []
    _render(tokens, 0, out, name)
    return _join(out)


def _render(tokens: list[str], i: int, out: list[str], name: str) -> int:
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _ENCLOSURES:
            opening, closing = _ENCLOSURES[token]
            inner: list[str] = []
            i = _render(tokens, i, inner, name)
            trailing: list[str] = []
            while inner and inner[-1] in _PUNCTUATION:
                trailing.insert(0, inner.pop())  # `.Op Fl a ,` → "[-a],"
            out.append(opening + _join(inner) + closing)
            out.extend(trailing)
        elif token == "Ns":
            out.append("\0")  # no space here
        elif token == "Xr":
            words = _plain(tokens, i, 2)
            i += len(words)
            out.append(f"{words[0]}({words[1]})" if len(words) == 2 else "".join(words))
        elif token == "Fl":
            words = _plain(tokens, i, len(tokens))
            i += len(words)
            flags = [word if word in _PUNCTUATION else "-" + word for word in words]
            out.extend(flags or ["-"])
        elif token == "Nm":
            words = _plain(tokens, i, len(tokens))
            i += len(words)
            bare = not words or words[0] in _PUNCTUATION
            out.extend(([name] if bare and name else []) + words)
        elif token == "Nd":
            out.append("-")
        elif token in _SYSTEMS:
            out.append(_SYSTEMS[token])
        elif token not in _PASS:
            out.append(token)
    return i


def _plain(tokens: list[str], i: int, limit: int) -> list[str]:
    """Up to `limit` arguments from position `i` that are not macro names."""
    words: list[str] = []
    while i < len(tokens) and len(words) < limit and tokens[i] not in MACROS:
        words.append(tokens[i])
        i += 1
    return words


def _join(pieces: list[str]) -> str:
    text = ""
    for piece in pieces:
        if piece == "\0":
            text += "\0"
        elif not text or text.endswith("\0") or piece in _PUNCTUATION:
            text = text.removesuffix("\0") + piece
        else:
            text += " " + piece
    return text.replace("\0", "")
