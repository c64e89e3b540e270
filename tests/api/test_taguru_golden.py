"""Taguru's forms of tabane's routes against golden request/response fixtures, over real HTTP
(uvicorn on a free port, httpx): `PUT /contexts/{c}`, `PUT /groups/{g}`, Taguru's cue recall
`POST /contexts/{c}/recall` and `DELETE /contexts/{c}/aliases` with a body (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tabane.api.app import create_app
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve, unique

GOLDEN = Path(__file__).parent / "golden" / "taguru_routes.json"
PROCEDURE = [  # the seed's procedure example (seed 003, "Procedures")
    ("日本酒の醸造", "最初の工程", "洗米"),
    ("洗米", "次の工程", "浸漬"),
    ("日本酒の醸造", "工程", "洗米"),
]


def filled(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        for key, name in names.items():
            value = value.replace("{" + key + "}", name)
        return value
    if isinstance(value, list):
        return [filled(v, names) for v in value]
    if isinstance(value, dict):
        return {k: filled(v, names) for k, v in value.items()}
    return value


def matches(got: Any, want: Any, where: str = "") -> None:
    """`want`'s keys match exactly; lists match in length and order; other keys are free."""
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{where}: {got!r}"
        for key, value in want.items():
            assert key in got, f"{where}.{key} missing from {got!r}"
            matches(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            matches(g, w, f"{where}[{i}]")
    else:
        assert got == want and type(got) is type(want), f"{where}: {got!r} != {want!r}"


@pytest.mark.slow
def replay(client: httpx.Client, step: dict[str, Any]) -> httpx.Response:
    """Send one fixture step's request; its answer must match the step's status and response."""
    request = step["request"]
    body = None if "body" not in request else json.dumps(request["body"])
    headers = {"content-type": "application/json"} if "body" in request else {}
    if "lines" in request:  # a JSON Lines body (Taguru's batch stream)
        body = "\n".join(json.dumps(line, ensure_ascii=False) for line in request["lines"])
        headers = {"content-type": "application/jsonl"}
    sent = client.request(
        request["method"],
        request["path"],
        content=body,
        headers=request.get("headers", headers),
    )
    assert sent.status_code == step["status"], (step["name"], sent.text)
    if "lines" in step:  # a JSON Lines stream (an export)
        matches([json.loads(line) for line in sent.text.splitlines()], step["lines"], step["name"])
        return sent
    if "text" in step:  # a bare text answer (`/live`, `/protocol`, `/metrics`)
        assert step["text"] in sent.text, (step["name"], sent.text[:200])
        return sent
    matches(sent.json(), step["response"], step["name"])
    return sent


def kept(answer: httpx.Response, step: dict[str, Any]) -> dict[str, str]:
    """The values a step keeps for later steps (`keep`: name → dotted path in its answer), such
    as a change feed's cursor."""
    out = {}
    for name, path in step.get("keep", {}).items():
        value = answer.json()
        for part in path.split("."):
            value = value[part]
        out[name] = value
    return out


def test_taguru_routes_answer_as_the_golden_fixtures(svc: Tabane, user: Principal) -> None:
    fixture = json.loads(GOLDEN.read_text())
    names = {"context": unique("tg"), "group": unique("tgg")}
    app = create_app(svc, principal=lambda request: user)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        for step in filled(fixture["steps"], names):
            if step["name"] == "recall":
                claims = [
                    {"subject": s, "label": lb, "object": o, "weight": 1.0, "source": "工程書"}
                    for s, lb, o in PROCEDURE
                ]
                svc.add_claims(user, names["context"], parse_claims(claims))
            replay(client, step)


WIRE = Path(__file__).parent / "golden" / "taguru_wire.json"


@pytest.mark.slow
def test_taguru_wire_answers_as_the_golden_fixtures(svc: Tabane, user: Principal) -> None:
    """A Taguru client pointed at `…/taguru` (decisions 0023, 0027): each step as Taguru's
    protocol text writes it, its envelope and its error shape; a step may keep a value of its
    answer (a cursor) for the steps after it."""
    fixture = json.loads(WIRE.read_text())
    names = {"context": unique("tw"), "group": unique("twg")}
    # Fifty steps in a row: the session's rate limits (20 a second) are not what this checks.
    app = create_app(svc, principal=lambda request: user, limiter=RateLimiter(RateLimits()))
    with serve(app) as url, httpx.Client(base_url=f"{url}/taguru", timeout=60) as client:
        for step in fixture["steps"]:
            names |= kept(replay(client, filled(step, names)), step)
