"""A context's schema (get, put with its version, validate as a dry run, strict writes) and the
audits (schema, consolidation, drift), at the service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tabane.errors import Forbidden, InvalidInput, SchemaConflict, SchemaViolation
from tabane.graph.claims.parse import parse_claims
from tabane.graph.schema import KindDecl, LabelDecl, Schema
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane


def write(svc: Tabane, user: Principal, context: str, *triples, source: str | None = None):
    claims = [
        {"subject": s, "label": lb, "object": o, "weight": 1.0}
        | ({"source": source} if source else {})
        for s, lb, o in triples
    ]
    return svc.add_claims(user, context, parse_claims(claims))


def brewery(strict: bool = False) -> Schema:
    return Schema(
        context="",
        version=0,
        strict=strict,
        kind_label="kind",
        labels=(
            LabelDecl("製造", "what a maker makes", ("会社",), ("酒",)),
            LabelDecl("別物", "different referents", symmetric=True),
        ),
        kinds=(KindDecl("会社"), KindDecl("酒")),
    )


def seed(svc: Tabane, user: Principal, context: str) -> None:
    write(
        svc,
        user,
        context,
        ("青嶺酒造", "kind", "会社"),
        ("清酒", "kind", "酒"),
        ("青嶺酒造", "製造", "清酒"),  # conforms
        ("清酒", "製造", "米"),  # 清酒 is 酒, not 会社: subject_kind
        ("青嶺酒造", "製造", "青嶺酒造"),  # the object is 会社, not 酒: object_kind
        ("a", "所在地", "b"),  # undeclared_label
        ("x", "kind", "人"),  # undeclared_kind
    )


def test_no_schema_is_version_zero_and_put_is_guarded_by_the_version(
    svc: Tabane, user: Principal, context: str
) -> None:
    got = svc.get_schema(user, context)
    assert (got.version, got.labels, got.kinds, got.strict) == (0, (), (), False)
    first = svc.put_schema(user, context, brewery(), expected_version=0)
    assert first.version == 1 and [d.name for d in first.labels] == ["製造", "別物"]
    assert first.label("製造").subject_kinds == ("会社",) and first.label("別物").symmetric
    assert svc.get_schema(user, context) == first
    with pytest.raises(SchemaConflict) as stale:  # a second writer that read version 0
        svc.put_schema(user, context, brewery(strict=True), expected_version=0)
    assert stale.value.code == "schema_version_conflict" and stale.value.status == 409
    assert stale.value.issues[0].problem == "the stored version is 1"
    second = svc.put_schema(user, context, brewery(strict=True), expected_version=1)
    assert (second.version, second.strict) == (2, True)
    with pytest.raises(SchemaConflict):
        svc.put_schema(user, context, brewery(), expected_version=1)
    assert svc.get_schema(user, context).strict


def test_without_a_version_put_replaces_whatever_is_stored(
    svc: Tabane, user: Principal, context: str
) -> None:
    """Taguru's unversioned PUT (decision 0027): the first inserts, a later one replaces the
    stored version under the same row turn, and a versioned writer that read before it is
    still refused."""
    first = svc.put_schema(user, context, brewery(), expected_version=None)
    assert (first.version, first.strict) == (1, False)
    again = svc.put_schema(user, context, brewery(strict=True), expected_version=None)
    assert (again.version, again.strict) == (2, True)
    with pytest.raises(SchemaConflict):  # read version 1, before the unversioned write
        svc.put_schema(user, context, brewery(), expected_version=1)
    assert svc.get_schema(user, context) == again


def test_a_bad_document_names_each_problem_and_stores_nothing(
    svc: Tabane, user: Principal, context: str
) -> None:
    bad = Schema(
        context="",
        version=0,
        strict=False,
        kind_label="kind",
        labels=(LabelDecl("製造", object_kinds=("酒",)), LabelDecl("製造"), LabelDecl(" ")),
        kinds=(),
    )
    with pytest.raises(InvalidInput) as err:
        svc.put_schema(user, context, bad, expected_version=0)
    paths = [i.path for i in err.value.issues]
    assert paths == ["labels[0].object_kinds[0]", "labels[1].name", "labels[2].name"]
    assert svc.get_schema(user, context).version == 0
    with pytest.raises(InvalidInput):
        svc.put_schema(user, context, brewery(), expected_version=True)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        svc.put_schema(user, context, brewery(), expected_version=-1)


def test_only_a_writer_of_the_context_puts_its_schema(
    svc: Tabane, user: Principal, context: str, make_user
) -> None:
    other = make_user()
    with pytest.raises(Exception) as err:  # another user's private context is not theirs
        svc.put_schema(other, context, brewery(), expected_version=0)
    assert err.value.code in ("no_context", "forbidden")
    assert svc.get_schema(user, context).version == 0
    assert Forbidden.code == "forbidden"


def test_validate_is_a_dry_run_and_audit_agrees(svc: Tabane, user: Principal, context: str):
    seed(svc, user, context)
    got = svc.validate_schema(user, context, brewery())
    assert got.draft and got.version == 0
    assert got.counts == {
        "undeclared_label": 1,
        "undeclared_kind": 1,
        "subject_kind": 1,
        "object_kind": 1,
    }
    rows = [(v.rule, v.label, v.subject, v.object) for v in got.violations]
    assert rows == [
        ("undeclared_label", "所在地", "a", None),
        ("undeclared_kind", "kind", None, "人"),
        ("subject_kind", "製造", "清酒", "米"),
        ("object_kind", "製造", "青嶺酒造", "青嶺酒造"),
    ]
    subject = got.violations[2]
    assert (subject.found, subject.expected) == (("酒",), ("会社",))
    assert "takes ['会社']" in subject.reason
    assert svc.get_schema(user, context).version == 0  # nothing stored
    svc.put_schema(user, context, brewery(), expected_version=0)
    audit = svc.audit_schema(user, context)
    assert not audit.draft and audit.version == 1
    assert audit.violations == got.violations and audit.counts == got.counts
    first = svc.audit_schema(user, context, limit=3)
    assert (len(first.violations), first.total, first.next_cursor) == (3, 4, 3)
    rest = svc.audit_schema(user, context, limit=3, cursor=first.next_cursor)
    assert rest.violations == audit.violations[3:] and rest.next_cursor is None
    with pytest.raises(InvalidInput) as err:
        svc.audit_schema(user, context, limit=0, cursor=-1)
    assert [i.path for i in err.value.issues] == ["limit", "cursor"]
    with pytest.raises(InvalidInput) as err:  # past int4 the statement's OFFSET would fail
        svc.audit_schema(user, context, cursor=2**31)
    assert err.value.issues[0].path == "cursor"


def test_a_retracted_kind_or_label_is_not_flagged(svc: Tabane, user: Principal, context: str):
    write(svc, user, context, ("a", "所在地", "b"))
    assert svc.audit_schema(user, context).counts["undeclared_label"] == 1
    svc.retract_associations(user, context, [("a", "所在地", "b", None, None)])
    assert svc.audit_schema(user, context).total == 0


def test_strict_refuses_what_the_schema_forbids_and_writes_nothing(
    svc: Tabane, user: Principal, context: str
) -> None:
    write(svc, user, context, ("a", "所在地", "b"))  # off by default: anything goes
    svc.put_schema(user, context, brewery(strict=True), expected_version=0)
    with pytest.raises(SchemaViolation) as err:
        write(svc, user, context, ("c", "kind", "会社"), ("c", "所在地", "d"))
    assert err.value.code == "schema_violation" and err.value.status == 422
    assert [(i.path, i.problem) for i in err.value.issues] == [
        ("associations[1].label", "label '所在地' is not declared")
    ]
    assert svc.query(user, contexts=[context], subject="c").edges == ()  # the batch refused
    with pytest.raises(SchemaViolation) as err:
        write(svc, user, context, ("y", "kind", "人"))
    assert err.value.issues[0].path == "associations[0].object"
    # The batch's own kind claims count, in any order.
    write(svc, user, context, ("蔵", "製造", "酒1"), ("蔵", "kind", "会社"), ("酒1", "kind", "酒"))
    with pytest.raises(SchemaViolation) as err:
        write(svc, user, context, ("酒1", "製造", "蔵"))
    assert [i.path for i in err.value.issues] == [
        "associations[0].subject",
        "associations[0].object",
    ]
    write(svc, user, context, ("untyped", "製造", "酒1"))  # an untyped end passes
    svc.add_alias(user, context, "造る", "製造", kind="label")
    write(svc, user, context, ("蔵", "造る", "酒1"))  # a declared label's alias is that label


def test_consolidation_twins_duplicates_and_aliases(svc: Tabane, user: Principal, context: str):
    svc.ingest(user, context, DocumentInput(source_id="doc", data=b"one\n\ntwo", format="text"))
    write(
        svc,
        user,
        context,
        ("青嶺酒造", "製造", "清酒"),
        ("青嶺酒蔵", "製造", "清酒"),
        ("東京都庁", "所在地", "新宿"),
    )
    write(svc, user, context, ("青嶺酒造", "所在地", "新潟"), source="doc")
    write(svc, user, context, ("青嶺酒造", "所在地", "新潟"), source="doc")
    svc.add_alias(user, context, "fooBar", "東京都庁")
    write(svc, user, context, ("foobar", "所在地", "x"))
    got = svc.audit_consolidation(user, context)
    twin = next(t for t in got.twins if {t.a, t.b} == {"青嶺酒造", "青嶺酒蔵"})
    assert twin.shared == 1 and twin.action == "reattribute" and twin.overlap == 0.5
    assert "Dice" in twin.reason and got.semantic_reason == "no_embedder"
    [dupe] = got.duplicates
    assert (dupe.subject, dupe.source, dupe.claims, dupe.weight) == ("青嶺酒造", "doc", 2, 2.0)
    [overlap] = got.aliases
    assert (overlap.rule, overlap.alias, overlap.other) == ("alias_is_concept", "fooBar", "foobar")
    assert got.sections["duplicates"].total == 1
    only = svc.audit_consolidation(user, context, sections=["duplicates"])
    assert set(only.sections) == {"duplicates"} and only.twins == []
    with pytest.raises(InvalidInput) as err:
        svc.audit_consolidation(user, context, sections=["nope"])
    assert err.value.issues[0].path == "sections"


def test_drift_labels_weights_and_retractions(svc: Tabane, user: Principal, context: str):
    write(svc, user, context, ("a", "所在地", "b"), ("a", "製造", "c"))
    write(svc, user, context, ("a", "製造", "c"))
    svc.retract_associations(user, context, [("a", "所在地", "b", None, None)])
    got = svc.audit_drift(user, context)
    assert {d.label for d in got.labels} == {"所在地", "製造"}  # no schema: first used now
    assert all("declares no schema" in d.reason for d in got.labels)
    moves = [(m.subject, m.label, m.object, m.change, m.weight) for m in got.weights]
    assert moves == [("a", "製造", "c", 2.0, 2.0)]  # 所在地 was added and retracted: net 0
    assert [(r.subject, r.label) for r in got.retracted] == [("a", "所在地")]
    svc.put_schema(user, context, brewery(), expected_version=0)
    declared = svc.audit_drift(user, context, sections=["labels"])
    assert [d.label for d in declared.labels] == ["所在地"] and set(declared.pages) == {"labels"}
    later = datetime.now(UTC) + timedelta(days=1)
    empty = svc.audit_drift(user, context, since=later, until=later + timedelta(days=1))
    assert (empty.labels, empty.weights, empty.retracted) == ([], [], [])
    with pytest.raises(InvalidInput):
        svc.audit_drift(user, context, since=later, until=later)
    with pytest.raises(InvalidInput):
        svc.audit_drift(user, context, since="yesterday")
