"""sources/search and sources/search/explain over HTTP: scope, plan, vectors, paging, filters,
explain verdicts and bad input."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tabane.api.app import create_app
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

KETTLE = (
    "# Kettle\n\nThe kettle boils water quickly.\n\nDescale the kettle element monthly.\n\n"
    "A kettle note.\n\n## Garden\n\nGardening is not about kettles at all.\n"
)
HIT_KEYS = {"context", "source_id", "paragraph", "title", "text", "section", "locator"} | {
    "kind", "rank", "context_rank", "score", "lanes", "via_question"
}  # fmt: skip
PLAN_KEYS = {"query_terms", "contexts", "pool", "fusion", "limit", "offset", "notes"}


def ingest(client, context: str, source_id: str = "kettle.md", text: str = KETTLE, **kw) -> None:
    response = client.post(
        f"/contexts/{context}/sources", json={"source_id": source_id, "text": text, **kw}
    )
    assert response.status_code == 201, response.text


def search(client, context: str, **body) -> dict:
    response = client.post(f"/contexts/{context}/sources/search", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def explain(client, context: str, **body) -> dict:
    response = client.post(f"/contexts/{context}/sources/search/explain", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def error(response, status: int, code: str, path: str | None = None) -> dict:
    assert response.status_code == status, response.text
    err = response.json()["error"]
    assert err["code"] == code
    if path is not None:
        assert path in [i["path"] for i in err["issues"]], err
    return err


def test_search_one_context_with_hits_lanes_and_plan(client, context) -> None:
    ingest(client, context, tags=["home"], date="2024-05-01")
    body = search(client, context, query="kettle boils water")
    assert set(body) == {"hits", "plan", "next_after"}
    top = body["hits"][0]
    assert set(top) == HIT_KEYS
    assert (top["context"], top["source_id"], top["paragraph"]) == (context, "kettle.md", 0)
    assert (top["title"], top["section"]) == ("Kettle", ["Kettle"])
    assert top["text"] == "The kettle boils water quickly."
    assert top["locator"]["kind"] == "line_range"
    assert top["kind"] == "text"
    assert (top["rank"], top["context_rank"]) == (1, 1)
    assert set(top["lanes"]) == {"bm25"} and top["lanes"]["bm25"]["rank"] == 1
    assert top["lanes"]["bm25"]["score"] > 0 and top["via_question"] == []
    assert [h["rank"] for h in body["hits"]] == list(range(1, len(body["hits"]) + 1))
    # 3 only through its heading "Kettle" ("kettles" in its text is another term), so last
    assert [h["paragraph"] for h in body["hits"]][3:] == [3]
    assert {h["paragraph"] for h in body["hits"]} == {0, 1, 2, 3}

    plan = body["plan"]
    assert set(plan) == PLAN_KEYS
    assert plan["query_terms"] == ["kettl", "boil", "water"]  # analysed: English stems
    assert (plan["pool"], plan["fusion"], plan["limit"], plan["offset"]) == (
        50,
        "score_share",
        10,
        0,
    )
    (ctx_plan,) = plan["contexts"]
    assert (ctx_plan["context"], ctx_plan["filter"], ctx_plan["pending_embeddings"]) == (
        (context, None, 0)
    )
    bm25 = {"ran": True, "reason": None, "hits": 4, "floor": None, "model": None}
    assert ctx_plan["lanes"]["bm25"] == bm25
    assert ctx_plan["lanes"]["vector"]["ran"] is False
    assert ctx_plan["lanes"]["vector"]["reason"] == "no_embedder"
    assert body["next_after"] is None


def test_search_across_contexts_and_groups(svc, user, client, make_context) -> None:
    a, b = make_context(), make_context()
    ingest(client, a, "a.md")
    ingest(client, b, "b.md", "Kettle kettle kettle.\n\nWater in a kettle.\n")
    group = f"g{a}"
    svc.create_group(user, group, contexts=[a, b])

    response = client.post("/sources/search", json={"query": "kettle", "groups": [group]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert {p["context"] for p in body["plan"]["contexts"]} == {a, b}
    first_two = body["hits"][:2]
    assert {h["context"] for h in first_two} == {a, b}  # interleaved by per-context rank
    assert [h["context_rank"] for h in first_two] == [1, 1]
    assert {h["source_id"] for h in body["hits"] if h["context"] == b} == {"b.md"}

    overlap = client.post(
        "/sources/search", json={"query": "kettle", "contexts": [a], "groups": [group]}
    ).json()
    assert len(overlap["plan"]["contexts"]) == 2  # a reached twice, searched once
    assert len(overlap["hits"]) == len(body["hits"])

    named = client.post("/sources/search", json={"query": "kettle", "contexts": [b]}).json()
    assert {h["context"] for h in named["hits"]} == {b}
    nowhere = client.post("/sources/search", json={"query": "kettle"})
    error(nowhere, 422, "invalid_input", "body.contexts")


def test_vector_lane_runs_once_the_jobs_embedded(vsvc: Tabane, user, context) -> None:
    client = TestClient(create_app(vsvc, principal=lambda request: user))
    text = "Tomatoes need full sun to ripen.\n\nThe invoice is due at the end of the month.\n"
    ingest(client, context, "garden.md", text)

    before = search(client, context, query="plants like sunlight")
    vector = before["plan"]["contexts"][0]["lanes"]["vector"]
    assert (vector["ran"], vector["reason"]) == (False, "no_vectors")
    assert before["plan"]["contexts"][0]["pending_embeddings"] >= 1

    assert vsvc.wait_for_jobs(timeout=120) == 0
    after = search(client, context, query="plants like sunlight")
    (ctx_plan,) = after["plan"]["contexts"]
    assert ctx_plan["lanes"]["vector"]["ran"] is True
    assert ctx_plan["lanes"]["vector"]["model"] == vsvc.embedder.name
    assert ctx_plan["pending_embeddings"] == 0
    top = after["hits"][0]
    assert top["paragraph"] == 0 and "vector" in top["lanes"]
    assert -1.0 <= top["lanes"]["vector"]["score"] <= 1.0


def test_paging_with_next_after_walks_the_same_ranking(client, context) -> None:
    text = "\n\n".join(f"Kettle note {i}: water and kettle {'x ' * i}." for i in range(12))
    ingest(client, context, "many.md", text)
    whole = search(client, context, query="kettle water", limit=12)
    assert len(whole["hits"]) == 12 and whole["next_after"] is None

    seen, after, pages = [], None, 0
    while True:
        page = search(client, context, query="kettle water", limit=5, after=after)
        seen += [h["paragraph"] for h in page["hits"]]
        pages += 1
        after = page["next_after"]
        if after is None:
            break
        assert page["plan"]["offset"] == (pages - 1) * 5
    assert pages == 3 and seen == [h["paragraph"] for h in whole["hits"]]
    assert [h["rank"] for h in page["hits"]] == [11, 12]
    bad = client.post(
        f"/contexts/{context}/sources/search", json={"query": "kettle", "after": "garbage!"}
    )
    error(bad, 422, "invalid_input")


def test_filters_report_eligible_sources(client, context) -> None:
    ingest(client, context, "home.md", "The kettle at home.\n", tags=["home"], date="2024-05-01")
    ingest(client, context, "work.md", "The kettle at work.\n", tags=["work"], date="2023-01-01")

    tagged = search(client, context, query="kettle", tags=["home"])
    assert [h["source_id"] for h in tagged["hits"]] == ["home.md"]
    filt = tagged["plan"]["contexts"][0]["filter"]
    counts = {"eligible_sources": 1, "total_sources": 2}
    assert filt == {"tags": ["home"], "since": None, "until": None, **counts}

    unknown = search(client, context, query="kettle", tags=["nope"])  # unmatched, not an error
    assert unknown["hits"] == []
    assert unknown["plan"]["contexts"][0]["filter"]["eligible_sources"] == 0

    window = search(client, context, query="kettle", since="2024-01-01", until="2024-06-01T00:00Z")
    assert [h["source_id"] for h in window["hits"]] == ["home.md"]
    filt = window["plan"]["contexts"][0]["filter"]
    assert (filt["since"], filt["until"]) == ("2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z")
    assert filt["eligible_sources"] == 1
    closed = search(client, context, query="kettle", since="2023-01-02", until="2024-05-01")
    assert closed["hits"] == []  # half-open: until excludes 2024-05-01 itself

    backwards = client.post(
        f"/contexts/{context}/sources/search",
        json={"query": "kettle", "since": "2024-06-01", "until": "2024-01-01"},
    )
    error(backwards, 422, "invalid_input", "body.until")


def test_explain_served_below_cutoff_and_no_term_overlap(client, context) -> None:
    ingest(client, context)
    served = explain(
        client, context, query="kettle boils water", expected={"source_id": "kettle.md"}
    )
    assert (served["verdict"], served["rank"], served["paragraph"]) == ("served", 1, 0)
    assert served["context"] == context and set(served["lanes"]) == {"bm25"}
    terms = {t["term"]: t for t in served["terms"]}
    assert set(terms) == {"kettl", "boil", "water"}  # the analysed terms (English stems)
    # once in the text, once in the title, once in the section path; every paragraph's heading
    assert terms["kettl"]["tf"] == 3 and terms["kettl"]["df"] == 4
    total = sum(t["contribution"] for t in served["terms"])
    assert total == pytest.approx(served["lanes"]["bm25"]["score"])
    assert served["vector"]["reason"] == "no_embedder"

    top = search(client, context, query="kettle", limit=1)["hits"][0]
    target = next(p for p in (0, 1, 2) if p != top["paragraph"])
    expected = {"source_id": "kettle.md", "paragraph": target}
    below = explain(client, context, query="kettle", limit=1, expected=expected)
    assert below["verdict"] == "below_cutoff" and below["rank"] > 1
    assert below["limit_to_reach"] == below["rank"]
    assert below["cutoff_score"] == pytest.approx(top["score"])
    again = search(client, context, query="kettle", limit=below["limit_to_reach"])
    assert target in {h["paragraph"] for h in again["hits"]}

    apart = explain(
        client,
        context,
        query="boils water",
        expected={"context": context, "source_id": "kettle.md", "paragraph": 3},
    )
    assert apart["verdict"] == "no_term_overlap"
    assert apart["query_terms"] == ["boil", "water"]
    assert {"garden", "kettl"} <= set(apart["paragraph_terms"])


def test_explain_never_reveals_another_users_source(
    svc, client, client_for, make_user, make_context, context
) -> None:
    ingest(client, context)
    stranger = make_user()
    theirs = make_context(stranger)
    ingest(client_for(stranger), theirs, "secret.md", "The kettle secret.\n")

    def ask(where: str, source_id: str) -> dict:
        expected = {"context": where, "source_id": source_id, "paragraph": 0}
        body = explain(client, context, query="kettle", expected=expected)
        return {k: v for k, v in body.items() if k not in ("context", "source_id")}

    invisible = ask(theirs, "secret.md")
    assert invisible["verdict"] == "not_stored"
    assert invisible == ask(theirs, "never.md") == ask(context, "never.md")
    assert invisible == ask(f"nosuch{context}", "secret.md")


def test_cross_context_explain_needs_the_expected_context(svc, user, client, context) -> None:
    ingest(client, context)
    body = {"query": "kettle", "contexts": [context], "expected": {"source_id": "kettle.md"}}
    response = client.post("/sources/search/explain", json=body)
    assert response.status_code == 200 and response.json()["verdict"] == "served"

    group = f"g{context}"
    svc.create_group(user, group, contexts=[context])
    grouped = {"query": "kettle", "groups": [group], "expected": {"source_id": "kettle.md"}}
    response = client.post("/sources/search/explain", json=grouped)
    error(response, 422, "invalid_input", "body.expected.context")
    grouped["expected"]["context"] = context
    response = client.post("/sources/search/explain", json=grouped)
    assert response.status_code == 200 and response.json()["verdict"] == "served"


def test_bad_input(client, context) -> None:
    ingest(client, context)
    url = f"/contexts/{context}/sources/search"
    empty = search(client, context, query="   ")
    assert empty["hits"] == [] and empty["plan"]["query_terms"] == []
    assert empty["plan"]["contexts"][0]["lanes"]["bm25"]["reason"] == "no_query_terms"

    zero = client.post(url, json={"query": "kettle", "limit": 0})
    error(zero, 422, "invalid_input", "body.limit")
    error(client.post(url, json={"query": "kettle", "limit": 101}), 422, "invalid_input")
    for raw in (b"NaN", b"-Infinity"):  # raw JSON bytes: Python's json accepts both
        sent = client.post(
            url,
            content=b'{"query": "kettle", "semantic_floor": ' + raw + b"}",
            headers={"content-type": "application/json"},
        )
        error(sent, 422, "invalid_input", "body.semantic_floor")
    too_high = client.post(url, json={"query": "kettle", "semantic_floor": 1.5})
    error(too_high, 422, "invalid_input", "body.semantic_floor")
    since = client.post(url, json={"query": "kettle", "since": "last tuesday"})
    error(since, 422, "invalid_input", "body.since")
    until = client.post(url, json={"query": "kettle", "until": "2024-13-01"})
    error(until, 422, "invalid_input", "body.until")
    error(client.post(url, json={"query": 7}), 422, "invalid_input", "body.query")
    error(client.post(url, json={"query": "k", "user": "root"}), 422, "invalid_input", "body.user")
    error(client.post(url, json={"limit": 3}), 422, "invalid_input", "body.query")
    # an empty tag, or an empty any-of set, would match nothing: refused as ingest refuses it
    error(client.post(url, json={"query": "k", "tags": []}), 422, "invalid_input", "body.tags")
    error(client.post(url, json={"query": "k", "tags": ["a", " "]}), 422, "invalid_input",
          "body.tags[1]")  # fmt: skip
    for blank in ("", "   "):
        explained = client.post(
            f"{url}/explain", json={"query": "kettle", "expected": {"source_id": blank}}
        )
        error(explained, 422, "invalid_input", "body.expected.source_id")

    missing = client.post(f"/contexts/nosuch{context}/sources/search", json={"query": "kettle"})
    error(missing, 404, "no_context", "path.context")  # the path's, as every such route names it
    cross = client.post("/sources/search", json={"query": "k", "contexts": [f"nosuch{context}"]})
    error(cross, 404, "no_context", "body.contexts[0]")
    explained = client.post(
        f"/contexts/nosuch{context}/sources/search/explain",
        json={"query": "kettle", "expected": {"source_id": "kettle.md"}},
    )
    error(explained, 404, "no_context", "path.context")
    no_expected = client.post(f"{url}/explain", json={"query": "kettle"})
    error(no_expected, 422, "invalid_input", "body.expected")
    negative = client.post(
        f"{url}/explain",
        json={"query": "k", "expected": {"source_id": "kettle.md", "paragraph": -1}},
    )
    error(negative, 422, "invalid_input", "body.expected.paragraph")
