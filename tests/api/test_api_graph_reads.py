"""The graph reads over HTTP: one round trip per route, the error body, paths in issues."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def c(s: str, label: str, o: str, w: float = 1.0, **more: Any) -> dict[str, Any]:
    return {"subject": s, "label": label, "object": o, "weight": w, **more}


def seed(svc: Tabane, user: Principal, context: str) -> None:
    svc.ingest(
        user,
        context,
        DocumentInput(
            source_id="brew.md",
            paragraphs=[block("Washing comes first.", ["Process"], {"kind": "page", "start": 2})],
        ),
    )
    claims = [
        c("brewing", "first_step", "washing", 1.0, source="brew.md", paragraph=0),
        c("washing", "next_step", "soaking"),
        c("soaking", "next_step", "steaming"),
        c("brewing", "step", "washing"),
        c("brewing", "step", "soaking"),
        c("brewing", "step", "steaming"),
        c("island", "r", "isle"),
    ]
    svc.add_claims(user, context, parse_claims(claims))


def test_every_read_route_round_trips(
    svc: Tabane, user: Principal, client: TestClient, context: str
) -> None:
    seed(svc, user, context)
    base = f"/contexts/{context}"
    r = client.post(f"{base}/query", json={"label": "next_step", "limit": 1})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["total"] == 2 and body["next"] and len(body["edges"]) == 1
    assert body["edges"][0]["context"] == context and body["edges"][0]["perspective"] is None
    r2 = client.post(f"{base}/query", json={"label": "next_step", "after": body["next"]})
    assert r2.json()["next"] is None and r2.json()["edges"] != body["edges"]

    first = client.post(f"{base}/query", json={"any": ["washing"], "label": ["first_step"]})
    (edge,) = first.json()["edges"]
    assert edge["attributions"][0]["section"] == ["Process"]

    d = client.post(f"{base}/describe", json={"concept": "brewing"}).json()
    assert d["degree"] == 4 and d["as_subject"][0]["label"] == "step"

    a = client.post(f"{base}/activate", json={"origins": "brewing", "limit": 2}).json()
    # each neighbour gets 0.5 · 1 / W(brewing)=4 along its best edge: a tie, broken by spelling
    assert [x["concept"] for x in a["concepts"]] == ["soaking", "steaming"]
    assert a["concepts"][0]["via"] == ["brewing", "soaking"]

    e = client.post(f"{base}/explore", json={"origins": ["washing"], "depth": 1}).json()
    assert [(x["concept"], x["distance"]) for x in e["concepts"]] == [
        ("brewing", 1),
        ("soaking", 1),
    ]

    p = client.post(
        f"{base}/paths", json={"origins": "washing", "targets": "steaming", "max_depth": 2}
    ).json()
    assert [x["concepts"] for x in p["paths"]] == [
        ["washing", "brewing", "steaming"],
        ["washing", "soaking", "steaming"],
    ]
    assert p["capped"] is False

    u = client.post(f"{base}/unreachable_from", json={"origin": "brewing"}).json()
    assert u["concepts"] == ["island", "isle"] and u["total"] == 2

    labels = client.get(f"{base}/labels", params={"prefix": "NEXT", "limit": 5}).json()
    assert labels["labels"] == [{"label": "next_step", "edges": 2}]

    cited = client.post(
        f"{base}/associations/citations",
        json={"subject": "brewing", "label": "first_step", "object": "washing"},
    ).json()
    citation = cited["associations"][0]["citations"][0]
    assert citation["text"] == "Washing comes first." and citation["section"] == ["Process"]
    assert citation["locator"]["kind"] == "page"


def test_cross_context_query(
    svc: Tabane, user: Principal, client: TestClient, make_context: Callable[..., str]
) -> None:
    a, b = make_context(), make_context()
    svc.add_claims(user, a, parse_claims([c("sake", "made_from", "rice", 1)]))
    svc.add_claims(user, b, parse_claims([c("sake", "made_from", "koji", 2)]))
    group = unique("g")
    svc.create_group(user, group, contexts=[b])
    r = client.post("/query", json={"contexts": [a], "groups": [group], "any": "sake"})
    assert r.status_code == 200, r.text
    assert [(e["context"], e["object"]) for e in r.json()["edges"]] == [(b, "koji"), (a, "rice")]


def test_errors_share_one_body(
    svc: Tabane, user: Principal, client: TestClient, context: str
) -> None:
    seed(svc, user, context)
    base = f"/contexts/{context}"
    r = client.post(f"{base}/activate", json={"origins": ["brewing", "nope"]})
    assert r.status_code == 404
    err = r.json()["error"]
    assert err["code"] == "no_concept" and err["issues"][0]["path"] == "body.origins[1]"
    r = client.post(f"{base}/activate", json={"origins": "brewing", "decay": 0})
    assert r.status_code == 422 and r.json()["error"]["issues"][0]["path"] == "body.decay"
    r = client.post(f"{base}/explore", json={"origins": "brewing", "depth": 11})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input"
    r = client.post(f"{base}/query", json={"subject": [], "limit": 5})
    assert r.status_code == 422 and r.json()["error"]["issues"][0]["path"] == "body.subject"
    # a union field (a spelling or a list) wrong in one item: one issue, at that item
    r = client.post(f"{base}/query", json={"subject": ["brewing", 5]})
    assert r.status_code == 422
    assert r.json()["error"]["issues"] == [
        {"path": "body.subject[1]", "problem": "a spelling must be a string, not a number"}
    ]
    r = client.post(f"{base}/activate", json={"origins": {"x": 1}})
    assert [i["path"] for i in r.json()["error"]["issues"]] == ["body.origins"]
    r = client.post(f"{base}/query", json={"after": "garbage"})
    assert r.status_code == 422 and r.json()["error"]["issues"][0]["path"] == "body.after"
    r = client.post("/query", json={"any": "x"})
    assert r.status_code == 422
    r = client.post("/contexts/no-such-context/query", json={"any": "x"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_context"
    assert r.json()["error"]["issues"][0]["path"] == "path.context"  # as every /contexts/{c}/…
    r = client.post(
        f"{base}/associations/citations",
        json={"subject": "brewing", "label": "nope", "object": "washing"},
    )
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = client.get(f"{base}/labels", params={"limit": 0})
    assert r.status_code == 422


def test_walks_take_a_time_window(
    svc: Tabane, user: Principal, client: TestClient, context: str
) -> None:
    seed(svc, user, context)
    base = f"/contexts/{context}"
    for route in ("activate", "explore"):
        now = client.post(f"{base}/{route}", json={"origins": "brewing"})
        assert now.status_code == 200 and now.json()["concepts"]
        before = client.post(  # every claim was recorded now: nothing was valid in 2001
            f"{base}/{route}", json={"origins": "brewing", "until": "2001-01-01"}
        )
        assert before.status_code == 200 and before.json()["concepts"] == []
    bad = client.post(f"{base}/paths", json={"origins": "brewing", "targets": "steaming",
                                             "until": "yesterday"})  # fmt: skip
    assert bad.status_code == 422
    assert bad.json()["error"]["issues"][0]["path"] == "body.until"


def test_query_keeps_a_retracted_edge_at_zero_and_rounds_weights(
    svc: Tabane, user: Principal, client: TestClient, context: str
) -> None:
    """Weights drop, edges stay (issue 35): over HTTP a retracted edge comes back at weight 0
    with its closed claims; `include_retracted: false` leaves it out; 0.1 + 0.2 reads 0.3."""
    svc.add_claims(
        user, context, parse_claims([c("tea", "warms", "you", 0.1), c("tea", "warms", "you", 0.2)])
    )
    svc.add_claims(user, context, parse_claims([c("tea", "cools", "you", 0.5)]))
    svc.retract_associations(user, context, [("tea", "cools", "you", None, None)])
    url = f"/contexts/{context}/query"
    body = client.post(url, json={"subject": "tea"}).json()
    assert [(e["label"], e["weight"], e["claims"]) for e in body["edges"]] == [
        ("warms", 0.3, 2),
        ("cools", 0.0, 0),
    ]
    (history,) = body["edges"][1]["attributions"]
    assert (history["weight"], history["close_reason"]) == (0.5, "retracted")
    assert history["closed_at"] and history["section"] == []
    assert '"weight":0.3,' in client.post(url, json={"subject": "tea"}).text
    live = client.post(url, json={"subject": "tea", "include_retracted": False}).json()
    assert [e["label"] for e in live["edges"]] == ["warms"] and live["total"] == 1
    bad = client.post(url, json={"subject": "tea", "include_retracted": "no"})
    assert bad.status_code == 422
