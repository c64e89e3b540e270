"""Reading one line of each record kind of an archive (sources, claims, aliases): see
records.py for the format. Each reader returns the typed record, or None with every problem of
the line added to `issues`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from tabane.archive import fields as f
from tabane.checks import SOURCE_STATES
from tabane.errors import Issue
from tabane.graph.claims.parse import FIELDS, ClaimInput, parse_claim
from tabane.graph.claims.restore import KeptClaim
from tabane.ingest.documents import DocumentInput, block, check_source_id, check_tags
from tabane.text.blocks import Block

CLOSE_REASONS = ("retracted", "superseded")
SOURCE_FIELDS = frozenset(
    {
        "source_id",
        "title",
        "format",
        "date",
        "tags",
        "area",
        "state",
        "scopes",
        "origin",
        "stored_at",
        "raw_hash",
        "content_hash",
        "paragraphs",
    }
)
PARAGRAPH_FIELDS = frozenset({"text", "section", "locator", "kind", "questions"})
# a claim as a store keeps it: as a writer states it (`closes` aside), with its record
CLAIM_FIELDS = (FIELDS - {"closes"}) | {
    "id",
    "recorded_at",
    "closed_at",
    "close_reason",
    "closed_by",
    "valid_until_before",
    "scopes",
}
ALIAS_FIELDS = frozenset({"kind", "name", "alias_of", "scopes"})
# a source's texts as a store keeps them (blank allowed), and their lengths at most
SOURCE_TEXTS = {"title": 2000, "format": 64, "area": 200, "origin": 4096}
SOURCE_REQUIRED = ("title", "format")


@dataclass(frozen=True)
class SourceRecord:
    """A source as its paragraphs, with what the store said of it besides."""

    line: int
    doc: DocumentInput
    stored_at: datetime
    raw_hash: str | None
    content_hash: str


@dataclass(frozen=True)
class AliasRecord:
    line: int
    kind: str
    name: str
    alias_of: str
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class ClaimRecord:
    line: int
    claim: KeptClaim


def read_source(body: dict[str, Any], n: int, at: str, issues: list[Issue]) -> SourceRecord | None:
    before = len(issues)
    f.unknown(body, SOURCE_FIELDS, at, issues)
    source_id = f.checked(check_source_id, body.get("source_id"), issues, f"{at}.source_id")
    title, fmt, area, origin = (
        f.text(body.get(k), f"{at}.{k}", issues, limit, required=k in SOURCE_REQUIRED)
        for k, limit in SOURCE_TEXTS.items()
    )
    date = body.get("date")
    if date is not None:
        f.time(date, f"{at}.date", issues)
    tags = f.checked(check_tags, body.get("tags", []), issues, f"{at}.tags")
    state = body.get("state")
    if state is not None and state not in SOURCE_STATES:
        issues.append(Issue(f"{at}.state", f"one of {', '.join(SOURCE_STATES)}"))
    scopes = f.scopes(body.get("scopes"), f"{at}.scopes", issues)
    stored_at = f.time(body.get("stored_at"), f"{at}.stored_at", issues, required=True)
    raw_hash = f.digest(body.get("raw_hash"), f"{at}.raw_hash", issues, required=False)
    digest = f.digest(body.get("content_hash"), f"{at}.content_hash", issues, required=True)
    blocks, questions = _paragraphs(body.get("paragraphs"), f"{at}.paragraphs", issues)
    if len(issues) > before or stored_at is None or digest is None or source_id is None:
        return None
    doc = DocumentInput(
        source_id=source_id,
        paragraphs=blocks,
        format=fmt,
        title=title,
        date=date,
        tags=tags,
        area=area,
        state=None if state is None else str(state),
        scopes=scopes,
        questions=questions,
        origin=origin,
    )
    return SourceRecord(n, doc, stored_at, raw_hash, digest)


def _paragraphs(
    value: object, at: str, issues: list[Issue]
) -> tuple[list[Block], tuple[tuple[str, ...], ...]]:
    if not isinstance(value, list) or not value:
        issues.append(Issue(at, "a non-empty list of paragraphs"))
        return [], ()
    blocks: list[Block] = []
    questions: list[tuple[str, ...]] = []
    for i, p in enumerate(value):
        where = f"{at}[{i}]"
        if not isinstance(p, dict):
            issues.append(Issue(where, "not an object"))
            continue
        f.unknown(p, PARAGRAPH_FIELDS, where, issues)
        text, section, asked = p.get("text"), p.get("section", []), p.get("questions", [])
        if not isinstance(text, str) or not text.strip() or text != text.strip():
            issues.append(Issue(f"{where}.text", "a non-empty text without surrounding space"))
            continue
        if not isinstance(section, list) or not all(isinstance(s, str) for s in section):
            issues.append(Issue(f"{where}.section", "a list of heading texts"))
            continue
        if not isinstance(asked, list) or not all(isinstance(q, str) and q.strip() for q in asked):
            issues.append(Issue(f"{where}.questions", "a list of non-empty texts"))
            continue
        locator = p.get("locator")
        if locator is not None and not isinstance(locator, dict):
            issues.append(Issue(f"{where}.locator", "not an object"))
            continue
        kind = p.get("kind", "text")
        made = f.checked(
            partial(block, section=section, locator=locator, path=where, kind=kind),
            text,
            issues,
            where,
        )
        if made is not None:
            blocks.append(made)
            questions.append(tuple(asked))
    return blocks, tuple(questions)


def read_claim(
    body: dict[str, Any],
    n: int,
    at: str,
    issues: list[Issue],
    paragraphs: dict[str, int],
    ids: set[int],
) -> ClaimRecord | None:
    before = len(issues)
    f.unknown(body, CLAIM_FIELDS, at, issues)
    key = f.claim_id(body.get("id"), f"{at}.id", issues, required=True)
    if key is not None and key in ids:
        issues.append(Issue(f"{at}.id", "a second claim with this id"))
    parsed = parse_claim(_as_written(body), at, issues, require_triple=False)
    valid_until = f.time(body.get("valid_until"), f"{at}.valid_until", issues)
    recorded_at = f.time(body.get("recorded_at"), f"{at}.recorded_at", issues, required=True)
    closing = _closing(body, key, at, issues)
    scopes = f.scopes(body.get("scopes"), f"{at}.scopes", issues)
    author = body.get("author")
    if author is None:
        issues.append(Issue(f"{at}.author", "missing"))
    if body.get("kind", "world") != "world" and body.get("perspective") is None:
        issues.append(Issue(f"{at}.perspective", "missing: a personal claim is someone's"))
    if parsed is not None and valid_until and parsed.valid_from and valid_until < parsed.valid_from:
        issues.append(Issue(f"{at}.valid_until", "before valid_from"))
    if parsed is not None:
        _check_citation(parsed, closing.closed_at, paragraphs, at, issues)
    if len(issues) > before or parsed is None or key is None or scopes is None:
        return None
    assert recorded_at is not None and author is not None  # else an issue was added above
    ids.add(key)
    kept = KeptClaim(
        key=key,
        subject=parsed.subject,
        label=parsed.label,
        object=parsed.object,
        weight=parsed.weight,
        statement=parsed.statement,
        source=parsed.source,
        paragraph=parsed.paragraph,
        author=str(author),
        role=parsed.role,
        kind=parsed.kind,
        perspective=parsed.perspective or "",
        valid_from=parsed.valid_from,
        valid_until=valid_until,
        recorded_at=recorded_at,
        closed_at=closing.closed_at,
        close_reason=closing.reason,
        closed_by=closing.closed_by,
        valid_until_before=closing.valid_until_before,
        scopes=scopes,
        in_reply_to=parsed.in_reply_to,
    )
    return ClaimRecord(n, kept)


def _as_written(body: dict[str, Any]) -> dict[str, Any]:
    """The claim's fields as its writer stated them, for the writers' own check (parse_claim):
    a world claim has no perspective to state."""
    kind = body.get("kind", "world")
    said = {k: body.get(k) for k in ("subject", "label", "object", "weight", "statement")}
    if body.get("in_reply_to") is not None:
        said["in_reply_to"] = body["in_reply_to"]
    said.update({k: body.get(k) for k in ("source", "paragraph", "author", "role", "valid_from")})
    said["kind"] = kind
    if kind != "world":
        said["perspective"] = body.get("perspective")
    return said


@dataclass(frozen=True)
class Closing:
    """How a kept claim was closed, if it was: when, why, by which claim, and the bound its
    validity had to end before."""

    closed_at: datetime | None
    reason: str | None
    closed_by: int | None
    valid_until_before: datetime | None


def _closing(body: dict[str, Any], key: int | None, at: str, issues: list[Issue]) -> Closing:
    """A claim's closing fields, read and checked together: a reason goes with a time, and only
    a superseded claim names the (other) claim that closed it."""
    closed_at = f.time(body.get("closed_at"), f"{at}.closed_at", issues)
    before_end = f.time(body.get("valid_until_before"), f"{at}.valid_until_before", issues)
    reason = body.get("close_reason")
    if (reason is None) != (closed_at is None) or reason not in (None, *CLOSE_REASONS):
        issues.append(Issue(f"{at}.close_reason", "retracted or superseded, with closed_at"))
    closed_by = f.claim_id(body.get("closed_by"), f"{at}.closed_by", issues, required=False)
    if closed_by is not None and reason != "superseded":
        issues.append(Issue(f"{at}.closed_by", "only a superseded claim is closed by one"))
    if closed_by is not None and closed_by == key:
        issues.append(Issue(f"{at}.closed_by", "a claim cannot close itself"))
    return Closing(closed_at, reason, closed_by, before_end)


def _check_citation(
    parsed: ClaimInput,
    closed_at: datetime | None,
    paragraphs: dict[str, int],
    at: str,
    issues: list[Issue],
) -> None:
    """An open claim citing a paragraph of a source the archive holds must point inside it. A
    source the archive lacks is one its exporter could not see (a shared claim citing a
    private source): the claim keeps the citation, as the exporter's store showed it."""
    count = paragraphs.get(parsed.source or "")
    cited = parsed.paragraph if closed_at is None else None
    if count and cited is not None and cited >= count:
        issues.append(Issue(f"{at}.paragraph", f"out of range: the source has {count}"))


def read_alias(body: dict[str, Any], n: int, at: str, issues: list[Issue]) -> AliasRecord | None:
    before = len(issues)
    f.unknown(body, ALIAS_FIELDS, at, issues)
    kind = body.get("kind")
    if kind not in ("concept", "label"):
        issues.append(Issue(f"{at}.kind", "concept or label"))
    name, target = (
        f.spelling(body.get(field), f"{at}.{field}", issues) for field in ("name", "alias_of")
    )
    scopes = f.scopes(body.get("scopes"), f"{at}.scopes", issues)
    if len(issues) > before or name is None or target is None or scopes is None:
        return None
    return AliasRecord(n, str(kind), name, target, scopes)
