"""`tabane schema show|put|validate|audit`, `tabane consolidation` and `tabane drift`, in
process through Typer's runner on the session's store, as JSON and as a person sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabane.graph.claims.parse import parse_claims

DOC = {"labels": [{"name": "製造", "subject_kinds": ["会社"]}], "kinds": [{"name": "会社"}]}


@pytest.mark.slow
def test_schema_commands(cli, person, svc, user, context, tmp_path: Path) -> None:
    claims = [
        {"subject": "清酒", "label": "kind", "object": "酒", "weight": 1.0},
        {"subject": "清酒", "label": "製造", "object": "米", "weight": 1.0},
    ]
    svc.add_claims(user, context, parse_claims(claims))
    doc = tmp_path / "schema.json"
    doc.write_text(json.dumps(DOC), encoding="utf-8")
    code, out, _ = cli("schema", "show", context)
    assert code == 0 and out["version"] == 0
    code, out, _ = cli("schema", "validate", context, str(doc))
    assert code == 0 and out["counts"]["undeclared_kind"] == 1 and out["draft"]
    code, out, _ = cli("schema", "put", context, str(doc), "--expected-version", "0")
    assert code == 0 and out["version"] == 1
    code, _, err = cli("schema", "put", context, str(doc), "--expected-version", "0")
    assert code == 2 and "schema_version_conflict" in err
    code, _, err = cli("schema", "put", context, "-", "--expected-version", "1", stdin="[1]")
    assert code == 2 and "invalid_input" in err and "not an object" in err
    code, out, _ = cli("schema", "audit", context, "--limit", "1")
    assert code == 0 and out["total"] == 2 and out["next_cursor"] == 1
    assert out["violations"][0]["rule"] == "undeclared_kind"
    code, shown, _ = person("schema", "show", context)
    assert code == 0 and "schema version 1" in shown and "製造" in shown
    code, shown, _ = person("schema", "audit", context)
    assert code == 0 and "undeclared_kind" in shown
    code, out, _ = cli("consolidation", context, "--section", "aliases")
    assert code == 0 and set(out["sections"]) == {"aliases"}
    code, out, _ = cli("drift", context, "--section", "weights")
    assert code == 0 and len(out["weights"]) == 2
    code, shown, _ = person("drift", context)
    assert code == 0 and "weights: 2 of 2" in shown
    code, shown, _ = person("consolidation", context)
    assert code == 0 and "duplicates: 0 of 0" in shown
