"""Taguru's schema document in tabane's terms, both ways (decision 0027, "The schema"): what
tabane keeps comes back as sent, `warn` comes back `off`, and what it cannot keep (`is_a`,
`closed_labels` against the mode, an unknown consolidation check) is refused by name."""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.graph.conformance import Conformance, Violation
from tabane.wire.taguru.schema import (
    TaguruConsolidationIn,
    TaguruSchemaIn,
    audit,
    cursor,
    document,
)

DOC = {
    "schema": 1,
    "mode": "strict",
    "closed_labels": True,
    "types": {"醸造所": {}, "人": {"description": "a person"}},
    "relations": {"杜氏": {"domain": ["醸造所"], "range": ["人"], "symmetric": False}},
}


def test_a_document_tabane_keeps_comes_back_as_sent() -> None:
    schema = TaguruSchemaIn.model_validate(DOC).to_schema("c")
    assert schema.strict and schema.label("杜氏").subject_kinds == ("醸造所",)
    back = document(schema).model_dump(by_alias=True)
    assert {k: back[k] for k in ("schema", "mode", "closed_labels")} == {
        "schema": 1,
        "mode": "strict",
        "closed_labels": True,
    }
    assert back["relations"]["杜氏"]["range"] == ["人"] and set(back["types"]) == {"醸造所", "人"}
    assert back["types"]["人"] == {"is_a": [], "description": "a person"}


@pytest.mark.parametrize(("mode", "closed"), [("warn", None), ("warn", False), ("off", False)])
def test_warn_and_off_are_not_strict_and_come_back_off(mode: str, closed: bool | None) -> None:
    sent = {"mode": mode} | ({} if closed is None else {"closed_labels": closed})
    back = document(TaguruSchemaIn.model_validate(sent).to_schema("c"))
    assert (back.mode, back.closed_labels) == ("off", False)


@pytest.mark.parametrize(
    ("sent", "path"),
    [
        ({"types": {"醸造所": {"is_a": ["組織"]}}}, "types.醸造所.is_a"),
        ({"mode": "strict", "closed_labels": False}, "closed_labels"),
        ({"mode": "off", "closed_labels": True}, "closed_labels"),
    ],
)
def test_what_tabane_cannot_keep_is_refused_by_name(sent: dict, path: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        TaguruSchemaIn.model_validate(sent).to_schema("c")
    assert [i.path for i in refused.value.issues] == [path]


def test_a_check_tabane_does_not_run_is_refused_and_unused_fields_are_named() -> None:
    asked = TaguruConsolidationIn.model_validate({"checks": ["merge", "aliases"], "floor_secs": 5})
    assert asked.sections() == ["twins", "aliases"] and asked.unused() == ["floor_secs"]
    with pytest.raises(InvalidInput) as refused:
        TaguruConsolidationIn.model_validate({"checks": ["staleness"]}).sections()
    assert refused.value.issues[0].path == "checks[0]"


def test_the_audit_splits_edge_rows_from_names_and_pages_by_offset() -> None:
    rows = [
        Violation("undeclared_label", "使う", "洗米", None, 3, (), (), "r"),
        Violation("undeclared_kind", "kind", None, "工程", 1, (), (), "r"),
        Violation("object_kind", "杜氏", "蔵", "米", 1, ("原料",), ("人",), "r"),
    ]
    counts = {"undeclared_label": 2, "undeclared_kind": 1, "subject_kind": 4, "object_kind": 1}
    found = Conformance("c", 3, False, counts, rows, 8, 0, 3, 3)
    got = audit(found)
    assert (got.total, got.next, got.version) == (5, "3", 3)
    assert (got.unknown_labels.total, got.unknown_labels.names) == (2, ["使う"])
    assert got.undeclared_types.names == ["工程"] and got.untyped_concepts.total is None
    issue = got.violations[0].issues[0]
    assert (issue.path, issue.kind, issue.expected, issue.actual) == (
        "object",
        "range",
        ["人"],
        ["原料"],
    )
    assert cursor(None) == 0 and cursor("3") == 3
    with pytest.raises(InvalidInput):
        cursor("-1")
