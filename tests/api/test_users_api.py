"""`GET /users/{name}/export` and `DELETE /users/{name}`: JSON Lines out, counts back, only the
user themself or an admin, 403 with nothing changed for anyone else, 404 for an unknown user."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import PUBLIC, Principal, personal_scope
from tabane.service import Tabane

from helpers import unique


def _rows(response) -> list[dict]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/jsonl")
    return [json.loads(line) for line in response.text.splitlines()]


def _seed(svc: Tabane, who: Principal) -> str:
    ctx = unique("ctx")
    svc.create_context(who, ctx)
    svc.ingest(who, ctx, DocumentInput("notes", paragraphs=[block("Tea at eighty degrees.")]))
    svc.remember(who, ctx, {"text": "I like sencha."})
    svc.add_turn(who, "main", "hello")
    svc.create_key(who.name)
    return ctx


@pytest.mark.slow
def test_export_then_erase_round_trips_the_counts(
    svc: Tabane, client_for: Callable[[Principal], TestClient], make_user: Callable[..., Principal]
) -> None:
    x = make_user("x")
    _seed(svc, x)
    client = client_for(x)
    rows = _rows(client.get(f"/users/{x.name}/export"))
    counts = Counter(r["table"] for r in rows)
    assert counts["users"] == 1 and counts["claims"] == 1 and counts["session_turns"] == 1
    assert rows[0]["table"] in ("contexts", "groups", "scopes", "users")  # parents first
    erased = client.delete(f"/users/{x.name}")
    assert erased.status_code == 200, erased.text
    body = erased.json()
    assert {t: n for t, n in body["deleted"].items() if n} == dict(counts)
    assert body["total"] == len(rows) and body["user"] == x.name
    assert {"claims", "session_turns", "users"} <= set(body["vacuumed"])
    gone = client.get(f"/users/{x.name}/export")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "no_user"


@pytest.mark.slow
def test_someone_else_is_refused_and_nothing_changes(
    svc: Tabane, client_for: Callable[[Principal], TestClient], make_user: Callable[..., Principal]
) -> None:
    x, y = make_user("x"), make_user("y")
    _seed(svc, x)
    before = list(svc.export_user(x.name))
    other = client_for(y)
    for response in (other.delete(f"/users/{x.name}"), other.get(f"/users/{x.name}/export")):
        assert response.status_code == 403, response.text
        error = response.json()["error"]
        assert error["code"] == "forbidden" and error["written"] == "nothing"
    assert list(svc.export_user(x.name)) == before


@pytest.mark.slow
def test_an_admin_may_and_an_unknown_user_is_404(
    svc: Tabane, client_for: Callable[[Principal], TestClient], make_user: Callable[..., Principal]
) -> None:
    x = make_user("x")
    _seed(svc, x)
    admin = make_user("a", extra_write=(personal_scope(x.name), PUBLIC))
    client = client_for(admin)
    missing = client.delete(f"/users/{unique('nobody')}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_user"
    assert _rows(client.get(f"/users/{x.name}/export"))
    assert client.delete(f"/users/{x.name}").json()["deleted"]["users"] == 1
