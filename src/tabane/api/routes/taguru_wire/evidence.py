"""Taguru's evidence assembly over tabane's retrieve (decision 0027): the origins resolved in
the context, one recall from them, its served items as Taguru's package."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.recall.package import PackedItem, Retrieval
from tabane.wire.taguru import Ok
from tabane.wire.taguru.evidence import EvidenceItem, EvidenceOut, TaguruEvidenceIn

router = APIRouter()


@router.post("/contexts/{context}/evidence", response_model_exclude_none=True)
def evidence(
    context: str, body: TaguruEvidenceIn, svc: Svc, user: User, started: Started
) -> Ok[EvidenceOut]:
    """One package of evidence for the origins: resolve each, one recall from them (recall
    already fused graph and passage lanes, ranked once), its items in recall's order until
    `max_items` or `max_bytes` is reached (`max_tokens` is recall's own budget); the rest is
    `omitted`. Fields Taguru's request has and recall does not use are named in
    `plan.unused`."""
    found = svc.retrieve(
        user, context, body.origin_list(), body.to_request(), resolve_limit=body.resolve_limit
    )
    return Ok[EvidenceOut].model_validate(ok(package(found, body), started))


def package(found: Retrieval, body: TaguruEvidenceIn) -> EvidenceOut:
    kinds = {i.key: k for k, part in _parts(found) for i in part}
    ranked = sorted((i for _, part in _parts(found) for i in part), key=lambda i: i.rank)
    items: list[EvidenceItem] = []
    omitted: list[dict[str, Any]] = []
    used = 0
    limits = body.budget
    for item in ranked:
        size = len(item.text.encode())
        if len(items) >= limits.max_items or used + size > limits.max_bytes:
            omitted.append({"candidate_id": item.key, "reason": "over_budget"})
            continue
        used += size
        items.append(_item(item, kinds[item.key], size))
    by_reason = dict(found.cut)
    if omitted:
        by_reason["over_budget"] = by_reason.get("over_budget", 0) + len(omitted)
    lanes = {name: vars(report) for name, report in found.lanes.items()}
    return EvidenceOut(
        items=items,
        citations=_citations(ranked, items),
        budget={
            "limits": limits.model_dump(),
            "items_used": len(items),
            "bytes_used": used,
            "tokens_used": sum(i.estimated_tokens for i in items),
        },
        omitted=omitted,
        omitted_total=sum(by_reason.values()),
        omitted_by_reason=by_reason,
        plan={
            "anchors": [vars(a) for a in found.anchors],
            "lanes": lanes,
            "reranker": {"configured": False, "ran": False, "reason": "recall's own"},
            "unused": body.unused(),
            "recall_id": found.recall_id,
        },
    )


def _parts(found: Retrieval) -> list[tuple[str, tuple[PackedItem, ...]]]:
    return [("association", found.associations), ("passage", found.passages), ("", found.other)]


def _item(item: PackedItem, kind: str, size: int) -> EvidenceItem:
    c = item.citation
    refs = [] if c.source is None else [{"source": c.source, "paragraph": c.paragraph}]
    shape: dict[str, Any] = {"text": item.text}
    if kind == "association" and item.fact is not None:
        f = item.fact
        shape = {"subject": f.subject, "label": f.label, "object": f.object, "text": item.text}
    elif kind == "passage":
        shape = {"source": c.source, "paragraph": c.paragraph, "text": item.text}
    return EvidenceItem.model_validate(
        {
            "candidate_id": item.key,
            "kind": kind or item.kind,
            "fused_rank": item.rank,
            "lane_ranks": [{"lane": lr.lane, "rank": lr.rank} for lr in item.lanes],
            "citation_refs": refs,
            "bytes": size,
            "estimated_tokens": item.tokens,
            (kind or "other"): shape if kind else {**shape, "kind": item.kind},
        }
    )


def _citations(ranked: list[PackedItem], kept: list[EvidenceItem]) -> list[dict[str, Any]]:
    """One per paragraph the kept items cite; its text when a kept passage is that paragraph."""
    keys = {i.candidate_id for i in kept}
    out: dict[tuple[str, int | None], dict[str, Any]] = {}
    for item in ranked:
        c = item.citation
        if item.key not in keys or c.source is None:
            continue
        at = (c.source, c.paragraph)
        text = item.text if item.kind == "paragraph" else None
        cited: dict[str, Any] = {"text": text, "source": c.source}
        cited["section"] = " / ".join(c.section) or None
        cited["locator"] = c.locator
        if at not in out or (text and not out[at]["citation"]["text"]):
            out[at] = {"source": c.source, "paragraph": c.paragraph, "citation": cited}
    return list(out.values())
