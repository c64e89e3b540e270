"""The corpus map: a deterministic overview of the addressed contexts, with no model involved.

    docs — the shared documentation (3 sources, 41 paragraphs)
      area: Work (1 source, 11 paragraphs)
        - Roadmap [notes/roadmap.md] (11 paragraphs)
      guide/ (2 sources, 30 paragraphs)
        - Scopes [scopes.md] (18 paragraphs): Reading · Writing
        - Getting Started [start.md] (12 paragraphs): Install · Configure · First run
    … 1 of 3 sources left out          (only when something was cut)

Per context (its name and description), the live sources it holds that the caller can see, grouped
by their `area` when set (areas first) and otherwise by folder (the part of the source id before
its last '/'), ordered by area or folder and then source id in code-point order; each source with
its title, its paragraph count and its top-level section titles. Contexts keep the caller's order.
Everything is read from `sources`: the paragraph count and the top-level section titles
(`outline`) are written there at ingest (ingest/documents.py), so the map costs one aggregate and
one bounded read of the sources per context, whatever the number of paragraphs and sections.

The map never exceeds `budget_chars`. Context headings come first (all of them, when they fit);
the room left is shared by water-filling: a context smaller than an even share is shown whole and
the larger ones split the rest evenly (what line rounding leaves over goes to the contexts in
order). A folder heading is never left without a source under it. When anything
is cut, a final line says how many sources were left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, case, func, literal, select
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue
from tabane.storage.schema import Context, Source

# Top-level sections listed per source; more are counted ("+3 more").
MAX_SECTIONS = 8
# A line (source, folder or context heading) longer than this is cut with "…".
MAX_LINE = 240
# The shortest source line ("    - x (1 paragraph)" and its newline): bounds the rows worth reading.
MIN_SOURCE_LINE = 20

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class _Folder:
    area: bool
    name: str
    sources: int
    paragraphs: int


def corpus_map(session: Session, context_ids: Sequence[int], budget_chars: int) -> str:
    """The overview of the contexts (those the caller can see), at most `budget_chars` long."""
    if isinstance(budget_chars, bool) or not isinstance(budget_chars, int) or budget_chars < 1:
        raise InvalidInput(
            "the corpus map's budget must be a positive number of characters",
            issues=[Issue("overview_chars", "not a positive integer")],
        )
    order = list(dict.fromkeys(context_ids))
    if not order:
        return ""
    contexts = {
        row.id: row
        for row in session.execute(
            select(Context.id, Context.name, Context.description).where(Context.id.in_(order))
        )
    }
    order = [cid for cid in order if cid in contexts]
    folders = _folders(session, order)
    total = sum(f.sources for fs in folders.values() for f in fs.values())
    headers: list[str] = []
    for cid in order:
        sources = sum(f.sources for f in folders.get(cid, {}).values())
        paragraphs = sum(f.paragraphs for f in folders.get(cid, {}).values())
        ctx = contexts[cid]
        about = _clip(f"{ctx.name} — {ctx.description}" if ctx.description.strip() else ctx.name)
        headers.append(
            _line(f"{about} ({_count(sources, 'source')}, {_count(paragraphs, 'paragraph')})")
        )
    room = budget_chars + 1  # every line is counted with its newline; the last has none
    bodies = [_units(session, cid, folders.get(cid, {}), room) for cid in order]
    needs = [sum(len(u) + 1 for u, _ in body) for body in bodies]
    if sum(len(h) + 1 for h in headers) + sum(needs) <= room and _complete(bodies, total):
        return "\n".join(
            h + "".join("\n" + u for u, _ in b) for h, b in zip(headers, bodies, strict=True)
        )
    trailer_room = len(_trailer(total, total)) + 1
    kept_headers: list[str] = []
    free = room - trailer_room
    for header in headers:
        if len(header) + 1 > free:
            break
        kept_headers.append(header)
        free -= len(header) + 1
    taken = _share(bodies[: len(kept_headers)], free)
    lines: list[str] = []
    shown = 0
    for header, body, n in zip(kept_headers, bodies, taken, strict=False):
        lines.append(header)
        lines.extend(u for u, _ in body[:n])
        shown += sum(sources for _, sources in body[:n])
    lines.append(_trailer(total - shown, total))
    return "\n".join(lines)[:budget_chars]


def _share(bodies: list[list[tuple[str, int]]], free: int) -> list[int]:
    """How many units of each body to keep: water-filling over their full sizes, then what the
    line rounding left over to the bodies in order."""
    needs = [sum(len(u) + 1 for u, _ in body) for body in bodies]
    allot = [0] * len(bodies)
    left = free
    pending = sorted(range(len(bodies)), key=lambda i: (needs[i], i))
    for k, i in enumerate(pending):
        share = left // (len(pending) - k)
        allot[i] = min(needs[i], share)
        left -= allot[i]
    taken = [_prefix(body, allot[i]) for i, body in enumerate(bodies)]
    spare = free - sum(_size(body[:n]) for body, n in zip(bodies, taken, strict=True))
    for i, body in enumerate(bodies):
        more = _prefix(body[taken[i] :], spare)
        spare -= _size(body[taken[i] : taken[i] + more])
        taken[i] += more
    return taken


def _prefix(units: list[tuple[str, int]], room: int) -> int:
    n = used = 0
    for unit, _ in units:
        if used + len(unit) + 1 > room:
            break
        used += len(unit) + 1
        n += 1
    return n


def _size(units: list[tuple[str, int]]) -> int:
    return sum(len(u) + 1 for u, _ in units)


def _complete(bodies: list[list[tuple[str, int]]], total: int) -> bool:
    return sum(sources for body in bodies for _, sources in body) == total


def _trailer(left_out: int, total: int) -> str:
    return f"… {left_out} of {_count(total, 'source')} left out"


def _folder_key() -> tuple[Any, Any]:
    """(is an area, the area or folder) of a source, as SQL expressions."""
    has_area = func.length(func.btrim(func.coalesce(Source.area, ""))) > 0
    folder = case(
        (has_area, Source.area),
        (
            func.strpos(Source.source_id, "/") > 0,
            func.regexp_replace(Source.source_id, "/[^/]*$", ""),
        ),
        else_=literal(""),
    )
    return has_area, folder


def _folders(
    session: Session, context_ids: list[int]
) -> dict[int, dict[tuple[bool, str], _Folder]]:
    has_area, folder = _folder_key()
    stmt = (
        select(
            Source.context_id,
            has_area.label("area"),
            folder.label("folder"),
            func.count().label("sources"),
            func.coalesce(func.sum(Source.paragraph_count), 0).label("paragraphs"),
        )
        .where(Source.context_id.in_(context_ids), Source.retracted_at.is_(None))
        .group_by(Source.context_id, has_area, folder)
    )
    out: dict[int, dict[tuple[bool, str], _Folder]] = {}
    for row in session.execute(stmt):
        key = (bool(row.area), str(row.folder))
        out.setdefault(row.context_id, {})[key] = _Folder(
            key[0], key[1], int(row.sources), int(row.paragraphs)
        )
    return out


def _sources_select(context_id: int, limit: int) -> Select[Any]:
    has_area, folder = _folder_key()
    return (
        select(
            Source.id,
            Source.source_id,
            Source.title,
            Source.paragraph_count,
            Source.outline,
            has_area.label("area"),
            folder.label("folder"),
        )
        .where(Source.context_id == context_id, Source.retracted_at.is_(None))
        .order_by(has_area.desc(), folder.collate("C"), Source.source_id.collate("C"), Source.id)
        .limit(limit)
    )


def _units(
    session: Session, context_id: int, folders: dict[tuple[bool, str], _Folder], room: int
) -> list[tuple[str, int]]:
    """The context's body as units (text, sources in it): a folder heading travels with its
    first source. Rendered only as far as `room` could ever hold."""
    if not folders:
        return []
    rows = session.execute(_sources_select(context_id, room // MIN_SOURCE_LINE + 1)).all()
    units: list[tuple[str, int]] = []
    used = 0
    current: tuple[bool, str] | None = None
    for row in rows:
        key = (bool(row.area), str(row.folder))
        line = _source_line(row, key, list(row.outline or ()))
        if key != current:
            current = key
            line = _folder_line(folders[key]) + "\n" + line
        units.append((line, 1))
        used += len(line) + 1
        if used > room:
            break
    return units


def _source_line(row: Any, key: tuple[bool, str], sections: list[str]) -> str:
    ref = row.source_id
    if not key[0] and key[1]:
        ref = ref[len(key[1]) + 1 :]
    title = _clip(row.title) if row.title.strip() else ""
    head = f"{title} [{ref}]" if title and title != ref else f"[{ref}]"
    line = f"    - {head} ({_count(row.paragraph_count, 'paragraph')})"
    if sections:
        shown = [_clip(s) for s in sections[:MAX_SECTIONS]]
        extra = len(sections) - len(shown)
        line += ": " + " · ".join(shown) + (f" · +{extra} more" if extra else "")
    return _line(line)


def _folder_line(folder: _Folder) -> str:
    if folder.area:
        name = f"area: {_clip(folder.name)}"
    else:
        name = f"{folder.name}/" if folder.name else "(top level)"
    sizes = f"{_count(folder.sources, 'source')}, {_count(folder.paragraphs, 'paragraph')}"
    return _line(f"  {name} ({sizes})")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _clip(text: str, most: int = 120) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= most else text[: most - 1] + "…"


def _line(text: str) -> str:
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"
