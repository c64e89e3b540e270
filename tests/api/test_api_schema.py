"""The schema routes and the audits over real HTTP: put guarded by its version, a stranger
refused, validate as a dry run, strict writes refused with schema_violation, each audit paged."""

from __future__ import annotations

import httpx
import pytest

from tabane.principal import Principal
from tabane.service import Tabane

DOC = {
    "strict": True,
    "labels": [
        {"name": "製造", "subject_kinds": ["会社"], "object_kinds": ["酒"]},
        {"name": "別物", "symmetric": True, "description": "different referents"},
    ],
    "kinds": [{"name": "会社"}, {"name": "酒"}],
}


@pytest.mark.slow
def test_schema_routes_and_audits(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    me, other = http["me"], http["other"]
    base = f"/contexts/{context}"
    edges = [
        {"subject": "蔵", "label": "kind", "object": "会社", "weight": 1.0},
        {"subject": "清酒", "label": "kind", "object": "酒", "weight": 1.0},
        {"subject": "清酒", "label": "製造", "object": "米", "weight": 1.0},
        {"subject": "a", "label": "所在地", "object": "b", "weight": 1.0},
    ]
    assert me.post(f"{base}/associations", json={"associations": edges}).status_code == 201
    got = me.get(f"{base}/schema").json()
    assert (got["version"], got["labels"], got["strict"]) == (0, [], False)
    checked = me.post(f"{base}/schema/validate", json=DOC | {"limit": 1}).json()
    assert checked["draft"] and checked["total"] == 2 and checked["next_cursor"] == 1
    assert checked["violations"][0]["rule"] == "undeclared_label"
    assert me.get(f"{base}/schema").json()["version"] == 0  # the dry run stored nothing
    put = me.put(f"{base}/schema", json=DOC | {"expected_version": 0})
    assert put.status_code == 200 and put.json()["version"] == 1
    assert put.json()["labels"][1] == {
        "name": "別物",
        "description": "different referents",
        "subject_kinds": [],
        "object_kinds": [],
        "symmetric": True,
    }
    stale = me.put(f"{base}/schema", json=DOC | {"expected_version": 0})
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "schema_version_conflict"
    theirs = other.put(f"{base}/schema", json=DOC | {"expected_version": 1})
    assert theirs.status_code == 404  # a private context is invisible to a stranger
    assert other.get(f"{base}/schema").status_code == 404
    bad = me.put(f"{base}/schema", json=DOC | {"expected_version": 1, "extra": 1})
    assert bad.status_code == 422
    refused = me.post(
        f"{base}/associations",
        json={"associations": [{"subject": "x", "label": "新", "object": "y", "weight": 1.0}]},
    )
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "schema_violation" and error["written"] == "nothing"
    assert error["issues"] == [
        {"path": "body.associations[0].label", "problem": "label '新' is not declared"}
    ]
    audit = me.post(f"{base}/schema/audit", json={}).json()
    assert audit["counts"]["subject_kind"] == 1 and audit["version"] == 1
    cons = me.post(f"{base}/consolidation/audit", json={"sections": ["duplicates"]}).json()
    assert set(cons["sections"]) == {"duplicates"}
    drift = me.post(f"{base}/drift/audit", json={"sections": ["labels"]}).json()
    assert [x["label"] for x in drift["labels"]] == ["所在地"]
    wrong = me.post(f"{base}/drift/audit", json={"since": "soon"})
    assert wrong.status_code == 422 and wrong.json()["error"]["issues"][0]["path"] == "body.since"
