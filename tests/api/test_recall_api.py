"""`/recall`, `/recall/explain` and `/recall/traces/{id}` over real HTTP (uvicorn on a free port):
cited items and an id, the trace for its asker only, the one error body on bad input."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve_people, unique

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
QUESTION = "how do I remove limescale with vinegar?"


def _error(response: httpx.Response, status: int, code: str, *paths: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["error"]
    err: dict[str, Any] = body["error"]
    assert list(err) == ["code", "message", "issues", "written"]
    assert (err["code"], err["written"]) == (code, "nothing"), err
    assert set(paths) <= {i["path"] for i in err["issues"]}, err
    return err


def _kettle(svc: Tabane, user: Principal, context: str) -> None:
    doc = DocumentInput(source_id="kettle", paragraphs=[block(t) for t in KETTLE], title="Kettle")
    svc.ingest(user, context, doc)


def test_recall_returns_cited_items_an_id_and_a_trace_for_its_asker_only(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    _kettle(svc, user, context)
    me, other = http["me"], http["other"]
    got = me.post("/recall", json={"question": QUESTION, "contexts": [context]})
    assert got.status_code == 200, got.text
    body = got.json()
    assert set(body) == {
        "question",
        "recall_id",
        "rendered",
        "items",
        "overview",
        "unsupported",
        "trace",
    }
    assert body["unsupported"] is None  # the question asks of nobody
    assert isinstance(body["recall_id"], int) and body["trace"] is None
    [preset] = me.get("/presets").json()["presets"]  # no presets file: the default alone
    assert (preset["name"], preset["contexts"], preset["gate"]) == ("default", [], True)
    first = body["items"][0]
    cite = first["citation"]
    assert (cite["context"], cite["source"], cite["paragraph"], cite["title"]) == (
        context,
        "kettle",
        1,
        "Kettle",
    )
    assert first["provenance"] == "source excerpt"
    assert [(sc["name"], sorted(sc)) for sc in first["scopes"]] == [
        (f"user:{user.name}", ["description", "name"])
    ]
    assert '"Kettle" (kettle), paragraph 1' in body["rendered"]
    assert "bm25" not in body["rendered"]

    traced = me.post("/recall", json={"question": QUESTION, "contexts": [context], "trace": True})
    trace = traced.json()["trace"]
    assert trace["id"] == traced.json()["recall_id"] != body["recall_id"]
    assert trace["lanes"]["bm25"]["ran"] and trace["lanes"]["vector"]["reason"] == "no_embedder"
    assert trace["candidates"][0]["outcome"] == "served"
    assert trace["floors"] == {context: {"value": None, "source": "default"}}  # no embedder
    assert trace["caps"]["candidates"] == 60 and trace["caps"]["max_items"] == 20

    stored = me.get(f"/recall/traces/{body['recall_id']}")
    assert stored.status_code == 200, stored.text
    kept = stored.json()
    assert (kept["id"], kept["user"], kept["question"]) == (body["recall_id"], user.name, QUESTION)
    assert kept["trace"]["contexts"] == [context]
    assert kept["trace"]["candidates"][0]["key"] == first["key"]

    _error(other.get(f"/recall/traces/{body['recall_id']}"), 404, "no_trace", "path.recall_id")
    _error(me.get("/recall/traces/999999999999"), 404, "no_trace")
    _error(me.get(f"/recall/traces/{2**70}"), 404, "no_trace")
    _error(me.get("/recall/traces/abc"), 422, "invalid_input", "path.recall_id")


@pytest.mark.slow
def test_bad_input_answers_the_error_body_with_stable_codes(
    make_context, stranger: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    me, other = http["me"], http["other"]
    ask = {"question": "kettle", "contexts": [context]}
    _error(
        me.post("/recall", json={**ask, "question": "  "}), 422, "invalid_input", "body.question"
    )
    _error(me.post("/recall", json={**ask, "budget": 0}), 422, "invalid_input", "body.budget")
    _error(me.post("/recall", json={**ask, "budget": 10**9}), 422, "invalid_input", "body.budget")
    _error(me.post("/recall", json={**ask, "semantic_floor": 2.0}), 422, "invalid_input")
    _error(me.post("/recall", json={"question": "kettle"}), 422, "invalid_input", "body.contexts")
    _error(me.post("/recall", json={**ask, "preset": unique("p")}), 404, "no_preset")
    _error(me.post("/recall", json={**ask, "contexts": [unique("c")]}), 404, "no_context")
    _error(me.post("/recall", json={**ask, "groups": [unique("g")]}), 404, "no_group")
    # a field naming a user, or the evaluation-only plan, is refused, never obeyed
    _error(me.post("/recall", json={**ask, "user": "root"}), 422, "invalid_input", "body.user")
    _error(me.post("/recall", json={**ask, "plan": "no_graph"}), 422, "invalid_input", "body.plan")
    _error(me.post("/recall", json={**ask, "budget": "5"}), 422, "invalid_input", "body.budget")
    # text PostgreSQL cannot hold is refused at the edge with its field, never a 500
    nul = {**ask, "question": "kettle\u0000scale"}
    _error(me.post("/recall", json=nul), 422, "invalid_input", "body.question")
    raw = b'{"question": "kettle \\ud800 scale", "contexts": ["%s"]}' % context.encode()
    lone = me.post("/recall", content=raw, headers={"content-type": "application/json"})
    _error(lone, 422, "invalid_input", "body.question")
    _error(
        me.post("/recall", json={**ask, "contexts": [context, "a\u0000"]}),
        422,
        "invalid_input",
        "body.contexts[1]",  # the element, not only the field
    )
    _error(me.post("/recall", json={**ask, "preset": ""}), 422, "invalid_input", "body.preset")
    _error(
        me.post("/recall", json={**ask, "speaker": "s" * 201}), 422, "invalid_input", "body.speaker"
    )
    huge = {**ask, "expected": {"claim": 2**70}}
    _error(me.post("/recall/explain", json=huge), 422, "invalid_input", "body.expected.claim")
    deep = {**ask, "expected": {"source": "kettle", "paragraph": 2**40}}
    _error(me.post("/recall/explain", json=deep), 422, "invalid_input", "body.expected.paragraph")
    _error(
        me.post("/memories", json={"context": context, "text": "a note", "weight": 0.5}),
        422,
        "invalid_input",
    )
    _error(
        me.post("/sessions/chat/turns", json={"text": "hello", "at": ""}),
        422,
        "invalid_input",
        "body.at",
    )
    _error(
        me.post("/recall", content=b'{"question": ', headers={"content-type": "application/json"}),
        400,
        "invalid_json",
    )
    # someone else's session is not yours: the same answer as an unknown one
    chat = unique("chat")
    assert other.post(f"/sessions/{chat}/turns", json={"text": "hello"}).status_code == 201
    _error(me.post("/recall", json={**ask, "session": chat}), 404, "no_session")
    theirs = make_context(stranger)
    mine = {"question": "what did I say?", "session": chat, "contexts": [theirs]}
    assert other.post("/recall", json=mine).status_code == 200


def test_explain_says_served_and_not_visible(
    svc: Tabane,
    user: Principal,
    stranger: Principal,
    make_context,
    context: str,
    http: dict[str, httpx.Client],
) -> None:
    _kettle(svc, user, context)
    me = http["me"]
    theirs = make_context(stranger)
    secret = [block("Descale the kettle with vinegar to remove limescale monthly.")]
    svc.ingest(stranger, theirs, DocumentInput(source_id="secret", paragraphs=secret))
    ask = {"question": QUESTION, "contexts": [context]}
    served = me.post(
        "/recall/explain", json={**ask, "expected": {"source": "kettle", "paragraph": 1}}
    )
    assert served.status_code == 200, served.text
    verdict = served.json()
    assert verdict["verdict"] == "served" and verdict["position"] >= 1
    assert any(lr["lane"] == "bm25" for lr in verdict["lanes"])
    hidden = me.post(
        "/recall/explain",
        json={**ask, "expected": {"context": theirs, "source": "secret"}},
    )
    assert hidden.status_code == 200 and hidden.json()["verdict"] == "not_visible"
    missing = me.post(
        "/recall/explain", json={**ask, "expected": {"context": context, "source": unique("s")}}
    )
    assert missing.json()["verdict"] == "not_visible"  # never told apart from an invisible one
    addressed = {**ask, "contexts": [theirs], "expected": {"source": "secret"}}
    _error(me.post("/recall/explain", json=addressed), 404, "no_context")
    _error(me.post("/recall/explain", json={**ask, "expected": {}}), 422, "invalid_input")
    both = {"source": "kettle", "claim": 1}
    _error(me.post("/recall/explain", json={**ask, "expected": both}), 422, "invalid_input")
    empty = {**ask, "question": "", "expected": {"source": "kettle"}}
    _error(me.post("/recall/explain", json=empty), 422, "invalid_input", "body.question")


def test_a_reply_is_served_in_the_place_of_its_question_over_http(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    faq = ["How do I reset the frobnicator?", "Hold the red button for ten seconds."]
    svc.ingest(user, context, DocumentInput(source_id="faq", paragraphs=[block(t) for t in faq]))
    me = http["me"]
    ask = {"question": "reset the frobnicator", "contexts": [context]}
    body = me.post("/recall", json={**ask, "trace": True}).json()
    first = body["items"][0]
    assert (first["text"], first["in_reply_to"], first["citation"]["paragraph"]) == (
        faq[1],
        faq[0],
        1,
    )
    assert body["trace"]["candidates"][0]["reply_to"].startswith("p:")
    assert f"(in reply to: {faq[0]})" in body["rendered"]
    asked = me.post("/recall/explain", json={**ask, "expected": {"source": "faq", "paragraph": 0}})
    assert asked.json()["verdict"] == "answered", asked.text


def test_an_item_that_asserts_a_triple_carries_its_kind_and_fact_over_http(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    svc.add_claims(
        user,
        context,
        [
            ClaimInput("FailsafeMonitor", "watches", "BatteryMonitor", 1.0),
            ClaimInput("FailsafeMonitor", "reads", "RawSensor", -1.0),
        ],
    )
    body = (
        http["me"]
        .post(
            "/recall", json={"question": "What does FailsafeMonitor watch?", "contexts": [context]}
        )
        .json()
    )
    edges = {i["fact"]["label"]: i for i in body["items"] if i["kind"] == "association"}
    assert edges["watches"]["fact"] == {
        "context": context,
        "perspective": "",
        "subject": "FailsafeMonitor",
        "label": "watches",
        "object": "BatteryMonitor",
        "negated": False,
    }
    assert edges["reads"]["fact"]["negated"] is True  # a denial is its own fact
    assert all(i["fact"] is None for i in body["items"] if i["kind"] == "paragraph")


@pytest.mark.slow
def test_recall_says_over_http_when_nothing_says_it_of_the_one_asked(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    vsvc.remember(user, context, {"text": "My tortoise Pebble turned forty."}, speaker="Tom")
    vsvc.remember(user, context, {"text": "My old boat shed needs paint."}, speaker="Ann")
    vsvc.wait_for_jobs()
    ask = {"question": "How old is Ann's tortoise?", "contexts": [context], "speaker": "Tom"}
    with serve_people(vsvc, {"me": user}) as clients:
        body = clients["me"].post("/recall", json=ask).json()
    assert body["unsupported"] == "Nothing remembered says 'tortoise' of Ann."
    assert body["unsupported"] in body["rendered"]
    assert body["items"] and all("tortoise" not in it["text"] for it in body["items"])
