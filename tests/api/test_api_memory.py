"""`/memories` and `/sessions` over HTTP: the one error body, nothing written on bad input."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from tabane.principal import Principal

from helpers import unique


def test_memories_round_trip(client: TestClient, context: str) -> None:
    made = client.post(
        "/memories",
        json={"context": context, "text": "I moved to Montana.", "speaker": "Hannah",
              "kind": "experience", "valid_from": "2022-08-01"},
    )  # fmt: skip
    assert made.status_code == 201
    claim = made.json()["id"]
    page = client.get("/memories", params={"context": context}).json()
    assert [m["id"] for m in page["memories"]] == [claim]
    memo = page["memories"][0]
    assert (memo["author"], memo["kind"], memo["perspective"]) == ("Hannah", "experience", "Hannah")
    raw = '{"context": "%s", "text": "x", "subject": "a", "label": "b", "object": "c", '
    raw += '"weight": 1e400}'
    bad = client.post(
        "/memories", content=raw % context, headers={"content-type": "application/json"}
    )
    assert bad.status_code == 422
    bad = client.post("/memories", json={"context": context, "text": " ", "kind": "rumour"})
    assert bad.status_code == 422
    paths = {i["path"] for i in bad.json()["error"]["issues"]}
    assert {"body.text", "body.kind"} <= paths
    for params, path in (
        ({"after": 2**63}, "query.after"),  # past bigint: refused, not a database error
        ({"author": "a\x00b"}, "query.author"),
    ):
        bad = client.get("/memories", params={"context": context, **params})
        assert bad.status_code == 422, bad.text
        assert [i["path"] for i in bad.json()["error"]["issues"]] == [path]
    bad = client.post("/memories", json={"context": context, "text": "x", "closes": [99_999_999]})
    assert bad.status_code == 404 and bad.json()["error"]["issues"][0]["path"] == "body.closes"
    missing = client.post("/memories", json={"context": unique("none"), "text": "x"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_context"
    assert len(client.get("/memories", params={"context": context}).json()["memories"]) == 1


def test_sessions_round_trip(
    client: TestClient, client_for: Callable[[Principal], TestClient], make_user
) -> None:
    name = unique("chat")
    for i, speaker in enumerate(("Ravi", "Hannah", "Ravi")):
        r = client.post(f"/sessions/{name}/turns", json={"text": f"t{i}", "speaker": speaker})
        assert r.status_code == 201 and r.json()["seq"] == i + 1
    window = client.get(f"/sessions/{name}/turns", params={"last": 2}).json()["turns"]
    assert [(t["speaker"], t["text"]) for t in window] == [("Hannah", "t1"), ("Ravi", "t2")]
    assert name in [s["name"] for s in client.get("/sessions").json()["sessions"]]
    other = client_for(make_user())
    hidden = other.get(f"/sessions/{name}/turns")
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "no_session"
    bad = client.post(f"/sessions/{name}/turns", json={"text": "", "role": "robot"})
    assert bad.status_code == 422
    assert {i["path"] for i in bad.json()["error"]["issues"]} == {"body.text", "body.role"}
    assert client.get(f"/sessions/{name}/turns", params={"last": 0}).status_code == 422
    later = client.post(f"/sessions/{name}/turns", json={"text": "x", "at": "2999-01-01T00:00Z"})
    assert later.status_code == 422 and later.json()["error"]["issues"][0]["path"] == "body.at"
    gone = client.delete(f"/sessions/%20{name}%20")  # the name as every surface reads it
    assert gone.json() == {"deleted": name, "turns": 3}
    # bytes that are not UTF-8 are refused, not read as U+FFFD (where a%FEb would meet a%FFb)
    for url in (f"/sessions/{name}%FF/turns", f"/sessions/{name}/turns?last=%FF"):
        refused = client.post(url, json={"text": "x"})
        assert refused.status_code == 422, refused.text
        body = refused.json()["error"]
        assert body["code"] == "invalid_input" and body["written"] == "nothing"
        assert body["issues"][0]["path"] == ("query" if "?" in url else "path")
    assert name not in [s["name"] for s in client.get("/sessions").json()["sessions"]]
    # a JSON body sent as another type: the type is named, not the fields
    plain = client.post(
        f"/sessions/{name}/turns", content=b'{"text": "x"}', headers={"content-type": "text/plain"}
    )
    assert plain.status_code == 422
    assert plain.json()["error"]["issues"][0]["path"] == "headers.content-type"
    assert not any("\ufffd" in s["name"] for s in client.get("/sessions").json()["sessions"])
    assert client.get(f"/sessions/{name}/turns").status_code == 404
