"""The archive's published JSON Schema (one line each): every line a rich export writes meets it,
its kinds have exactly the fields the import reads, and real bad files — a wrong type, an unknown
field, an oversized line, a cut last line — are refused by the import naming the line and the
field, with nothing written (and the schema refuses the same lines a client could check first)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tabane.archive import lines as reader
from tabane.archive import records
from tabane.archive.schema import archive_schema
from tabane.errors import InvalidInput, NoContext
from tabane.principal import Principal
from tabane.service import Tabane
from tests.archive.test_archive import _lines, exported, fill

from helpers import unique

VALIDATOR = Draft202012Validator(archive_schema())


def _errors(line: dict[str, Any]) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(line)]


def test_the_schema_is_valid_and_its_kinds_have_the_fields_the_import_reads() -> None:
    Draft202012Validator.check_schema(archive_schema())
    defs = archive_schema()["$defs"]
    for kind, fields in {
        "source": reader.SOURCE_FIELDS,
        "paragraph": reader.PARAGRAPH_FIELDS,
        "claim": reader.CLAIM_FIELDS,
        "alias": reader.ALIAS_FIELDS,
        "context": records.CONTEXT_FIELDS,
        "end": set(records.END_FIELDS),
    }.items():
        assert set(defs[kind]["properties"]) == set(fields), kind
        assert defs[kind]["additionalProperties"] is False


def test_every_line_of_a_rich_export_meets_the_schema(
    svc: Tabane, user: Principal, context: str
) -> None:
    fill(svc, user, context)
    lines = exported(svc, user, context)
    assert {next(iter(line)) for line in lines} >= {"tabane_archive", "source", "claim", "alias"}
    assert {i: _errors(line) for i, line in enumerate(lines) if _errors(line)} == {}


def _import_file(svc: Tabane, user: Principal, path: Path) -> tuple[str, list[str]]:
    name = unique("bad")
    with pytest.raises(InvalidInput) as caught:
        svc.import_context(user, lambda: path.read_text(encoding="utf-8").split("\n"), context=name)
    with pytest.raises(NoContext):
        svc.get_context(user, name)
    assert caught.value.code == "invalid_input"
    return name, [i.path for i in caught.value.issues]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [("weight", "heavy", "not a number"), ("colour", "blue", "unknown field")],
)
def test_a_file_with_a_wrong_type_or_an_unknown_field_names_its_line_and_field(
    svc: Tabane,
    user: Principal,
    context: str,
    tmp_path: Path,
    field: str,
    value: str,
    problem: str,
) -> None:
    lines = _lines(svc, user, context)
    n = next(i for i, line in enumerate(lines) if "claim" in line)
    lines[n]["claim"][field] = value
    assert _errors(lines[n])  # a client checking the line first finds it too
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    _, where = _import_file(svc, user, path)
    assert where == [f"line {n + 1}.claim.{field}"]


def test_an_oversized_line_is_refused_before_it_is_parsed(
    svc: Tabane, user: Principal, context: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines(svc, user, context)
    # a line: at most 8192 characters (restored after the test: svc is the session's)
    monkeypatch.setattr(svc, "settings", replace(svc.settings, max_body_bytes=4096))
    lines[1]["source"]["paragraphs"][0]["text"] = "word " * 2000 + "end"
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InvalidInput) as caught:
        svc.import_context(user, lambda: path.read_text(encoding="utf-8").split("\n"))
    assert [i.path for i in caught.value.issues] == ["line 2"]
    assert caught.value.issues[0].problem.endswith("at most 8192 in one line")


def test_a_file_cut_inside_its_last_line_is_refused_whole(
    svc: Tabane, user: Principal, context: str, tmp_path: Path
) -> None:
    lines = _lines(svc, user, context)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: text.rindex('"aliases"')], encoding="utf-8")  # cut in the end line
    _, where = _import_file(svc, user, path)
    assert where == [f"line {len(lines)}", f"line {len(lines) + 1}"]
