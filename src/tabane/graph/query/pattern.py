"""`query`: the net edges matching a pattern, in one or many contexts, strongest first.

Each position (subject, label, object) is a spelling or an OR-list of spellings; `any` is
Taguru's cue recall: the edges touching a cue as subject OR object (a label is not a concept, so
`any` never matches a label — put label cues in `label`). All given positions must hold. Cue
spellings go through the context's aliases first (aliases are entry-only; results always carry
canonical spellings). Weights drop, edges stay: an edge whose claims were all retracted (or
superseded) is returned at weight 0 with its closed claims as its history, after every live edge
(`include_retracted=False` leaves it out). With `since`/`until` only edges with a claim valid in
the window are returned.

Truncation keeps the strongest |weight|; the order is |weight| descending, then subject, label,
object, perspective and context, so pages are stable. `after` is an opaque keyset cursor: the
next page starts strictly after the last edge of the previous one (no duplicates, no gaps while
the graph does not change). Across contexts, edges merge on |weight| and carry their context.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select, true, tuple_
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue, NoConcept
from tabane.graph import edges as edges_mod
from tabane.graph import vocabulary
from tabane.graph.edges import Edge, Window
from tabane.graph.vocabulary import Kind
from tabane.storage.schema import Context, VocabEntry

MAX_LIMIT = 1000
DEFAULT_LIMIT = 50
ATTRIBUTIONS_PER_EDGE = 20


# -- cues -----------------------------------------------------------------------------------------


def cue_list(value: object, path: str, issues: list[Issue]) -> tuple[str, ...] | None:
    """A spelling or a non-empty list of spellings, deduplicated in order; None when absent."""
    if value is None:
        return None
    if isinstance(value, str):
        name = vocabulary.check_spelling(value, path, issues)
        return None if name is None else (name,)
    if not isinstance(value, (list, tuple)):
        issues.append(Issue(path, "not a string or a list of strings"))
        return None
    if not value:
        issues.append(Issue(path, "an empty list matches nothing; omit it instead"))
        return None
    out: list[str] = []
    for i, item in enumerate(value):
        name = vocabulary.check_spelling(item, f"{path}[{i}]", issues)
        if name is not None and name not in out:
            out.append(name)
    return tuple(out)


def canonical_of(
    session: Session, context_id: int, kind: Kind, names: Sequence[str]
) -> tuple[tuple[str, ...], dict[str, str]]:
    """`names` mapped through the context's aliases (sorted, deduplicated), and the mapping used."""
    mapping = vocabulary.canonical(session, context_id, kind, names)
    return tuple(sorted({mapping.get(n, n) for n in names})), mapping


def require_concepts(
    session: Session, ctx: Context, names: Sequence[str], paths: Sequence[str]
) -> tuple[str, ...]:
    """The canonical spelling of each of `names` (in order), each a concept of the context the
    caller can see;
    `no_concept` names the first unknown one with its path (`origins[1]`)."""
    mapping = vocabulary.canonical(session, ctx.id, "concept", names)
    wanted = [mapping.get(n, n) for n in names]
    known = set(
        session.scalars(
            select(VocabEntry.name).where(
                VocabEntry.context_id == ctx.id,
                VocabEntry.kind == "concept",
                VocabEntry.name.in_(set(wanted)),
                VocabEntry.alias_of.is_(None),
            )
        )
    )
    issues = [
        Issue(path, f"{n!r} is not a concept of context {ctx.name!r}; resolve the cue first")
        for path, n in zip(paths, names, strict=True)
        if mapping.get(n, n) not in known
    ]
    if issues:
        missing = [n for n in names if mapping.get(n, n) not in known]
        raise NoConcept(f"no concept {missing[0]!r} in context {ctx.name!r}", issues=issues)
    return tuple(wanted)


def cues(value: str | Sequence[str], path: str) -> tuple[str, ...]:
    """A spelling or a list of spellings (`cue_list`), or `invalid_input` naming what is wrong."""
    issues: list[Issue] = []
    names = cue_list(value, path, issues)
    raise_if(issues, path)
    return names or ()


def concepts_named(
    session: Session, ctx: Context, value: str | Sequence[str], path: str
) -> tuple[str, ...]:
    """The concepts `value` names (a walk's origins or targets): canonical, deduplicated in
    order, each one the caller can see (`require_concepts`)."""
    names = cues(value, path)
    paths = [path] if isinstance(value, str) else [f"{path}[{i}]" for i in range(len(names))]
    return tuple(dict.fromkeys(require_concepts(session, ctx, names, paths)))


def labels_named(
    session: Session, ctx: Context, labels: Sequence[str] | None
) -> tuple[str, ...] | None:
    """The canonical labels a walk may follow (None: every label)."""
    if labels is None:
        return None
    names, _ = canonical_of(session, ctx.id, "label", cues(labels, "labels"))
    return names


def check_int(value: object, path: str, lo: int, hi: int, issues: list[Issue]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        issues.append(Issue(path, "not an integer"))
        return lo
    if not lo <= value <= hi:
        issues.append(Issue(path, f"{value} not in [{lo}, {hi}]"))
    return value


def raise_if(issues: list[Issue], what: str) -> None:
    if issues:
        raise InvalidInput(f"invalid {what}", issues=issues)


# -- cursors --------------------------------------------------------------------------------------


def encode_cursor(kind: str, values: Sequence[Any]) -> str:
    raw = json.dumps([kind, *values], ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(after: str | None, kind: str, shape: Sequence[type]) -> list[Any] | None:
    """The values of a cursor this read returned; `invalid_input` at `after` otherwise."""
    if after is None:
        return None
    try:
        raw = json.loads(base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)).decode())
        ok = (
            isinstance(raw, list)
            and raw[:1] == [kind]
            and len(raw) == len(shape) + 1
            and all(
                isinstance(v, t) and not isinstance(v, bool)  # JSON true is no int here
                for v, t in zip(raw[1:], shape, strict=True)
            )
        )
    except (ValueError, UnicodeDecodeError):
        ok = False
    if not ok:
        raise InvalidInput(
            "after is not a cursor this read returned", issues=[Issue("after", "malformed")]
        )
    return list(raw[1:])


# -- query ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EdgeQuery:
    """A validated query; build it with `EdgeQuery.build` so every problem is reported."""

    subject: tuple[str, ...] | None = None
    label: tuple[str, ...] | None = None
    object: tuple[str, ...] | None = None
    any: tuple[str, ...] | None = None
    perspective: str | None = None  # '' is the shared world partition; None: every partition
    window: Window | None = None
    limit: int = DEFAULT_LIMIT
    after: str | None = None
    include_retracted: bool = True  # edges at weight 0 whose claims all closed

    @classmethod
    def build(
        cls,
        *,
        subject: Any = None,
        label: Any = None,
        object: Any = None,
        any: Any = None,
        perspective: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = DEFAULT_LIMIT,
        after: str | None = None,
        include_retracted: bool = True,
    ) -> EdgeQuery:
        issues: list[Issue] = []
        cues = {
            name: cue_list(value, name, issues)
            for name, value in (("subject", subject), ("label", label), ("object", object))
        }
        touching = cue_list(any, "any", issues)
        check_int(limit, "limit", 1, MAX_LIMIT, issues)
        if not isinstance(include_retracted, bool):
            issues.append(Issue("include_retracted", "not a boolean"))
        if perspective is not None and not isinstance(perspective, str):
            issues.append(Issue("perspective", "not a string"))
        if since is not None and until is not None and until <= since:
            issues.append(Issue("until", "must be after since"))
        raise_if(issues, "query")
        window = None if since is None and until is None else Window(since, until)
        return cls(
            cues["subject"],
            cues["label"],
            cues["object"],
            touching,
            perspective,
            window,
            limit,
            after,
            include_retracted,
        )


@dataclass(frozen=True)
class QueryResult:
    """One page of edges (strongest first), how many matched in all, and the next cursor."""

    edges: tuple[Edge, ...]
    total: int
    next: str | None
    contexts: tuple[str, ...]
    aliased: dict[str, str] = field(default_factory=dict)  # cue spelling -> canonical


Cues = tuple[tuple[str, ...] | None, ...]  # subject, label, object, any: canonical


def _canonical_cues(session: Session, ctx: Context, q: EdgeQuery, aliased: dict[str, str]) -> Cues:
    out: list[tuple[str, ...] | None] = []
    for cues, kind in (
        (q.subject, "concept"),
        (q.label, "label"),
        (q.object, "concept"),
        (q.any, "concept"),
    ):
        if cues is None:
            out.append(None)
            continue
        names, mapping = canonical_of(session, ctx.id, kind, cues)  # type: ignore[arg-type]
        aliased.update(mapping)
        out.append(names)
    return tuple(out)


def _where(e: Any, cues: Cues) -> list[Any]:
    subject, label, obj, touching = cues
    conds: list[Any] = []
    for column, names in ((e.c.subject, subject), (e.c.label, label), (e.c.object, obj)):
        if names is not None:
            conds.append(column.in_(names))
    if touching is not None:
        conds.append(or_(e.c.subject.in_(touching), e.c.object.in_(touching)))
    return conds


def query(session: Session, reached: Sequence[Context], q: EdgeQuery) -> QueryResult:
    """The edges of `reached` matching `q`, one page, tagged with their context."""
    names: Mapping[int, str] = {c.id: c.name for c in reached}
    if not reached:
        return QueryResult((), 0, None, ())
    e = edges_mod.net(list(names), q.window)
    aliased: dict[str, str] = {}
    per_context = {c.id: _canonical_cues(session, c, q, aliased) for c in reached}
    if len(set(per_context.values())) == 1:  # the usual case: no alias differs between contexts
        where = and_(true(), *_where(e, next(iter(per_context.values()))))
    else:
        where = or_(
            *(and_(e.c.context_id == cid, *_where(e, cues)) for cid, cues in per_context.items())
        )
    absw = func.abs(e.c.weight)
    base = select(
        e.c.context_id,
        e.c.perspective,
        e.c.subject,
        e.c.label,
        e.c.object,
        e.c.weight,
        e.c.claims,
        absw.label("absw"),
    ).where(where)
    if not q.include_retracted or (q.window is not None and not q.window.open):
        base = base.where(e.c.claims > 0)
    if q.perspective is not None:
        base = base.where(e.c.perspective == q.perspective)
    total = session.scalar(select(func.count()).select_from(base.subquery())) or 0
    page = base
    start = decode_cursor(q.after, "q", (float, str, str, str, str, int))
    if start is not None:
        a, *rest = start
        key = tuple_(e.c.subject, e.c.label, e.c.object, e.c.perspective, e.c.context_id)
        page = page.where(or_(absw < a, and_(absw == a, key > tuple_(*rest))))
    order = (absw.desc(), e.c.subject, e.c.label, e.c.object, e.c.perspective, e.c.context_id)
    rows = session.execute(page.order_by(*order).limit(q.limit + 1)).all()
    more = len(rows) > q.limit
    rows = rows[: q.limit]
    live = [edges_mod.edge_id(r) for r in rows if r.claims > 0]
    closed = [edges_mod.edge_id(r) for r in rows if r.claims == 0]
    attrs = edges_mod.attributions(session, live, q.window, ATTRIBUTIONS_PER_EDGE)
    attrs |= edges_mod.attributions(session, closed, None, ATTRIBUTIONS_PER_EDGE, closed=True)
    found = tuple(edges_mod.to_edge(r, names[r.context_id], attrs) for r in rows)
    nxt = None
    if more and rows:
        last = rows[-1]
        nxt = encode_cursor(
            "q",
            [
                float(last.absw),
                last.subject,
                last.label,
                last.object,
                last.perspective,
                int(last.context_id),
            ],
        )
    return QueryResult(found, int(total), nxt, tuple(c.name for c in reached), aliased)
