"""How one evidence item reads in the bundle, and what it costs: its citation line (the `cite`
template filter), its whole block as the default template writes it, and the token estimate the
budget counts it by."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

from tabane.recall.result import Evidence, Stance

# Scripts written without spaces (kana, CJK ideographs, Hangul, half-width katakana).
DENSE = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]"
)


def estimate(text: str, chars_per_token: float) -> int:
    """Tokens a text costs in a prompt, as the budget counts them: a character of a script
    written without spaces counts as one token (common BPE vocabularies spend one to one and a
    half characters per token there), other text `chars_per_token` characters per token."""
    dense = len(DENSE.findall(text))
    return math.ceil(dense + (len(text) - dense) / chars_per_token)


def cite(item: Evidence) -> str:
    """An item's citation in one line: title and source id, section path, paragraph; the claim
    and its holder and date; the session turn and its speaker and time."""
    c = item.citation
    parts: list[str] = []
    if c.title:
        parts.append(f'"{c.title}"' + (f" ({c.source})" if c.source else ""))
    elif c.source:
        parts.append(c.source)
    if c.section:
        parts.append(" > ".join(c.section))
    if c.paragraph is not None:
        parts.append(f"paragraph {c.paragraph}")
    if c.claim is not None:
        parts.append(f"claim {c.claim}")
    if c.session is not None:
        parts.append(f"session {c.session}" + (f" turn {c.turn}" if c.turn is not None else ""))
    turn = item.kind == "turn"
    if item.stance is not None:
        parts.append(view(item.stance, item.author))
    elif item.author:
        parts.append(f"speaker {item.author}" if turn else f"by {item.author}")
    if item.when is not None:
        parts.append(_stamp(item.when) if turn else item.when.date().isoformat())
    return ", ".join(parts) or "uncited"


def view(stance: Stance, author: str | None) -> str:
    """Whose view a claim is, in words: `world, by ken (technician)` for a world claim, `opinion
    of hana (barista)` for a personal one (its holder: the perspective key, else the author)."""
    role = f" ({stance.role})" if stance.role else ""
    if stance.kind == "world":
        return "world" + (f", by {author}{role}" if author else role)
    holder = stance.perspective or author
    return f"{stance.kind}" + (f" of {holder}" if holder else "") + role


def block(item: Evidence) -> str:
    """The item as the default template writes it (templates/default.md.j2), with the widest
    index the bundle uses (`[20]`) and the blank line before it."""
    scopes = ", ".join(s.name for s in item.scopes) or "none"
    head = f"\n[20] {item.provenance} | {cite(item)} | scopes: {scopes}\n"
    asked = f"(in reply to: {item.in_reply_to})\n" if item.in_reply_to else ""
    if item.superseded_by:
        asked += f"(earlier; superseded by: {item.superseded_by})\n"
    return head + asked + item.text + "\n"


def _stamp(when: datetime) -> str:
    offset = when.utcoffset()
    if offset is None:
        return when.strftime("%Y-%m-%d %H:%M")
    if offset == timedelta(0):
        return when.strftime("%Y-%m-%d %H:%M UTC")
    return when.strftime("%Y-%m-%d %H:%M %z")
