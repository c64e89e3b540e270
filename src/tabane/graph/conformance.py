"""The stored graph against a schema: `validate_schema` (a draft, before it is stored) and
`audit_schema` (the stored one) share this one statement, so a dry run and the audit can never
disagree. Nothing is written.

Over the live edges the caller can see (net claims > 0, every perspective), four rules:

- `undeclared_label`: a label in use that the schema does not declare (one row per label, with
  its edge count and one example edge);
- `undeclared_kind`: a concept kind (an object of `kind_label`) the schema does not declare —
  only when it declares kinds at all;
- `subject_kind`, `object_kind`: an edge whose typed end has none of the kinds its label takes
  (an untyped end passes; a label listing no kinds for an end takes any).

One statement, O(live edges of the context); rows ordered by rule, label, subject, object and
paged by offset, with the count of every rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

from tabane.graph.schema import Schema
from tabane.storage.schema import Context

RULES = ("undeclared_label", "undeclared_kind", "subject_kind", "object_kind")


@dataclass(frozen=True)
class Violation:
    rule: str
    label: str
    subject: str | None  # the edge's subject (the example edge for undeclared_label)
    object: str | None  # the edge's object; the undeclared kind for undeclared_kind
    edges: int  # live edges this row stands for
    found: tuple[str, ...]  # the kinds the offending end has
    expected: tuple[str, ...]  # the kinds its label takes
    reason: str


@dataclass(frozen=True)
class Conformance:
    context: str
    version: int  # the stored schema checked (audit_schema), or the draft's base version
    draft: bool  # validate_schema: a document not stored
    counts: dict[str, int]  # rows per rule, all pages
    violations: list[Violation]
    total: int
    cursor: int
    next_cursor: int | None
    limit: int


_VIOLATIONS = """
WITH live AS (
  SELECT subject, label, object, sum(weight) AS w FROM associations
  WHERE context_id = :ctx GROUP BY subject, label, object HAVING sum(claims) > 0
), kinds AS (
  SELECT subject AS concept, array_agg(DISTINCT object ORDER BY object) AS kinds FROM live
  WHERE label = :kind_label AND w > 0 GROUP BY subject
), decl AS (
  SELECT * FROM jsonb_to_recordset(CAST(:decl AS jsonb))
    AS d(label text, subject_kinds text[], object_kinds text[])
), v AS (
  SELECT 1 AS ord, 'undeclared_label' AS rule, l.label, min(l.subject) AS subject,
         NULL::text AS object, count(*) AS edges, NULL::text[] AS found, NULL::text[] AS expected
    FROM live l
    WHERE l.label <> :kind_label AND NOT EXISTS (SELECT 1 FROM decl d WHERE d.label = l.label)
    GROUP BY l.label
  UNION ALL
  SELECT 2, 'undeclared_kind', :kind_label, NULL, l.object, count(*), NULL, NULL FROM live l
    WHERE :check_kinds AND l.label = :kind_label AND l.w > 0
      AND NOT (l.object = ANY(CAST(:kinds AS text[])))
    GROUP BY l.object
  UNION ALL
  SELECT 3, 'subject_kind', l.label, l.subject, l.object, 1, k.kinds, d.subject_kinds
    FROM live l JOIN decl d ON d.label = l.label JOIN kinds k ON k.concept = l.subject
    WHERE cardinality(d.subject_kinds) > 0 AND NOT (k.kinds && d.subject_kinds)
  UNION ALL
  SELECT 4, 'object_kind', l.label, l.subject, l.object, 1, k.kinds, d.object_kinds
    FROM live l JOIN decl d ON d.label = l.label JOIN kinds k ON k.concept = l.object
    WHERE cardinality(d.object_kinds) > 0 AND NOT (k.kinds && d.object_kinds)
)
"""


def _reason(rule: str, r: dict[str, object], schema: Schema) -> str:
    if rule == "undeclared_label":
        return (
            f"label {r['label']!r} is used by {r['edges']} live edge(s) and not declared:"
            " declare it, or alias it to a declared label"
        )
    if rule == "undeclared_kind":
        return (
            f"{r['edges']} concept(s) have kind {r['object']!r} (via {schema.kind_label!r}),"
            " which the schema does not declare"
        )
    end = "subject" if rule == "subject_kind" else "object"
    found, expected = r["found"] or [], r["expected"] or []
    return f"the {end} {r[end]!r} is {found}; label {r['label']!r} takes {expected} there"


def check(
    session: Session, ctx: Context, schema: Schema, *, draft: bool, limit: int, cursor: int
) -> Conformance:
    decl = [
        {
            "label": d.name,
            "subject_kinds": list(d.subject_kinds),
            "object_kinds": list(d.object_kinds),
        }
        for d in schema.labels
    ]
    params = {
        "ctx": ctx.id,
        "kind_label": schema.kind_label,
        "decl": json.dumps(decl),
        "check_kinds": bool(schema.kinds),
        "kinds": sorted(schema.kind_names),
    }
    counts = {rule: 0 for rule in RULES}
    for rule, n in session.execute(
        text(_VIOLATIONS + "SELECT rule, count(*) FROM v GROUP BY rule"), params
    ):
        counts[rule] = int(n)
    page = session.execute(
        text(
            _VIOLATIONS + "SELECT * FROM v ORDER BY ord, label, subject NULLS FIRST,"
            " object NULLS FIRST LIMIT :limit OFFSET :offset"
        ),
        {**params, "limit": limit, "offset": cursor},
    ).mappings()
    violations = [
        Violation(
            rule=r["rule"],
            label=r["label"],
            subject=r["subject"],
            object=r["object"],
            edges=int(r["edges"]),
            found=tuple(r["found"] or ()),
            expected=tuple(r["expected"] or ()),
            reason=_reason(r["rule"], dict(r), schema),
        )
        for r in page
    ]
    total = sum(counts.values())
    after = cursor + len(violations)
    return Conformance(
        context=ctx.name,
        version=schema.version,
        draft=draft,
        counts=counts,
        violations=violations,
        total=total,
        cursor=cursor,
        next_cursor=after if after < total else None,
        limit=limit,
    )
