"""Taguru's batch stream read into batches (decision 0027, the inverse of archive/taguru.py).

A stream is JSON Lines; a line with `taguru_batch` opens a batch, which names its context and
its source and may carry a `create` block; the lines after it, up to the next header, are the
batch's ops: at most one `passage` (with `date`, `tags`, `stored_at`), `paragraph` lines with a
`section`, `locator` or `question`, association lines (`subject`, `label`, `object`, `weight`,
`paragraph?`; no `source`: the header's is stamped on each) and alias lines (`alias`,
`canonical`, `kind`). A batch is its source's whole truth: applied, it replaces what the source
said before (archive/batches.py). A problem is an `invalid_input` at `line N.field` (1-based,
blank lines counted): it refuses its batch only, so the batches are read one at a time."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tabane.archive.groups import GroupRecord
from tabane.errors import InvalidInput, Issue
from tabane.graph.claims.parse import ClaimInput, parse_claim
from tabane.ingest.documents import DocumentInput, block

VERSION = 1
MAX_ASSOCIATIONS = 10_000  # one batch's, as Taguru's associations endpoint caps a request
HEADER_KEYS = frozenset({"taguru_batch", "context", "source", "create"})
CREATE_KEYS = frozenset({"description", "dice_floor", "semantic_floor", "pinned"})
PASSAGE_KEYS = frozenset({"passage", "date", "tags", "stored_at"})
ASSOCIATION_KEYS = frozenset({"subject", "label", "object", "weight", "paragraph"})
ALIAS_KEYS = frozenset({"alias", "canonical", "kind"})
GROUP_KEYS = frozenset({"taguru_group", "name", "description", "contexts", "groups"})
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")


@dataclass
class Batch:
    """One batch as read: where it starts, what it names and the ops it carries."""

    line: int
    context: str
    source: str
    create: dict[str, Any] | None = None
    passage: DocumentInput | None = None
    claims: list[ClaimInput] = field(default_factory=list)
    aliases: list[tuple[str, str, str]] = field(default_factory=list)  # (alias, canonical, kind)
    dropped: dict[str, int] = field(default_factory=dict)
    claim_lines: list[int] = field(default_factory=list)  # the line of each claim
    alias_lines: list[int] = field(default_factory=list)


def split(texts: Iterable[str]) -> Iterator[tuple[int, list[tuple[int, Any]]]]:
    """The stream's lines grouped by batch: (the header's line, [(line, decoded object)]). A line
    that is not JSON is kept as an `InvalidInput` for its batch to refuse."""
    first = 0
    held: list[tuple[int, Any]] = []
    for n, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        try:
            obj: Any = json.loads(text)
        except ValueError as exc:
            obj = InvalidInput("a line is not JSON", issues=[Issue(f"line {n}", str(exc))])
        if isinstance(obj, dict) and ("taguru_batch" in obj or "taguru_group" in obj) and held:
            yield first, held
            held = []
        if isinstance(obj, dict) and "taguru_group" in obj:
            yield n, [(n, obj)]  # a group record stands alone
            continue
        if not held:
            first = n
        held.append((n, obj))
    if held:
        yield first, held


def read(lines: list[tuple[int, Any]]) -> Batch:
    """One batch from its lines (the header first); `invalid_input` naming the first bad line."""
    n, header = lines[0]
    _header(n, header)
    batch = Batch(n, header["context"], header["source"], header.get("create"))
    passage: tuple[int, dict[str, Any]] | None = None
    marks: list[tuple[int, dict[str, Any]]] = []
    for n, obj in lines[1:]:
        if isinstance(obj, InvalidInput):
            raise obj
        if not isinstance(obj, dict):
            raise _bad(n, "", "not an object")
        keys = set(obj)
        if "passage" in keys:
            _only(n, keys, PASSAGE_KEYS)
            if passage is not None:
                raise _bad(n, "passage", f"a second passage (the first is at line {passage[0]})")
            passage = (n, obj)
        elif "paragraph" in keys and keys & {"section", "locator", "question"}:
            _only(n, keys, {"paragraph", "section", "locator", "question"})
            marks.append((n, obj))
        elif "subject" in keys or "label" in keys or "object" in keys:
            batch.claims.append(_claim(n, obj, batch.source))
            batch.claim_lines.append(n)
        elif "alias" in keys:
            batch.aliases.append(_alias(n, obj))
            batch.alias_lines.append(n)
        else:
            raise _bad(n, "", f"not a batch line: {sorted(keys)}")
    if len(batch.claims) > MAX_ASSOCIATIONS:
        raise _bad(batch.line, "associations", f"{len(batch.claims)} > {MAX_ASSOCIATIONS}")
    if marks and passage is None:
        raise _bad(marks[0][0], "paragraph", "a paragraph line in a batch without a passage")
    if passage is not None:
        batch.passage, batch.dropped = _document(batch.source, passage, marks)
    return batch


def is_group(part: list[tuple[int, Any]]) -> bool:
    """Whether a unit of `split` is a `taguru_group` record rather than a batch."""
    return isinstance(part[0][1], dict) and "taguru_group" in part[0][1]


def read_group(n: int, obj: dict[str, Any]) -> GroupRecord:
    """A group record (as `GET /taguru/groups/{g}/export` writes it): its name, description,
    member contexts and child groups — the group's whole truth."""
    _only(n, set(obj), GROUP_KEYS)
    if obj["taguru_group"] != VERSION:
        raise _bad(n, "taguru_group", f"version {obj['taguru_group']!r}: only {VERSION}")
    name, description = obj.get("name"), obj.get("description", "")
    if not isinstance(name, str) or not name.strip():
        raise _bad(n, "name", "a non-empty string")
    if not isinstance(description, str):
        raise _bad(n, "description", "a string")
    members: list[tuple[str, ...]] = []
    for key in ("contexts", "groups"):
        names = obj.get(key, [])
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise _bad(n, key, "a list of names")
        members.append(tuple(names))
    return GroupRecord(name, description, members[0], members[1])


def _header(n: int, header: Any) -> None:
    if isinstance(header, InvalidInput):
        raise header
    if not isinstance(header, dict) or "taguru_batch" not in header:
        raise _bad(n, "taguru_batch", "a batch starts with its header line")
    _only(n, set(header), HEADER_KEYS)
    if header["taguru_batch"] != VERSION:
        raise _bad(n, "taguru_batch", f"version {header['taguru_batch']!r}: only {VERSION}")
    for key in ("context", "source"):
        if not isinstance(header.get(key), str) or not header[key].strip():
            raise _bad(n, key, "a non-empty string")
    create = header.get("create")
    if create is not None:
        if not isinstance(create, dict):
            raise _bad(n, "create", "an object")
        _only(n, set(create), CREATE_KEYS, "create.")


def _claim(n: int, obj: Mapping[str, Any], source: str) -> ClaimInput:
    """The association as the claim parser reads one (the one home of its bounds), the header's
    source stamped on it."""
    _only(n, set(obj), ASSOCIATION_KEYS)
    issues: list[Issue] = []
    claim = parse_claim({**obj, "source": source}, f"line {n}", issues)
    if claim is None or issues:
        raise InvalidInput(f"line {n} of the batch stream: {issues[0].problem}", issues=issues)
    return claim


def _alias(n: int, obj: Mapping[str, Any]) -> tuple[str, str, str]:
    _only(n, set(obj), ALIAS_KEYS)
    for key in ("alias", "canonical"):
        if not isinstance(obj.get(key), str):
            raise _bad(n, key, "a string")
    kind = obj.get("kind", "concept")
    if kind not in ("concept", "label"):
        raise _bad(n, "kind", "concept or label")
    return obj["alias"], obj["canonical"], kind


def _document(
    source: str, passage: tuple[int, dict[str, Any]], marks: list[tuple[int, dict[str, Any]]]
) -> tuple[DocumentInput, dict[str, int]]:
    """The passage as a document of paragraphs (split at blank lines, as Taguru splits it) with
    its sections (from their paragraph on), locators (that paragraph), questions, date and
    tags; a mark naming a paragraph the text does not have is counted as dropped."""
    n, obj = passage
    if not isinstance(obj["passage"], str):
        raise _bad(n, "passage", "a string")
    paras = paragraphs(obj["passage"])
    heading: list[tuple[str, ...]] = [() for _ in paras]
    placed: list[dict[str, Any] | None] = [None for _ in paras]
    asked: list[list[str]] = [[] for _ in paras]
    dropped = {"questions": 0, "sections": 0, "locators": 0}
    for m, mark in sorted(marks, key=lambda nm: nm[1].get("paragraph", 0)):
        at = mark["paragraph"]
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise _bad(m, "paragraph", "an integer from 0")
        what = next(k for k in ("section", "locator", "question") if k in mark)
        if at >= len(paras):
            dropped[f"{what}s"] += 1
        elif what == "section":
            heading[at:] = [(_text(m, mark, "section"),)] * (len(paras) - at)
        elif what == "question":
            asked[at].append(_text(m, mark, "question"))
        elif not isinstance(mark["locator"], dict):
            raise _bad(m, "locator", "an object {kind, value}")
        else:
            placed[at] = mark["locator"]
    blocks = [
        block(t, heading[k], placed[k], path=f"line {n}.passage[{k}]") for k, t in enumerate(paras)
    ]
    tags = obj.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        raise _bad(n, "tags", "a list of strings")
    doc = DocumentInput(
        source_id=source,
        paragraphs=blocks,
        date=_iso(n, obj.get("date"), "date"),
        tags=tags,
        questions=tuple(tuple(q) for q in asked),
    )
    return doc, dropped


def paragraphs(text: str) -> list[str]:
    """A passage's paragraphs as Taguru splits it: at blank lines, each stripped, none empty
    (the passage store, api/routes/taguru_wire/sources.py, splits the same way)."""
    return [p.strip() for p in _PARAGRAPHS.split(text) if p.strip()]


def _text(n: int, mark: Mapping[str, Any], key: str) -> str:
    value = mark[key]
    if not isinstance(value, str) or not value.strip():
        raise _bad(n, key, "a non-empty string")
    return value


def _iso(n: int, seconds: object, key: str) -> str | None:
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise _bad(n, key, "epoch seconds")
    try:
        return datetime.fromtimestamp(seconds, UTC).isoformat()
    except (OverflowError, ValueError, OSError):
        raise _bad(n, key, "epoch seconds within a datetime") from None


def _only(n: int, keys: set[str], allowed: Iterable[str], prefix: str = "") -> None:
    unknown = sorted(keys - set(allowed))
    if unknown:
        raise _bad(n, prefix + unknown[0], "not a field of this line")


def _bad(n: int, key: str, problem: str) -> InvalidInput:
    where = f"line {n}.{key}" if key else f"line {n}"
    return InvalidInput(f"line {n} of the batch stream: {problem}", issues=[Issue(where, problem)])
