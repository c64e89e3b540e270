"""Filling: source lines of one paragraph joined into running text, the way a reader sees them.

A line break inside filled text is a space, except between two CJK characters, which are written
without spaces (the CSS segment break rule that HTML pages follow too)."""

from __future__ import annotations

import re
from collections.abc import Sequence

CJK = "\u2e80-\u2fff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_END = re.compile(f"[{CJK}]$")
_CJK_START = re.compile(f"^[{CJK}]")


def fill(lines: Sequence[str]) -> str:
    """Lines of one filled paragraph as one line: each break a space, none between CJK."""
    out = ""
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if out and not (_CJK_END.search(out) and _CJK_START.match(line)):
            out += " "
        out += line
    return out
