"""Export and import over HTTP: the archive the export streams, the import reads; refusals name
the line, the query parameter or the path segment that carried the fault."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tabane.archive.schema import archive_schema
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def _store(svc: Tabane, owner: Principal, context: str) -> None:
    svc.ingest(owner, context, DocumentInput("a.md", data="# A\n\nÜber\u2028alles.".encode()))
    svc.add_claims(owner, context, [ClaimInput("a", "has", "b", 1.0, source="a.md", paragraph=0)])


def test_http_exports_a_stream_and_imports_it_as_a_new_context(
    svc: Tabane,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    client_for: Callable[[Principal], TestClient],
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    original = make_context(alice)
    _store(svc, alice, original)
    got = client_for(alice).get(f"/contexts/{original}/export")
    assert got.status_code == 200 and got.headers["content-type"].startswith("application/jsonl")
    lines = got.text.split("\n")
    assert lines[-1] == "" and json.loads(lines[-2])["end"]["claims"] == 1
    copy = unique("copy")
    made = client_for(bob).post(
        "/contexts/import",
        params={"context": copy},
        content=got.content,
        headers={"content-type": "application/jsonl"},
    )
    assert made.status_code == 201, made.text
    assert made.json() == {
        "context": copy,
        "sources": 1,
        "paragraphs": 1,
        "claims": 1,
        "open_claims": 1,
        "associations": 1,
        "aliases": 0,
        "scope_map": {f"user:{alice.name}": f"user:{bob.name}"},
    }
    # the text with its line separator (U+2028) came through whole
    paragraph = client_for(bob).get(f"/contexts/{copy}/citations?source_id=a.md&paragraph=0")
    assert paragraph.json()["text"] == "Über\u2028alles."


def test_http_refusals_name_the_line_or_the_parameter(
    user: Principal, context: str, svc: Tabane, client: TestClient
) -> None:
    _store(svc, user, context)
    good = client.get(f"/contexts/{context}/export").content
    cases: list[tuple[bytes, dict[str, Any], int, str]] = [
        (good[:-40], {"context": unique("c")}, 422, "line 4"),  # cut in its end line
        (good, {"context": unique("c"), "map": "nonsense"}, 422, "query.map[0]"),
        (good, {"context": unique("c"), "map": "org:x=org:y"}, 422, "query.map.org:x"),
        (good, {"context": context}, 409, "query.context"),
        (b"\xff\xfe", {"context": unique("c")}, 422, "body"),
    ]
    for body, params, status, path in cases:
        answer = client.post("/contexts/import", params=params, content=body)
        assert answer.status_code == status, (params, answer.text)
        assert path in [i["path"] for i in answer.json()["error"]["issues"]], answer.text
    missing = client.get(f"/contexts/{unique('nowhere')}/export")
    assert missing.status_code == 404
    assert missing.json()["error"]["issues"][0]["path"] == "path.context"


def test_http_serves_the_archive_line_schema(client: TestClient) -> None:
    got = client.get("/schemas/archive")
    assert got.status_code == 200 and got.headers["content-type"] == "application/json"
    assert got.json() == archive_schema()
    assert set(got.json()["$defs"]) == {"context", "paragraph", "source", "claim", "alias", "end"}
