"""A context's schema and the three audits for a person: the declared labels and kinds, the
schema's violations, the consolidation candidates and the drift of a window — each section a
table, then what more pages hold."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from tabane.cli.render import renders, table
from tabane.graph.conformance import Conformance
from tabane.graph.consolidation import Consolidation
from tabane.graph.drift import Drift
from tabane.graph.schema import Schema


@renders(Schema)
def schema(s: Schema) -> list[RenderableType]:
    if not s.version:
        return [Text(f"{s.context} declares no schema (version 0)")]
    out: list[RenderableType] = [
        Text(
            f"{s.context}: schema version {s.version}, strict {s.strict}, kinds by {s.kind_label!r}"
        )
    ]
    if s.labels:
        rows = [
            {
                "label": d.name,
                "subject kinds": d.subject_kinds,
                "object kinds": d.object_kinds,
                "symmetric": d.symmetric,
                "description": d.description,
            }
            for d in s.labels
        ]
        out.append(table(rows, title="labels"))
    if s.kinds:
        out.append(table([{"kind": k.name, "description": k.description} for k in s.kinds]))
    return out


def _more(total: int, shown_: int, next_cursor: int | None) -> Text:
    more = f"; --cursor {next_cursor} for more" if next_cursor is not None else ""
    return Text(f"{shown_} of {total}{more}", style="dim")


@renders(Conformance)
def conformance(c: Conformance) -> list[RenderableType]:
    what = "draft schema" if c.draft else f"schema version {c.version}"
    counts = ", ".join(f"{k} {n}" for k, n in c.counts.items())
    out: list[RenderableType] = [Text(f"{c.context} against its {what}: {counts}")]
    if c.violations:
        rows = [
            {
                "rule": v.rule,
                "label": v.label,
                "subject": v.subject,
                "object": v.object,
                "reason": v.reason,
            }
            for v in c.violations
        ]
        out.append(table(rows))
    out.append(_more(c.total, len(c.violations), c.next_cursor))
    return out


@renders(Consolidation)
def consolidation(c: Consolidation) -> list[RenderableType]:
    out: list[RenderableType] = []
    parts = (
        (
            "twins",
            c.twins,
            lambda m: {
                "a": m.a,
                "b": m.b,
                "action": m.action,
                "overlap": m.overlap,
                "reason": m.reason,
            },
        ),
        (
            "duplicates",
            c.duplicates,
            lambda d: {
                "edge": f"{d.subject} —{d.label}→ {d.object}",
                "source": d.source,
                "claims": d.claims,
            },
        ),
        ("aliases", c.aliases, lambda a: {"rule": a.rule, "alias": a.alias, "reason": a.reason}),
    )
    for name, items, row in parts:
        page = c.sections.get(name)
        if page is None:
            continue
        if items:
            out.append(table([row(i) for i in items], title=name))  # type: ignore[no-untyped-call]
        out.append(Text(f"{name}: ", style="dim") + _more(page.total, len(items), page.next_cursor))
    if c.semantic_reason:
        out.append(Text(f"semantic twins not looked for ({c.semantic_reason})", style="dim"))
    return out


@renders(Drift)
def drift(d: Drift) -> list[RenderableType]:
    window = f"{d.since:%Y-%m-%d %H:%M} – {d.until:%Y-%m-%d %H:%M}"
    out: list[RenderableType] = [Text(f"{d.context}, {window}")]
    parts = (
        ("labels", d.labels, lambda x: {"label": x.label, "claims": x.claims, "reason": x.reason}),
        (
            "weights",
            d.weights,
            lambda x: {
                "edge": f"{x.subject} —{x.label}→ {x.object}",
                "change": x.change,
                "weight": x.weight,
            },
        ),
        (
            "retracted",
            d.retracted,
            lambda x: {
                "claim": x.claim,
                "edge": f"{x.subject} —{x.label}→ {x.object}",
                "source": x.source,
                "at": x.closed_at,
            },
        ),
    )
    for name, items, row in parts:
        page = d.pages.get(name)
        if page is None:
            continue
        if items:
            out.append(table([row(i) for i in items], title=name))  # type: ignore[no-untyped-call]
        out.append(Text(f"{name}: ", style="dim") + _more(page.total, len(items), page.next_cursor))
    return out
