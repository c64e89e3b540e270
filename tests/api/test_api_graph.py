"""The graph writes over HTTP: claim batches, association retraction, aliases and `/protocol`;
bad numbers over a real socket; nothing written by a refused batch (read back from the store)."""

from __future__ import annotations

import json

import httpx
from sqlalchemy import func, select

from tabane.api.app import create_app
from tabane.errors import all_error_classes
from tabane.ingest.documents import DocumentInput
from tabane.mcp.server import protocol_text
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Association, Claim, Context, VocabEntry

from helpers import serve

JSON = {"content-type": "application/json"}
GOOD_EDGE = {"subject": "stress", "label": "causes", "object": "insomnia"}
GOOD = GOOD_EDGE | {"weight": 1.0}


def error(response, status: int, code: str, *paths: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["error"]
    err = body["error"]
    assert list(err) == ["code", "message", "issues", "written"]
    assert err["code"] == code, err
    assert err["written"] == "nothing"
    got = {i["path"] for i in err["issues"]}
    assert set(paths) <= got, err
    return err


def counts(svc: Tabane, user: Principal, context: str) -> tuple[int, int, float]:
    """(open claims, concept spellings, summed net weight) of a context, read from the store."""
    with svc.store.session(user) as session:
        cid = session.scalar(select(Context.id).where(Context.name == context))
        claims = session.scalar(
            select(func.count()).where(Claim.context_id == cid, Claim.closed_at.is_(None))
        )
        concepts = session.scalar(
            select(func.count()).where(
                VocabEntry.context_id == cid,
                VocabEntry.kind == "concept",
                VocabEntry.alias_of.is_(None),
            )
        )
        weight = session.scalar(
            select(func.coalesce(func.sum(Association.weight), 0.0)).where(
                Association.context_id == cid
            )
        )
    return int(claims or 0), int(concepts or 0), float(weight or 0.0)


def add(client, context: str, *items: dict, **extra: object):
    return client.post(
        f"/contexts/{context}/associations", json={"associations": list(items), **extra}
    )


def test_batch_reports_ids_minted_spellings_and_aliases(svc, user, client, context) -> None:
    response = add(client, context, GOOD, GOOD | {"weight": 0.5})
    assert response.status_code == 201, response.text
    report = response.json()
    assert set(report) == {
        "claims", "associations", "minted_concepts", "minted_labels", "aliased", "closed"
    }  # fmt: skip
    assert len(report["claims"]) == 2 and report["associations"] == 1
    assert report["minted_concepts"] == ["insomnia", "stress"]
    assert report["minted_labels"] == ["causes"]
    assert (report["aliased"], report["closed"]) == ({}, 0)
    assert counts(svc, user, context) == (2, 2, 1.5)

    alias = client.post(
        f"/contexts/{context}/aliases", json={"alias": "tension", "target": "stress"}
    )
    assert alias.status_code == 201, alias.text
    again = add(client, context, GOOD | {"subject": "tension", "closes": [report["claims"][0]]})
    assert again.status_code == 201, again.text
    body = again.json()
    assert body["aliased"] == {"tension": "stress"}
    assert (body["minted_concepts"], body["minted_labels"], body["closed"]) == ([], [], 1)
    assert counts(svc, user, context) == (2, 2, 1.5)  # 1.0 closed, 1.0 added through the alias


def test_attribution_and_scopes(svc, user, client, context, make_user) -> None:
    svc.ingest(user, context, DocumentInput(source_id="doc", data=b"one\n\ntwo", format="text"))
    ok = add(client, context, GOOD | {"source": "doc", "paragraph": 1, "statement": "Stress..."})
    assert ok.status_code == 201, ok.text
    err = error(
        add(client, context, GOOD | {"source": "doc", "paragraph": 2}),
        422,
        "invalid_input",
        "body.associations[0].paragraph",
    )
    assert "2 paragraphs" in err["issues"][0]["problem"]
    error(add(client, context, GOOD, scopes=["org:nobody-writes-this"]), 403, "forbidden")
    assert counts(svc, user, context)[0] == 1


def test_bad_batches_name_every_problem_and_write_nothing(svc, user, client, context) -> None:
    items = [GOOD] * 20
    items[3] = GOOD | {"weight": 2e6}
    items[5] = GOOD | {"subject": " "}
    items[7] = {k: v for k, v in GOOD.items() if k != "label"}
    items[11] = GOOD | {"kind": "rumour", "x": 1}
    items[13] = GOOD | {"valid_from": "yesterday-ish"}
    items[17] = "not an object"
    err = error(
        add(client, context, *items),
        422,
        "invalid_input",
        "body.associations[3].weight",
        "body.associations[5].subject",
        "body.associations[7].label",
        "body.associations[11].kind",
        "body.associations[11].x",
        "body.associations[13].valid_from",
        "body.associations[17]",
    )
    assert all(i["path"].startswith("body.associations[") for i in err["issues"])
    error(add(client, context), 422, "invalid_input", "body.associations")
    error(
        client.post(f"/contexts/{context}/associations", json={"associations": GOOD}),
        422,
        "invalid_input",
        "body.associations",
    )
    error(
        client.post(f"/contexts/{context}/associations", json={"associations": [GOOD], "u": 1}),
        422,
        "invalid_input",
        "body.u",
    )
    assert counts(svc, user, context) == (0, 0, 0.0)


def test_too_large_a_batch_is_refused_whole(svc, user, client, context) -> None:
    small = {"subject": "a", "label": "b", "object": "c", "weight": 1}
    err = error(add(client, context, *[small] * 10_001), 422, "invalid_input", "body.associations")
    assert err["issues"] == [{"path": "body.associations", "problem": "10001 > 10000 claims"}]
    assert counts(svc, user, context) == (0, 0, 0.0)
    full = add(client, context, *[small] * 10_000)
    assert full.status_code == 201, full.text
    assert counts(svc, user, context) == (10_000, 2, 10_000.0)


def test_bad_numbers_over_a_real_socket(svc, user, context) -> None:
    """1e400 parses to infinity, NaN is not JSON but Python's parser takes it; strings and
    booleans are not numbers. Each is refused with its path and nothing is written."""
    app = create_app(svc, principal=lambda request: user)
    url_path = f"/contexts/{context}/associations"
    cases = {
        b"1e400": "not finite",
        b"-1e400": "not finite",
        b"NaN": "not finite",
        b"Infinity": "not finite",
        b'"1.0"': "not a number",
        b"true": "not a number",
        b"null": "missing",
    }
    with serve(app) as url, httpx.Client(base_url=url) as http:
        for raw, problem in cases.items():
            body = b'{"associations": [{"subject": "a", "label": "b", "object": "c", "weight": '
            response = http.post(url_path, content=body + raw + b"}]}", headers=JSON)
            err = error(response, 422, "invalid_input", "body.associations[0].weight")
            assert err["issues"] == [{"path": "body.associations[0].weight", "problem": problem}], (
                raw
            )
        error(http.post(url_path, content=b'{"associations": [', headers=JSON), 400, "invalid_json")
        ok = http.post(url_path, json={"associations": [GOOD | {"weight": -1e6}]})
        assert ok.status_code == 201, ok.text
    assert counts(svc, user, context) == (1, 2, -1e6)


def test_unknown_context_and_reader_without_write(
    svc, client, client_for, make_user, make_context
) -> None:
    error(add(client, "no-such-context", GOOD), 404, "no_context")
    owner = make_user("owner", extra_write=("org:graphteam",))
    reader = make_user("reader", extra_read=("org:graphteam",))
    team = make_context(owner, scopes=["org:graphteam"])
    written = add(client_for(owner), team, GOOD)
    assert written.status_code == 201, written.text
    as_reader = client_for(reader)
    error(
        as_reader.post(f"/contexts/{team}/associations", json={"associations": [GOOD]}),
        403,
        "forbidden",
    )
    error(
        as_reader.post(
            f"/contexts/{team}/associations/retract", json={"associations": [GOOD_EDGE]}
        ),
        403,
        "forbidden",
        "body.associations",  # the request's own field, as every issue names one
    )
    assert counts(svc, owner, team) == (1, 2, 1.0)


def test_retract_associations_dry_run_then_for_real(svc, user, client, context) -> None:
    svc.ingest(user, context, DocumentInput(source_id="doc", data=b"one", format="text"))
    add(client, context, GOOD | {"source": "doc"}, GOOD, GOOD | {"object": "fatigue"})
    url = f"/contexts/{context}/associations/retract"
    dry = client.post(url, json={"associations": [GOOD_EDGE], "dry_run": True})
    assert dry.status_code == 200, dry.text
    assert dry.json() == {"claims": 2, "associations": 1, "dry_run": True}
    assert counts(svc, user, context) == (3, 3, 3.0)
    one = client.post(url, json={"associations": [GOOD_EDGE | {"source": "doc"}]})
    assert one.json() == {"claims": 1, "associations": 1, "dry_run": False}
    rest = client.post(url, json={"associations": [GOOD_EDGE]}).json()
    assert rest == {"claims": 1, "associations": 1, "dry_run": False}
    assert client.post(url, json={"associations": [GOOD_EDGE]}).json()["claims"] == 0
    assert counts(svc, user, context) == (1, 3, 1.0)  # concepts and edges stay

    error(client.post(url, json={"associations": []}), 422, "invalid_input", "body.associations")
    error(
        client.post(url, json={"associations": [GOOD_EDGE | {"label": ""}]}),
        422,
        "invalid_input",
        "body.associations[0].label",
    )
    error(
        client.post(url, json={"associations": [GOOD_EDGE | {"weight": 1}]}),
        422,
        "invalid_input",
        "body.associations[0].weight",
    )
    nowhere = client.post("/contexts/nowhere/associations/retract", json={"associations": [GOOD]})
    error(nowhere, 422, "invalid_input", "body.associations[0].weight")
    nowhere = client.post("/contexts/nowhere/associations/retract", json={"associations": [
        GOOD_EDGE]})  # fmt: skip
    error(nowhere, 404, "no_context")


def test_aliases_add_list_conflict_and_remove(svc, user, client, context) -> None:
    add(client, context, GOOD)
    base = f"/contexts/{context}/aliases"
    made = client.post(base, json={"alias": "tension", "target": "stress"})
    assert made.status_code == 201, made.text
    assert made.json() == {
        "alias": "tension",
        "target": "stress",
        "kind": "concept",
        "scopes": [f"user:{user.name}"],
        "created": True,
    }
    same = client.post(base, json={"alias": "tension", "target": "stress"})
    assert same.status_code == 200 and same.json()["created"] is False
    label = client.post(base, json={"alias": "leads to", "target": "causes", "kind": "label"})
    assert label.status_code == 201, label.text

    listed = client.get(base).json()["aliases"]
    assert [(a["kind"], a["alias"], a["target"]) for a in listed] == [
        ("concept", "tension", "stress"),
        ("label", "leads to", "causes"),
    ]
    only = client.get(base, params={"kind": "label"}).json()["aliases"]
    assert [a["alias"] for a in only] == ["leads to"]
    error(client.get(base, params={"kind": "edge"}), 422, "invalid_input", "query.kind")

    err = error(
        client.post(base, json={"alias": "insomnia", "target": "stress"}),
        409,
        "alias_conflict",
        "body.alias",
    )
    assert "existing" in err["message"]
    error(client.post(base, json={"alias": "tension", "target": "insomnia"}), 409, "alias_conflict")
    error(
        client.post(base, json={"alias": "x", "target": "nothing"}),
        404,
        "no_concept",
        "body.target",
    )
    error(
        client.post(base, json={"alias": " ", "target": "stress"}),
        422,
        "invalid_input",
        "body.alias",
    )
    error(
        client.post(base, json={"alias": "t", "target": "stress", "scopes": ["org:not-mine"]}),
        403,
        "forbidden",
    )

    removed = client.delete(f"{base}/tension")
    assert removed.status_code == 200, removed.text
    assert removed.json() == {"alias": "tension", "kind": "concept", "removed": 1}
    error(client.delete(f"{base}/tension"), 404, "not_found", "path.alias")
    error(client.delete(f"{base}/leads to"), 404, "not_found")  # it is a label alias
    assert client.delete(f"{base}/leads to", params={"kind": "label"}).json()["removed"] == 1
    assert client.get(base).json() == {"aliases": []}
    error(client.get("/contexts/nowhere/aliases"), 404, "no_context")


def test_protocol_is_served_as_markdown(svc, client) -> None:
    response = client.get("/protocol")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/markdown")
    assert response.text == protocol_text()
    assert "resolve before" in response.text.lower()
    codes = {cls.code for cls in all_error_classes()}
    assert all(f"`{code}`" in response.text for code in codes)
    spec = create_app(svc).openapi()
    for path in ("/contexts/{context}/associations", "/contexts/{context}/aliases", "/protocol"):
        assert path in spec["paths"]
    items = spec["paths"]["/contexts/{context}/associations"]["post"]
    assert json.dumps(items)  # documented, with an error body
