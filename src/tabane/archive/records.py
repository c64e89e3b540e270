"""The archive format: one context as JSON Lines, read back into typed records.

    {"tabane_archive": 1, "exported_at": …, "exported_by": …, "context": {…}}   the header
    {"source": {…, "paragraphs": [{"text", "section", "locator", "questions"}]}}  each source
    {"claim": {"id", …, "recorded_at", "closed_at", "close_reason", "closed_by", …}} each claim
    {"alias": {"kind", "name", "alias_of", "scopes"}}                               each alias
    {"end": {"sources": n, "paragraphs": n, "claims": n, "aliases": n}}            the last line

Reading checks every line and field (a problem names its line and field: `line 7.claim.weight`)
and the archive as a whole: the header first, the end last with the counts it saw (a cut file is
refused, never half read), claim ids unique, an open claim's attribution inside a source of the
archive. docs/guide.md ("Moving a context") documents the fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tabane.archive import fields as f
from tabane.archive.lines import (
    AliasRecord,
    ClaimRecord,
    SourceRecord,
    read_alias,
    read_claim,
    read_source,
)
from tabane.config import DEFAULT_MAX_BODY
from tabane.errors import InvalidInput, Issue

VERSION = 1
MAX_ISSUES = 100  # problems listed before reading stops
KINDS = ("source", "claim", "alias")
CONTEXT_FIELDS = frozenset({"name", "description", "dice_floor", "semantic_floor", "scopes"})
END_FIELDS = ("sources", "paragraphs", "claims", "aliases")
CONTEXT_NAME = 200  # characters of the header's context name at most
MAX_LINE = 2 * DEFAULT_MAX_BODY  # characters of a line: a source line holds a whole document


@dataclass(frozen=True)
class ContextRecord:
    name: str
    description: str
    dice_floor: float
    semantic_floor: float | None
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class Header:
    context: ContextRecord
    exported_at: str | None = None
    exported_by: str | None = None


@dataclass
class Summary:
    """What a whole reading found: the header, the counts, the sources' paragraph counts."""

    header: Header | None = None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(END_FIELDS, 0))
    paragraphs: dict[str, int] = field(default_factory=dict)  # source id → paragraphs
    scope_sets: set[tuple[str, ...]] = field(default_factory=set)


Record = Header | SourceRecord | ClaimRecord | AliasRecord


def line_text(row: dict[str, Any]) -> str:
    """One record as its line of the archive: compact JSON, non-ASCII kept (no newline)."""
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def check(lines: Iterable[str], max_line: int = MAX_LINE) -> Summary:
    """Read the whole archive; InvalidInput listing its problems (nothing is written by it).
    A line over `max_line` characters is refused before it is parsed."""
    issues: list[Issue] = []
    summary = Summary()
    for _ in _read(lines, issues, summary, max_line):
        pass
    if issues:
        shown = issues[:MAX_ISSUES]
        more = f" (the first {MAX_ISSUES} shown)" if len(issues) > MAX_ISSUES else ""
        raise InvalidInput(
            f"{len(issues)} problem(s) in the archive{more}; nothing written", issues=shown
        )
    return summary


def records(lines: Iterable[str], max_line: int = MAX_LINE) -> Iterator[Record]:
    """The records of an archive `check` passed; InvalidInput if it changed since."""
    issues: list[Issue] = []
    for record in _read(lines, issues, Summary(), max_line):
        if issues:
            break
        yield record
    if issues:
        raise InvalidInput("the archive changed while it was read; nothing written", issues=issues)


def _read(
    lines: Iterable[str], issues: list[Issue], summary: Summary, max_line: int
) -> Iterator[Record]:
    ids: set[int] = set()
    ended: dict[str, int] | None = None
    seen_end = False
    last, order = 0, 0
    for n, raw in enumerate(lines, start=1):
        if len(issues) > MAX_ISSUES:
            return
        last = n
        if not raw.strip():
            continue
        at = f"line {n}"
        if len(raw) > max_line:
            issues.append(Issue(at, f"{len(raw)} characters, at most {max_line} in one line"))
            continue
        item = _json(raw, at, issues)
        if item is None:
            continue
        if seen_end:
            issues.append(Issue(at, "after the end line"))
            continue
        if summary.header is None:
            summary.header = _header(item, at, issues)
            if summary.header is None:
                return  # not an archive of this version: its other lines mean nothing here
            summary.scope_sets.add(summary.header.context.scopes)
            yield summary.header
            continue
        if "end" in item:
            seen_end, ended = True, _end(item, at, issues)
            continue
        kind = next((KINDS.index(k) for k in KINDS if k in item), order)
        if kind < order:
            issues.append(Issue(at, "out of order: sources first, then claims, then aliases"))
            continue
        order = kind
        record = _record(item, n, issues, summary, ids)
        if record is not None:
            yield record
    if summary.header is None:
        issues.append(Issue(f"line {last + 1}", "no header line: not a tabane archive"))
    elif not seen_end:
        issues.append(Issue(f"line {last + 1}", "no end line: the archive is cut short"))
    elif ended is not None and ended != summary.counts and not issues:  # else it follows
        wrong = [f"{k} {summary.counts[k]} (the end says {ended[k]})" for k in END_FIELDS]
        issues.append(Issue("end", "the records do not match the end line: " + ", ".join(wrong)))


def _json(raw: str, at: str, issues: list[Issue]) -> dict[str, Any] | None:
    try:
        item = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        issues.append(Issue(at, f"not JSON: {str(exc)[:200]}"))
        return None
    if not isinstance(item, dict):
        issues.append(Issue(at, "not a JSON object"))
        return None
    return item


def _header(item: dict[str, Any], at: str, issues: list[Issue]) -> Header | None:
    version = item.get("tabane_archive")
    if version is None:
        issues.append(Issue(at, "the first line is not a tabane archive header"))
        return None
    if version != VERSION or isinstance(version, bool):
        issues.append(
            Issue(f"{at}.tabane_archive", f"version {version!r}; this tabane reads {VERSION}")
        )
        return None
    f.unknown(item, {"tabane_archive", "exported_at", "exported_by", "context"}, at, issues)
    ctx = item.get("context")
    where = f"{at}.context"
    if not isinstance(ctx, dict):
        issues.append(Issue(where, "missing or not an object"))
        return None
    f.unknown(ctx, CONTEXT_FIELDS, where, issues)
    name = f.text(ctx.get("name"), f"{where}.name", issues, CONTEXT_NAME, required=True)
    description = ctx.get("description", "")
    if not isinstance(description, str):
        issues.append(Issue(f"{where}.description", "not a string"))
    dice = f.number(ctx.get("dice_floor", 0.3), f"{where}.dice_floor", issues)
    semantic = ctx.get("semantic_floor")
    if semantic is not None:
        semantic = f.number(semantic, f"{where}.semantic_floor", issues)
    scopes = f.scopes(ctx.get("scopes"), f"{where}.scopes", issues)
    if name is None or dice is None or scopes is None or not isinstance(description, str):
        return None
    exported_at, by = item.get("exported_at"), item.get("exported_by")
    return Header(
        ContextRecord(name, description, dice, semantic, scopes),
        exported_at if isinstance(exported_at, str) else None,
        by if isinstance(by, str) else None,
    )


def _end(item: dict[str, Any], at: str, issues: list[Issue]) -> dict[str, int] | None:
    end = item.get("end")
    f.unknown(item, {"end"}, at, issues)
    if not isinstance(end, dict) or set(end) != set(END_FIELDS):
        issues.append(Issue(f"{at}.end", f"needs exactly the counts {', '.join(END_FIELDS)}"))
        return None
    counts = {k: end[k] for k in END_FIELDS}
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in counts.values()):
        issues.append(Issue(f"{at}.end", "counts must be whole numbers"))
        return None
    return counts


def _record(
    item: dict[str, Any], n: int, issues: list[Issue], summary: Summary, ids: set[int]
) -> Record | None:
    at = f"line {n}"
    kinds = [k for k in KINDS if k in item]
    if len(kinds) != 1 or len(item) != 1:
        issues.append(Issue(at, f"needs exactly one of {', '.join(KINDS)}"))
        return None
    kind = kinds[0]
    body = item[kind]
    where = f"{at}.{kind}"
    if not isinstance(body, dict):
        issues.append(Issue(where, "not an object"))
        return None
    if kind == "source":
        source = read_source(body, n, where, issues)
        if source is not None:
            if source.doc.source_id in summary.paragraphs:
                issues.append(Issue(f"{where}.source_id", "a second source with this id"))
            summary.paragraphs[source.doc.source_id] = len(source.doc.paragraphs or ())
            summary.counts["sources"] += 1
            summary.counts["paragraphs"] += len(source.doc.paragraphs or ())
            summary.scope_sets.add(tuple(source.doc.scopes or ()))
        return source
    if kind == "claim":
        claim = read_claim(body, n, where, issues, summary.paragraphs, ids)
        if claim is not None:
            summary.counts["claims"] += 1
            summary.scope_sets.add(claim.claim.scopes)
        return claim
    alias = read_alias(body, n, where, issues)
    if alias is not None:
        summary.counts["aliases"] += 1
        summary.scope_sets.add(alias.scopes)
    return alias
