"""A context's archive (records.py) as Taguru's batch stream (decision 0027): one batch per
source, by source id, the first carrying the context's create block, the last the alias
table. A batch is its source's whole truth: the passage (its paragraphs joined by blank lines,
with the date, tags and `stored_at` in epoch seconds), a line per section start, locator and
question, and an association line per live claim the source attests (with its paragraph).

What Taguru's batch cannot carry is left out: closed claims and their history, notes and
claims of another perspective than the world's, scopes, titles and formats. A live claim
without a source (or whose source is not live) rides the reserved batch `export:unsourced`,
as Taguru writes it. Numbered locators become `{kind, value: "start" | "start-end"}`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

BATCH = 1
UNSOURCED = "export:unsourced"


def batches(lines: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Taguru's batch lines from an archive's lines (objects, in the archive's order)."""
    context: dict[str, Any] = {}
    sources: dict[str, dict[str, Any]] = {}
    claims: dict[str, list[dict[str, Any]]] = {}
    aliases: list[dict[str, Any]] = []
    for line in lines:
        if "tabane_archive" in line:
            context = line["context"]
        elif "source" in line:
            sources[line["source"]["source_id"]] = line["source"]
        elif "claim" in line:
            c = line["claim"]
            if "subject" in c and "closed_at" not in c and c.get("kind", "world") == "world":
                owner = c.get("source") if c.get("source") in sources else UNSOURCED
                claims.setdefault(owner, []).append(c)
        elif "alias" in line:
            aliases.append(line["alias"])
    order = sorted(sources) + ([UNSOURCED] if UNSOURCED in claims else [])
    create = {k: context[k] for k in ("description", "dice_floor", "semantic_floor")}
    for i, name in enumerate(order or [UNSOURCED]):
        header: dict[str, Any] = {"taguru_batch": BATCH, "context": context["name"], "source": name}
        if i == 0:
            header["create"] = create
        yield header
        if name in sources:
            yield from _passage(sources[name])
        for c in claims.get(name, []):
            yield _association(c)
        if i == len(order or [UNSOURCED]) - 1:
            for a in aliases:
                yield {"alias": a["name"], "canonical": a["alias_of"], "kind": a["kind"]}


def _passage(source: dict[str, Any]) -> Iterator[dict[str, Any]]:
    paragraphs = source["paragraphs"]
    passage: dict[str, Any] = {"passage": "\n\n".join(p["text"] for p in paragraphs)}
    for key in ("date", "stored_at"):
        if source.get(key):
            passage[key] = _epoch(source[key])
    if source.get("tags"):
        passage["tags"] = source["tags"]
    yield passage
    heading: list[str] = []
    for i, p in enumerate(paragraphs):
        if p.get("section", []) != heading and p.get("section"):
            yield {"paragraph": i, "section": " / ".join(p["section"])}
        heading = p.get("section", [])
        if p.get("locator"):
            yield {"paragraph": i, "locator": _locator(p["locator"])}
        for q in p.get("questions", []):
            yield {"paragraph": i, "question": q}


def _association(claim: dict[str, Any]) -> dict[str, Any]:
    out = {k: claim[k] for k in ("subject", "label", "object", "weight")}
    if "paragraph" in claim and "source" in claim:
        out["paragraph"] = claim["paragraph"]
    return out


def _locator(locator: dict[str, Any]) -> dict[str, str]:
    if "value" in locator:
        return {"kind": locator["kind"], "value": str(locator["value"])}
    start, end = locator.get("start"), locator.get("end")
    value = str(start) if end is None or end == start else f"{start}-{end}"
    return {"kind": locator["kind"], "value": value}


def _epoch(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp())
