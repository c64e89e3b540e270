"""The graph's reads for a person: resolve's two tiers, a page of associations, a walk's
concepts, paths between concepts, and one cited paragraph."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from tabane.cli.common import shown
from tabane.cli.render import renders, table, text
from tabane.graph.edges import Edge
from tabane.graph.query.pattern import QueryResult
from tabane.graph.resolve.resolver import Candidate, Resolution
from tabane.graph.walk.paths import PathsResult
from tabane.graph.walk.walk import ActivationResult
from tabane.sources.read import Citation


@renders(Resolution)
def resolution(result: Resolution) -> list[RenderableType]:
    """Each tier as its own table (their scores are not comparable), then why the semantic tier
    did or did not run."""
    out: list[RenderableType] = []
    for tier, found in (("lexical", result.candidates), ("semantic", result.semantic)):
        if found:
            out.append(table([_candidate(c) for c in found], title=f"{tier} tier"))
    if not out:
        out.append(Text(f"nothing stored is spelled like {shown(result.cue)!r}"))
    plan = result.semantic_plan
    said = "ran" if plan.ran else f"did not run ({plan.reason})"
    floor = f"{plan.floor.value} ({plan.floor.source})" if plan.floor.value is not None else "-"
    more = f"; {result.total} lexical in all" if result.total > len(result.candidates) else ""
    out.append(Text(f"semantic tier {said}; floor {floor}{more}", style="dim"))
    return out


def _candidate(c: Candidate) -> dict[str, object]:
    return {
        "#": c.rank,
        "concept": c.name,
        "match": c.kind,
        "score": c.score,
        "via": c.via,
        "gloss": c.gloss,
        "warnings": c.warnings,
    }


def _edge(e: Edge) -> dict[str, object]:
    return {
        "subject": e.subject,
        "label": e.label,
        "object": e.object,
        "weight": e.weight,
        "claims": e.claims,
        "perspective": e.perspective,
        "context": e.context,
    }


@renders(QueryResult)
def query_result(result: QueryResult) -> list[RenderableType]:
    if not result.edges:
        return [Text("no associations")]
    out: list[RenderableType] = [table([_edge(e) for e in result.edges])]
    footer = f"{len(result.edges)} of {result.total}"
    if result.next:
        footer += f"; more: --after {result.next}"
    out.append(Text(footer, style="dim"))
    return out


@renders(ActivationResult)
def activation(result: ActivationResult) -> list[RenderableType]:
    if not result.concepts:
        return [Text("nothing reached")]
    rows = [
        {
            "concept": a.concept,
            "activation": a.activation,
            "hops": a.depth,
            "via": " → ".join(a.via),
        }
        for a in result.concepts
    ]
    return [table(rows), Text(f"{result.expanded} concept(s) expanded", style="dim")]


@renders(PathsResult)
def paths(result: PathsResult) -> list[RenderableType]:
    out: list[RenderableType] = []
    for path in result.paths:
        line = Text(shown(path.concepts[0]))
        for edge, concept in zip(path.edges, path.concepts[1:], strict=True):
            line.append(f" —{shown(edge.label)} ({text(edge.weight)})→ ")
            line.append(shown(concept))
        out.append(line)
    if not out:
        out.append(Text("no path"))
    if result.capped or result.truncated:
        out.append(Text("more paths may exist (budget or limit reached)", style="dim"))
    return out


@renders(Citation)
def citation(c: Citation) -> Text:
    where = " › ".join(shown(s) for s in (c.title, *c.section) if s)
    out = Text(where or c.source_id, style="bold")
    out.append(f"\n{shown(c.text)}\n")
    out.append(f"{shown(c.source_id)} ¶{c.paragraph}", style="dim")
    return out
