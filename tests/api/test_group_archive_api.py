"""A group's archive over real HTTP: `GET /groups/{g}/export` streams the group, the groups under
it and each context they reach; `POST /groups/import` makes them anew (with a prefix), in one
transaction; a refusal names the line in the whole archive or the `prefix` to change."""

from __future__ import annotations

import json

import httpx
import pytest

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique

pytestmark = pytest.mark.slow  # a served app and two imports
JSONL = {"content-type": "application/jsonl"}


def _group(svc: Tabane, user: Principal) -> tuple[str, list[str]]:
    a, b = unique("ga"), unique("gb")
    for name in (a, b):
        svc.create_context(user, name, description=f"about {name}")
        svc.ingest(
            user, name, DocumentInput("doc.md", data=f"# {name}\n\nText of {name}.".encode())
        )
    svc.add_claims(user, a, [ClaimInput("x", "to", "y", 1.0, source="doc.md", paragraph=0)])
    child, top = unique("child"), unique("top")
    svc.create_group(user, child, contexts=[b])
    svc.create_group(user, top, description="both", contexts=[a], groups=[child])
    return top, [a, b]


def test_a_group_travels_with_its_contexts(
    svc: Tabane, user: Principal, http: dict[str, httpx.Client]
) -> None:
    top, (a, b) = _group(svc, user)
    me = http["me"]
    got = me.get(f"/groups/{top}/export")
    assert got.status_code == 200, got.text
    lines = got.text.split("\n")
    head = json.loads(lines[0])
    assert head["group"] == top and head["groups"][0]["name"] == top
    assert [
        json.loads(x)["context"]["name"] for x in lines if x.startswith('{"tabane_archive"')
    ] == [a, b]

    made = me.post("/groups/import", params={"prefix": "copy-"}, content=got.content, headers=JSONL)
    assert made.status_code == 201, made.text
    report = made.json()
    assert report["group"] == f"copy-{top}" and report["groups"][-1] == f"copy-{top}"
    assert [c["context"] for c in report["contexts"]] == [f"copy-{a}", f"copy-{b}"]
    assert report["contexts"][0]["claims"] == 1
    copied = svc.get_group(user, f"copy-{top}")
    assert copied.contexts == (f"copy-{a}",) and copied.description == "both"
    assert svc.get_group(user, copied.groups[0]).contexts == (f"copy-{b}",)

    again = me.post(
        "/groups/import", params={"prefix": "copy-"}, content=got.content, headers=JSONL
    )
    error = again.json()["error"]
    assert again.status_code == 409 and error["code"] == "name_taken", error
    assert error["written"] == "nothing" and [i["path"] for i in error["issues"]] == [
        "query.prefix"
    ]


def test_a_bad_line_is_named_in_the_whole_archive(
    svc: Tabane, user: Principal, http: dict[str, httpx.Client]
) -> None:
    top, _ = _group(svc, user)
    lines = http["me"].get(f"/groups/{top}/export").text.split("\n")
    n = max(i for i, x in enumerate(lines) if x.startswith('{"claim"'))
    lines[n] = lines[n].replace('"weight":1.0', '"weight":"heavy"')
    bad = http["me"].post(
        "/groups/import", params={"prefix": "bad-"}, content="\n".join(lines), headers=JSONL
    )
    error = bad.json()["error"]
    assert bad.status_code == 422 and error["code"] == "invalid_input", error
    assert any(i["path"].startswith(f"line {n + 1}.claim.weight") for i in error["issues"]), error
    head = http["me"].post("/groups/import", content=lines[1] + "\n", headers=JSONL)
    assert head.json()["error"]["issues"][0]["path"].startswith("line 1")
    hidden = http["other"].get(f"/groups/{top}/export")
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "no_group"
