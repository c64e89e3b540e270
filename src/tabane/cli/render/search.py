"""The reads for a person: search hits, catalog entries and a recall's bundle."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tabane.cli.common import shown
from tabane.cli.render import renders, snippet, table, text
from tabane.recall.result import RecallResult, RecallTrace
from tabane.recall.verify import Verification
from tabane.search.catalog.catalog import CatalogResult
from tabane.search.search import Hit, SearchResult


@renders(SearchResult)
def search_result(result: SearchResult) -> list[RenderableType]:
    """Each hit as `rank. title › section` over its snippet, its source and lanes; then what
    the plan did (lanes that did not run, and why) and how to get the next page."""
    out: list[RenderableType] = []
    if not result.hits:
        out.append(Text("no hits"))
    for hit in result.hits:
        out.append(_hit(hit))
    out.extend(Text(line, style="dim") for line in search_footer(result))
    return out


def _hit(hit: Hit) -> Text:
    section = hit.section[1:] if hit.section[:1] == (hit.title,) else hit.section  # its H1
    where = " › ".join(shown(s) for s in section)
    head = Text(f"{hit.rank:>2}. ", style="bold")
    head.append(shown(hit.title) or hit.source_id, style="bold")
    if where:
        head.append(f" › {where}")
    lanes = " ".join(f"{name}#{lr.rank}" for name, lr in hit.lanes.items())
    body = snippet(hit.text) if hit.kind != "code" else snippet(hit.text, 100)
    head.append(f"\n    {shown(body)}\n")
    head.append(
        f"    {shown(hit.context)}:{shown(hit.source_id)} ¶{hit.paragraph}  "
        f"lanes {lanes or '-'}  score {hit.score:.3f}",
        style="dim",
    )
    return head


def search_footer(result: SearchResult) -> list[str]:
    lines = []
    for ctx in result.plan.contexts:
        ran = [f"{name} {lane.hits}" for name, lane in ctx.lanes.items() if lane.ran]
        off = [f"{name} ({lane.reason})" for name, lane in ctx.lanes.items() if not lane.ran]
        line = f"{shown(ctx.context)}: lanes {', '.join(ran) or 'none'}"
        line += f"; did not run: {', '.join(off)}" if off else ""
        if ctx.pending_embeddings:
            line += f"; {ctx.pending_embeddings} paragraph(s) not embedded yet"
        lines.append(line)
    lines.extend(shown(note) for note in result.plan.notes)
    if result.next_after:
        lines.append(f"more: --after {result.next_after}")
    return lines


@renders(CatalogResult)
def catalog_result(result: CatalogResult) -> list[RenderableType] | Text:
    if not result.hits:
        return Text("no sources")
    out = Table(box=None, header_style="bold", pad_edge=False)
    for name in ("#", "title", "source", "area", "state", "date", "snippet"):
        out.add_column(name, overflow="fold")
    for i, hit in enumerate(result.hits, 1):
        date = hit.date.date().isoformat() if hit.date else None
        out.add_row(
            str(i),
            text(hit.title),
            text(f"{hit.context}:{hit.source_id}"),
            text(hit.area),
            text(hit.state),
            text(date),
            text(snippet(hit.snippet, 60)),
        )
    return [out]


@renders(RecallResult)
def recall_result(result: RecallResult) -> list[RenderableType]:
    """The bundle as the model reads it (citations included), then one line of what the plan
    did: which lanes ran, the budget used, the time taken."""
    return [shown(result.rendered), "", Text(recall_footer(result.trace), "dim")]


def recall_footer(t: RecallTrace) -> str:
    """`— plan maximal; contexts notes; lanes bm25 24, title 0; off: vector, claims
    (no_embedder), turns (no_session); 164 of 1200 tokens; 568 ms; trace 1`."""
    ran = [f"{name} {lane.hits}" for name, lane in t.lanes.items() if lane.ran]
    off: dict[str, list[str]] = {}
    for name, lane in t.lanes.items():
        if not lane.ran:
            off.setdefault(lane.reason or "off", []).append(name)
    parts = [
        f"plan {t.plan}",
        f"contexts {', '.join(shown(c) for c in t.contexts) or '-'}",
        f"lanes {', '.join(ran) or 'none'}",
    ]
    if off:
        parts.append("off: " + ", ".join(f"{', '.join(n)} ({why})" for why, n in off.items()))
    parts.append(f"{t.used_tokens} of {t.budget_tokens} tokens")
    if t.gate:
        parts.append(f"gate: {t.gate}")
    total = t.timings_ms.get("total")
    if total is not None:
        parts.append(f"{total:.0f} ms")
    if t.id is not None:
        parts.append(f"trace {t.id}")
    return "— " + "; ".join(parts)


@renders(Verification)
def verification(result: Verification) -> list[RenderableType]:
    """The answer's citations, then its quotes, each with its verdict."""
    out: list[RenderableType] = [Text(f"recall {result.recall_id}")]
    cites = [{"citation": c.text, "verdict": c.verdict} for c in result.citations]
    out.append(table(cites, title="citations") if cites else Text("no citations"))
    quotes = [
        {"quote": q.text, "against": f"{q.source}, paragraph {q.paragraph}" if q.source else
         "served", "verdict": q.verdict, "overlap": f"{q.overlap:.2f}"}
        for q in result.quotes
    ]  # fmt: skip
    out.append(table(quotes, title="quotes") if quotes else Text("no quotes"))
    return out
