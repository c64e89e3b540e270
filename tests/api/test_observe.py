"""A request's id: taken from a valid `X-Request-Id` or made, answered in the header, set as
PostgreSQL's `application_name` for the request's transactions (and gone after it), and logged
in the request's one line — which never holds the question or a credential."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.api.logs import JsonFormatter, TextFormatter
from tabane.principal import Principal
from tabane.service import Tabane


def probed_app(svc: Tabane, who: Principal) -> TestClient:
    """The real app with one more route that reads the session's application_name, as the
    caller's transaction and as the owner's, and as pg_stat_activity shows this backend."""
    app = create_app(svc, principal=lambda request: who)

    def probe() -> dict[str, str]:
        mine = "SELECT current_setting('application_name') AS name, (SELECT application_name "
        mine += "FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS shown"
        with svc.store.session(who) as session:
            row = session.execute(text(mine)).one()
        with svc.store.admin() as session:
            owner = session.execute(text("SELECT current_setting('application_name')")).scalar()
        return {"name": row.name, "shown": row.shown, "owner": str(owner)}

    app.add_api_route("/probe", probe)
    return TestClient(app)


def test_a_valid_request_id_names_the_request_in_postgresql(svc: Tabane, user: Principal) -> None:
    client = probed_app(svc, user)
    response = client.get("/probe", headers={"x-request-id": "trace-42.a_b"})
    assert response.headers["x-request-id"] == "trace-42.a_b"
    assert response.json() == {
        "name": "tabane req=trace-42.a_b",
        "shown": "tabane req=trace-42.a_b",
        "owner": "tabane req=trace-42.a_b",
    }
    with svc.store.session(user) as session:  # outside a request: the pooled connection's own
        after = session.execute(text("SELECT current_setting('application_name')")).scalar()
    assert after is not None and "req=" not in after


@pytest.mark.parametrize("given", ["has space", "x" * 65, "semi;colon", "ünï".encode(), ""])
def test_an_invalid_request_id_is_replaced(
    svc: Tabane, user: Principal, given: str | bytes
) -> None:
    client = probed_app(svc, user)
    response = client.get("/probe", headers={"x-request-id": given})
    rid = response.headers["x-request-id"]
    assert rid != given and len(rid) == 32 and int(rid, 16) >= 0
    assert response.json()["name"] == f"tabane req={rid}"


def test_every_answer_carries_an_id_even_a_refusal(svc: Tabane) -> None:
    client = TestClient(create_app(svc, key_resolver(svc)))
    first = client.get("/contexts").headers["x-request-id"]
    second = client.get("/contexts").headers["x-request-id"]
    assert first != second


def test_one_log_line_per_request_without_the_question_or_the_key(
    svc: Tabane, make_user, context: str, user: Principal, caplog: pytest.LogCaptureFixture
) -> None:
    svc.grant(user.name, f"user:{user.name}", write=True)
    token = svc.create_key(user.name).token
    client = TestClient(create_app(svc, key_resolver(svc)))
    question = "where did the lighthouse keeper hide the brass key"
    with caplog.at_level(logging.INFO, logger="tabane.http"):
        answer = client.post(
            f"/contexts/{context}/sources/search",
            json={"query": question},
            headers={"authorization": f"Bearer {token}", "x-request-id": "req-1"},
        )
    assert answer.status_code == 200, answer.text
    [record] = [r for r in caplog.records if r.name == "tabane.http"]
    line = json.loads(JsonFormatter().format(record))
    assert {k: line[k] for k in ("method", "route", "status", "request_id", "user")} == {
        "method": "POST",
        "route": "/contexts/{context}/sources/search",
        "status": 200,
        "request_id": "req-1",
        "user": user.name,
    }
    assert line["key"] == token[4:12] and line["duration_ms"] > 0
    for shown in (json.dumps(line), TextFormatter().format(record)):
        assert "lighthouse" not in shown and token not in shown and context not in shown


def test_a_json_line_holds_a_record_and_its_extra_fields_and_nothing_else() -> None:
    record = logging.LogRecord("uvicorn.error", logging.INFO, "f.py", 1, "Started %d", (7,), None)
    record.color_message = "Started \x1b[36m%d\x1b[0m"  # uvicorn's own extra
    record.request_id = "r1"
    line = json.loads(JsonFormatter().format(record))
    assert set(line) == {"ts", "level", "logger", "message", "request_id"}
    assert (line["level"], line["message"], line["request_id"]) == ("info", "Started 7", "r1")
    assert line["ts"].endswith("+00:00")
