"""What a retriever hands a framework: one `Passage` per search hit or recall item, its text, its
score and the citation as flat metadata — the same from a local store and from `tabane serve`.

Both sides start from the JSON shape of the HTTP API (`SearchOut.hits`, `RecallOut.items` with
the trace's candidates): a local result is turned into that shape first (`plain`), so one
mapping serves both and the two cannot drift apart.

Search hit metadata: `context`, `source`, `title`, `section` (the heading path), `paragraph`,
`locator` (lines, page or anchor), `format` (`text` or `code`), `kind` (`paragraph`), `rank`,
`context_rank`, `lanes` ({lane: {rank, score, share}}), `score`, `citation` (one line, as the
recall bundle writes it).

Recall item metadata: the same citation fields (absent ones are None), `kind` (paragraph,
claim, turn, …), `key`, `provenance`, `claim`, `session`, `turn`, `author`, `when` (ISO 8601),
`scopes`, `position` (1-based, the bundle's order), `lanes` ({lane: {rank, score}}), `score`
(the fused score), `recall_id`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tabane.recall.cite import cite
from tabane.recall.result import Citation, Evidence, Stance


@dataclass(frozen=True)
class Passage:
    """One retrieved text with its score and its citation."""

    text: str
    score: float | None
    metadata: dict[str, Any]


def plain(value: Any) -> Any:
    """A result's dataclasses as the JSON the HTTP API answers: dicts, lists, ISO dates."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def search_passages(hits: Sequence[Mapping[str, Any]]) -> list[Passage]:
    """A search response's hits, best first."""
    out = []
    for hit in hits:
        citation = {
            "context": hit["context"],
            "source": hit["source_id"],
            "paragraph": hit["paragraph"],
            "section": list(hit["section"]),
            "locator": hit["locator"],
            "kind": hit["kind"],
            "title": hit["title"],
        }
        item = _evidence("paragraph", hit["text"], citation, None, None, None)
        meta = {
            **_citation_fields(citation),
            "kind": "paragraph",
            "rank": hit["rank"],
            "context_rank": hit["context_rank"],
            "lanes": {name: dict(lane) for name, lane in hit["lanes"].items()},
            "score": hit["score"],
            "citation": cite(item),
        }
        out.append(Passage(hit["text"], hit["score"], meta))
    return out


def recall_passages(body: Mapping[str, Any]) -> list[Passage]:
    """A recall response's items in the bundle's order, each with its lanes and fused score
    from the trace (`body["trace"]["candidates"]`, matched by key)."""
    trace = body.get("trace") or {}
    candidates = {c["key"]: c for c in trace.get("candidates", [])}
    out = []
    for position, item in enumerate(body["items"], start=1):
        found = candidates.get(item["key"], {})
        lanes = {
            lane["lane"]: {"rank": lane["rank"], "score": lane["score"]}
            for lane in found.get("lanes", [])
        }
        score = found.get("fused")
        when = _when(item.get("when"))
        evidence = _evidence(
            item["kind"],
            item["text"],
            item["citation"],
            item.get("author"),
            when,
            item.get("stance"),
        )
        meta = {
            **_citation_fields(item["citation"]),
            "kind": item["kind"],
            "key": item["key"],
            "provenance": item["provenance"],
            "claim": item["citation"].get("claim"),
            "session": item["citation"].get("session"),
            "turn": item["citation"].get("turn"),
            "author": item.get("author"),
            "when": when.isoformat() if when else None,
            "scopes": [s["name"] for s in item.get("scopes", [])],
            "position": position,
            "lanes": lanes,
            "score": score,
            "citation": cite(evidence),
            "recall_id": body.get("recall_id"),
        }
        out.append(Passage(item["text"], score, meta))
    return out


def _citation_fields(c: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "context": c.get("context"),
        "source": c.get("source"),
        "title": c.get("title"),
        "section": list(c.get("section") or ()),
        "paragraph": c.get("paragraph"),
        "locator": _locator(c.get("locator")),
        "format": c.get("kind"),
    }


def _locator(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Lines, a page or an anchor; the HTTP schema's unset fields (null) left out."""
    return None if value is None else {k: v for k, v in value.items() if v is not None}


def _when(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _evidence(
    kind: Any,
    text: str,
    citation: Mapping[str, Any],
    author: str | None,
    when: datetime | None,
    stance: Mapping[str, Any] | None,
) -> Evidence:
    """Enough of an evidence item for `recall.cite.cite`, the one home of a citation's line."""
    fields = {f.name for f in dataclasses.fields(Citation)}
    known = {k: v for k, v in citation.items() if k in fields}
    known["section"] = tuple(known.get("section") or ())
    return Evidence(
        key="",
        kind=kind,
        text=text,
        provenance="source excerpt",
        citation=Citation(**known),
        scopes=(),
        author=author,
        when=when,
        stance=Stance(**stance) if stance else None,
    )
