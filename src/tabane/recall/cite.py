"""How one evidence item reads in the bundle: its citation line (the `cite` template filter) and
its whole block as the default template writes it, which the token budget counts."""

from __future__ import annotations

from datetime import datetime, timedelta

from tabane.recall.result import Evidence


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
    if item.author:
        parts.append(f"speaker {item.author}" if turn else f"by {item.author}")
    if item.when is not None:
        parts.append(_stamp(item.when) if turn else item.when.date().isoformat())
    return ", ".join(parts) or "uncited"


def block(item: Evidence) -> str:
    """The item as the default template writes it (templates/default.md.j2), with the widest
    index the bundle uses (`[20]`) and the blank line before it."""
    scopes = ", ".join(s.name for s in item.scopes) or "none"
    head = f"\n[20] {item.provenance} | {cite(item)} | scopes: {scopes}\n"
    asked = f"(in reply to: {item.in_reply_to})\n" if item.in_reply_to else ""
    return head + asked + item.text + "\n"


def _stamp(when: datetime) -> str:
    offset = when.utcoffset()
    if offset is None:
        return when.strftime("%Y-%m-%d %H:%M")
    if offset == timedelta(0):
        return when.strftime("%Y-%m-%d %H:%M UTC")
    return when.strftime("%Y-%m-%d %H:%M %z")
