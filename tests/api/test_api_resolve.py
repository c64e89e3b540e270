"""resolve, resolve_label, their explain twins and vocabulary/audit over HTTP."""

from __future__ import annotations


def seed(client, context: str) -> None:
    body = {
        "associations": [
            {"subject": "東京都", "label": "所在地", "object": "関東", "weight": 1.0},
            {"subject": "株式会社青嶺", "label": "別物", "object": "青嶺株式会社", "weight": 1.0},
        ]
    }
    response = client.post(f"/contexts/{context}/associations", json=body)
    assert response.status_code == 201, response.text


def test_resolve_round_trip(client, context) -> None:
    seed(client, context)
    response = client.post(f"/contexts/{context}/resolve", json={"cue": "京都"})
    assert response.status_code == 200, response.text
    body = response.json()
    (top,) = body["candidates"]
    assert (top["name"], top["kind"], top["tier"], top["rank"]) == (
        "東京都",
        "containment",
        "lexical",
        1,
    )
    assert top["gloss"] == "東京都 — 所在地→関東"
    assert body["dice_floor"] == {"value": 0.3, "source": "context"}
    assert body["semantic_plan"]["reason"] == "lexical_strong" and body["semantic"] == []
    warn = client.post(f"/contexts/{context}/resolve", json={"cue": "青嶺株式会社"}).json()
    assert warn["candidates"][0]["warnings"] == ["distinct from 株式会社青嶺"]
    label = client.post(f"/contexts/{context}/resolve_label", json={"cue": "所在"}).json()
    assert label["kind"] == "label" and label["candidates"][0]["name"] == "所在地"
    # labels have a semantic tier too (issue 35): its floor is taken, and range-checked
    floored = {"cue": "所在", "semantic_floor": 0.4}
    label = client.post(f"/contexts/{context}/resolve_label", json=floored).json()
    assert label["semantic_plan"]["floor"] == {"value": 0.4, "source": "call"}
    refused = client.post(
        f"/contexts/{context}/resolve_label", json={"cue": "所在", "semantic_floor": 7}
    )
    assert refused.status_code == 422
    assert [i["path"] for i in refused.json()["error"]["issues"]] == ["body.semantic_floor"]


def test_explain_round_trips(client, context) -> None:
    seed(client, context)
    got = client.post(
        f"/contexts/{context}/resolve/explain", json={"cue": "東京", "expected": "東京都"}
    ).json()
    assert (got["verdict"], got["rank"], got["tier"]) == ("served", 1, "lexical")
    lab = client.post(
        f"/contexts/{context}/resolve_label/explain", json={"cue": "所在", "expected": "場所"}
    ).json()
    assert lab["verdict"] == "not_in_vocabulary"


def test_audit_post_and_get(client, context) -> None:
    seed(client, context)
    posted = client.post(f"/contexts/{context}/vocabulary/audit", json={}).json()
    got = client.get(f"/contexts/{context}/vocabulary/audit").json()
    assert posted == got
    (twin,) = got["lexical"]
    assert (twin["a"], twin["b"], twin["distinct"]) == ("株式会社青嶺", "青嶺株式会社", True)


def test_bad_input_is_one_error_body(client, context) -> None:
    for body, path in (({"cue": ""}, "body.cue"), ({"cue": "x", "limit": 500}, "body.limit")):
        response = client.post(f"/contexts/{context}/resolve", json=body)
        assert response.status_code == 422, response.text
        err = response.json()["error"]
        assert err["code"] == "invalid_input" and path in [i["path"] for i in err["issues"]]
    response = client.post(f"/contexts/{context}/resolve", json={"cue": "x", "user": "root"})
    assert response.status_code == 422
    missing = client.post("/contexts/nope-none/resolve", json={"cue": "x"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_context"
    kind = client.get(f"/contexts/{context}/vocabulary/audit?kind=edge")
    assert kind.status_code == 422 and kind.json()["error"]["code"] == "invalid_input"


def test_calibrate_says_what_it_can_do(client, context) -> None:
    seed(client, context)
    got = client.post(f"/contexts/{context}/resolve/calibrate")
    assert got.status_code == 200, got.text
    body = got.json()
    assert (body["verdict"], body["reason"], body["suggested_floor"]) == (
        "impossible",
        "no_embedder",
        None,
    )
    missing = client.post("/contexts/nowhere/resolve/calibrate")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_context"
