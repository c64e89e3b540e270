"""A context's declared schema: the labels its edges may use (with the kinds each end may have,
whether the label is symmetric, what it means) and the kinds of its concepts.

A concept's kinds are not a column: they are the objects of its live, positive edges under the
schema's `kind_label` (`kind` by default — the label the seed's code vocabulary already uses), so
kinds are ordinary, sourced, retractable facts. An untyped concept satisfies every constraint;
a label with no kinds listed for an end accepts any concept there.

Writes are checked only when the context opts in (`strict`): an undeclared label, a kind the
schema does not declare, or a typed end outside its label's kinds is refused with
`schema_violation`, naming the claim and the label. The check sees the batch's own kind claims
beside the stored ones, so a batch that types a concept and uses it validates in any order.
Without a row in `context_schemas` a context has no schema (version 0) and nothing is checked.
The schema's own replacement is guarded by its version: a writer names the version it read, and
a stale one is refused with `schema_version_conflict` instead of clobbering the other writer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue, SchemaConflict, SchemaViolation
from tabane.graph.vocabulary import check_spelling
from tabane.storage.schema import Association, Context, ContextSchema

MAX_LABELS = 1_000  # declared labels of one schema
MAX_KINDS = 1_000  # declared kinds of one schema
MAX_END_KINDS = 50  # kinds listed for one end of one label
MAX_DESCRIPTION = 2_000  # characters of one description
DEFAULT_KIND_LABEL = "kind"


@dataclass(frozen=True)
class LabelDecl:
    name: str
    description: str = ""
    subject_kinds: tuple[str, ...] = ()  # empty: any concept may be the subject
    object_kinds: tuple[str, ...] = ()
    symmetric: bool = False  # (a, l, b) says (b, l, a) too: one direction is enough


@dataclass(frozen=True)
class KindDecl:
    name: str
    description: str = ""


@dataclass(frozen=True)
class Schema:
    context: str
    version: int  # 0: no schema declared
    strict: bool
    kind_label: str
    labels: tuple[LabelDecl, ...] = ()
    kinds: tuple[KindDecl, ...] = ()
    updated_at: datetime | None = None

    def label(self, name: str) -> LabelDecl | None:
        return next((d for d in self.labels if d.name == name), None)

    @property
    def kind_names(self) -> frozenset[str]:
        return frozenset(k.name for k in self.kinds)


def empty(context: str) -> Schema:
    return Schema(context=context, version=0, strict=False, kind_label=DEFAULT_KIND_LABEL)


# -- checking a document ------------------------------------------------------------------------


def _description(value: object, path: str, issues: list[Issue]) -> str:
    if not isinstance(value, str):
        issues.append(Issue(path, "not a string"))
        return ""
    if len(value) > MAX_DESCRIPTION:
        issues.append(Issue(path, f"longer than {MAX_DESCRIPTION} characters"))
    return value


def _names(values: Iterable[object], path: str, issues: list[Issue]) -> tuple[str, ...]:
    found: list[str] = []
    for i, value in enumerate(values):
        name = check_spelling(value, f"{path}[{i}]", issues)
        if name is not None and name not in found:
            found.append(name)
    if len(found) > MAX_END_KINDS:
        issues.append(Issue(path, f"more than {MAX_END_KINDS} kinds"))
    return tuple(found)


def checked(draft: Schema) -> Schema:
    """The document with its spellings normalized, or `invalid_input` naming every problem:
    duplicate names, an end naming an undeclared kind, a bound exceeded."""
    issues: list[Issue] = []
    kind_label = check_spelling(draft.kind_label, "kind_label", issues) or DEFAULT_KIND_LABEL
    if len(draft.kinds) > MAX_KINDS:
        issues.append(Issue("kinds", f"more than {MAX_KINDS} kinds"))
    if len(draft.labels) > MAX_LABELS:
        issues.append(Issue("labels", f"more than {MAX_LABELS} labels"))
    kinds: list[KindDecl] = []
    for i, k in enumerate(draft.kinds):
        name = check_spelling(k.name, f"kinds[{i}].name", issues)
        text = _description(k.description, f"kinds[{i}].description", issues)
        if name is not None and any(d.name == name for d in kinds):
            issues.append(Issue(f"kinds[{i}].name", f"{name!r} declared twice"))
        elif name is not None:
            kinds.append(KindDecl(name, text))
    declared = {k.name for k in kinds}
    labels: list[LabelDecl] = []
    for i, d in enumerate(draft.labels):
        at = f"labels[{i}]"
        name = check_spelling(d.name, f"{at}.name", issues)
        text = _description(d.description, f"{at}.description", issues)
        ends = {}
        for end in ("subject_kinds", "object_kinds"):
            ends[end] = _names(getattr(d, end), f"{at}.{end}", issues)
            for j, kind in enumerate(ends[end]):
                if kind not in declared:
                    issues.append(Issue(f"{at}.{end}[{j}]", f"kind {kind!r} is not declared"))
        if name is not None and any(x.name == name for x in labels):
            issues.append(Issue(f"{at}.name", f"{name!r} declared twice"))
        elif name is not None:
            labels.append(LabelDecl(name, text, symmetric=bool(d.symmetric), **ends))
    if issues:
        raise InvalidInput(f"{len(issues)} problem(s) in the schema; nothing stored", issues=issues)
    return replace(draft, kind_label=kind_label, labels=tuple(labels), kinds=tuple(kinds))


# -- storing ------------------------------------------------------------------------------------


def _document(s: Schema) -> dict[str, Any]:
    return {
        "strict": s.strict,
        "kind_label": s.kind_label,
        "labels": [
            {
                "name": d.name,
                "description": d.description,
                "subject_kinds": list(d.subject_kinds),
                "object_kinds": list(d.object_kinds),
                "symmetric": d.symmetric,
            }
            for d in s.labels
        ],
        "kinds": [{"name": k.name, "description": k.description} for k in s.kinds],
    }


def load(session: Session, ctx: Context) -> Schema:
    row = session.get(ContextSchema, ctx.id)
    if row is None:
        return empty(ctx.name)
    doc = row.document
    return Schema(
        context=ctx.name,
        version=row.version,
        strict=bool(doc.get("strict", False)),
        kind_label=str(doc.get("kind_label", DEFAULT_KIND_LABEL)),
        labels=tuple(
            LabelDecl(
                d["name"],
                d.get("description", ""),
                tuple(d.get("subject_kinds", ())),
                tuple(d.get("object_kinds", ())),
                bool(d.get("symmetric", False)),
            )
            for d in doc.get("labels", ())
        ),
        kinds=tuple(KindDecl(k["name"], k.get("description", "")) for k in doc.get("kinds", ())),
        updated_at=row.updated_at,
    )


def store(session: Session, ctx: Context, draft: Schema, expected_version: int | None) -> Schema:
    """Replace the context's schema if it is still at `expected_version` (0: none yet; None:
    whatever is stored, under the same turn — Taguru's last-writer-wins `PUT`)."""
    doc = _document(checked(draft))
    # writers of one context's schema take turns (two first writers would both insert)
    session.execute(select(Context.id).where(Context.id == ctx.id).with_for_update())
    if expected_version is None:
        expected_version = load(session, ctx).version
    if expected_version == 0:
        exists = session.get(ContextSchema, ctx.id) is not None
        if not exists:
            session.add(
                ContextSchema(context_id=ctx.id, version=1, document=doc, scopes=list(ctx.scopes))
            )
            session.flush()
            return load(session, ctx)
    else:
        done = session.execute(
            update(ContextSchema)
            .where(
                ContextSchema.context_id == ctx.id,
                ContextSchema.version == expected_version,
            )
            .values(version=ContextSchema.version + 1, document=doc, updated_at=func.now())
        )
        if done.rowcount == 1:  # type: ignore[attr-defined]
            session.expire_all()
            return load(session, ctx)
    current = load(session, ctx).version
    raise SchemaConflict(
        f"the schema of {ctx.name!r} is at version {current}, not {expected_version}: read it"
        " again, reapply your change and send the version you read",
        issues=[Issue("expected_version", f"the stored version is {current}")],
    )


# -- strict writes ------------------------------------------------------------------------------


def concept_kinds(
    session: Session, ctx: Context, kind_label: str, concepts: Iterable[str]
) -> dict[str, set[str]]:
    """The kinds of `concepts`: objects of their net positive `kind_label` edges the caller sees."""
    names = sorted(set(concepts))
    if not names:
        return {}
    a = Association
    rows = session.execute(
        select(a.subject, a.object)
        .where(a.context_id == ctx.id, a.label == kind_label, a.subject.in_(names))
        .group_by(a.subject, a.object)
        .having(func.sum(a.claims) > 0, func.sum(a.weight) > 0)
    )
    kinds: dict[str, set[str]] = defaultdict(set)
    for subject, obj in rows:
        kinds[subject].add(obj)
    return kinds


def check_writes(
    session: Session,
    ctx: Context,
    triples: Sequence[tuple[int, str, str, str, float]],
) -> None:
    """Refuse a batch a strict schema forbids (index, subject, label, object, weight each)."""
    schema = load(session, ctx)
    if not schema.strict or not triples:
        return
    kinds = concept_kinds(
        session, ctx, schema.kind_label, (n for t in triples for n in (t[1], t[3]))
    )
    for _, subject, label, obj, weight in triples:  # the batch's own kind claims count too
        if label == schema.kind_label and weight > 0:
            kinds.setdefault(subject, set()).add(obj)
    issues: list[Issue] = []
    declared_kinds = schema.kind_names
    for i, subject, label, obj, _ in triples:
        at = f"associations[{i}]"
        if label == schema.kind_label:
            if declared_kinds and obj not in declared_kinds:
                issues.append(Issue(f"{at}.object", f"kind {obj!r} is not declared"))
            continue
        decl = schema.label(label)
        if decl is None:
            issues.append(Issue(f"{at}.label", f"label {label!r} is not declared"))
            continue
        for end, name, allowed in (
            ("subject", subject, decl.subject_kinds),
            ("object", obj, decl.object_kinds),
        ):
            found = kinds.get(name, set())
            if allowed and found and not found & set(allowed):
                issues.append(
                    Issue(
                        f"{at}.{end}",
                        f"{name!r} is {sorted(found)}, label {label!r} takes {list(allowed)}",
                    )
                )
    if issues:
        raise SchemaViolation(
            f"{len(issues)} claim(s) break the strict schema of {ctx.name!r}; nothing written"
            f" (first: {issues[0].path}: {issues[0].problem})",
            issues=issues,
        )
