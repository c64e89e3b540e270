"""`POST /recall/evidence` (assemble_evidence) and `POST /contexts/{c}/retrieve` over real HTTP:
both answer recall's own items in recall's order (no second ranking), retrieve resolves its
origins first, and bad input is the one error body."""

from __future__ import annotations

import httpx
import pytest

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
QUESTION = "how do I remove limescale with vinegar?"
pytestmark = pytest.mark.slow  # a served app and a recall each


def _store(svc: Tabane, user: Principal, context: str) -> None:
    doc = DocumentInput(source_id="kettle", paragraphs=[block(t) for t in KETTLE], title="Kettle")
    svc.ingest(user, context, doc)
    svc.add_claims(
        user,
        context,
        [ClaimInput("Kettle", "descaled_with", "Vinegar", 1.0, source="kettle", paragraph=1)],
    )


def test_evidence_is_the_recall_bundle_as_ranked_data(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    _store(svc, user, context)
    ask = {"question": QUESTION, "contexts": [context]}
    recalled = http["me"].post("/recall", json=ask).json()
    got = http["me"].post("/recall/evidence", json=ask)
    assert got.status_code == 200, got.text
    body = got.json()
    assert [i["key"] for i in body["items"]] == [i["key"] for i in recalled["items"]]
    assert [i["rank"] for i in body["items"]] == list(range(1, len(body["items"]) + 1))
    first = body["items"][0]
    assert (first["citation"]["source"], first["citation"]["paragraph"]) == ("kettle", 1)
    assert first["lanes"] and all(lane["rank"] >= 1 for lane in first["lanes"])
    assert body["used_tokens"] == sum(i["tokens"] for i in body["items"])
    assert body["used_tokens"] <= body["budget_tokens"]
    assert body["lanes"]["bm25"]["ran"] is True
    assert isinstance(body["recall_id"], int) and body["rendered"] == recalled["rendered"]


def test_a_small_budget_shows_what_it_cut(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    _store(svc, user, context)
    body = (
        http["me"]
        .post("/recall/evidence", json={"question": QUESTION, "contexts": [context], "budget": 40})
        .json()
    )
    assert body["cut"].get("cut_by_budget", 0) >= 1, body["cut"]
    assert body["used_tokens"] <= 40


def test_retrieve_resolves_origins_then_recalls_from_the_anchors(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    _store(svc, user, context)
    got = http["me"].post(
        f"/contexts/{context}/retrieve", json={"origins": ["kettel"], "query": "limescale"}
    )
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["anchors"] == [
        {
            "origin": "kettel",
            "concept": "Kettle",
            "match": "fuzzy",
            "score": body["anchors"][0]["score"],
        }
    ]
    assert body["resolved"]["kettel"]["candidates"][0]["name"] == "Kettle"
    assert body["question"] == "Kettle limescale"
    facts = [i["fact"] for i in body["associations"]]
    assert any(f and f["label"] == "descaled_with" for f in facts), body["associations"]
    assert {i["kind"] for i in body["passages"]} == {"paragraph"}
    assert ("kettle", 1) in {
        (i["citation"]["source"], i["citation"]["paragraph"]) for i in body["passages"]
    }


def test_retrieve_refuses_what_it_cannot_do(
    user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    me = http["me"]
    empty = me.post(f"/contexts/{context}/retrieve", json={"origins": []})
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "invalid_input"
    assert "body.origins" in {i["path"] for i in empty.json()["error"]["issues"]}
    many = me.post(f"/contexts/{context}/retrieve", json={"origins": [f"o{i}" for i in range(21)]})
    assert many.json()["error"]["code"] == "limit_exceeded", many.text
    unknown = me.post("/contexts/no-such-context/retrieve", json={"origins": ["x"]})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "no_context"
    hidden = http["other"].post(f"/contexts/{context}/retrieve", json={"origins": ["x"]})
    assert hidden.json()["error"]["code"] == "no_context"
