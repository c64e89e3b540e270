"""The topic line of a RAPTOR node (pure): the titles of the sources its paragraphs come from.

An extractive summary keeps the most central sentences of its members, and over a large region
the most central sentences are the most generic ones ("Here is an example:"). A node therefore
opens with the titles of the sources under it — the titles holding most of its paragraphs first,
then by title — as `Topics: A · B · C.`, cut at `MAX_CHARS`, so an overview says which region
it covers and a broad question ("which topics does it cover?") has words to match. The line
needs no model. Notes have no source and add no title.
"""

from __future__ import annotations

from collections import Counter

PREFIX = "Topics: "
MAX_CHARS = 240  # about two lines: a handful of titles, short of crowding out the summary
_SEPARATOR = " · "


def line(titles: Counter[str]) -> str:
    """The topic line of a node whose paragraphs come from sources with these titles (counted
    by paragraph); empty without titles."""
    ranked = sorted((t for t in titles if t.strip()), key=lambda t: (-titles[t], t))
    kept: list[str] = []
    for title in ranked:
        candidate = PREFIX + _SEPARATOR.join([*kept, " ".join(title.split())]) + "."
        if kept and len(candidate) > MAX_CHARS:
            break
        kept.append(" ".join(title.split()))
    return PREFIX + _SEPARATOR.join(kept) + "." if kept else ""


def join(topics: str, summary: str) -> str:
    """The stored text of a node: its topic line (when it has one), then its summary."""
    return f"{topics}\n{summary}" if topics else summary


def split(stored: str) -> str:
    """The summary part of a stored node text (what the summarizer wrote)."""
    if stored.startswith(PREFIX) and "\n" in stored:
        return stored.split("\n", 1)[1]
    return stored
