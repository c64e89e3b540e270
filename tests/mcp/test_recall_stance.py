"""A served claim carries whose view it is — its epistemic kind, the author's role and the
perspective key — on the wire (MCP in memory and over streamable HTTP, and HTTP's `/recall`),
and the rendered bundle says it (issue 34, item 8)."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client
from mcp_client import connect, ok

from tabane.api.app import create_app
from tabane.graph.claims.parse import ClaimInput
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

QUESTION = "what does everyone think of the espresso machine?"


@pytest.mark.parametrize("transport", ["memory", "http"])
def test_a_served_claim_says_whose_view_it_is(
    vsvc: Tabane, user: Principal, context: str, transport: str
) -> None:
    vsvc.add_claims(
        user,
        context,
        [
            ClaimInput(None, None, None, None, statement="The espresso machine is too loud.",
                       author="hana", role="barista", kind="opinion"),
            ClaimInput(None, None, None, None, statement="The espresso machine uses 15 bar.",
                       author="ken", role="technician", kind="world"),
        ],
    )  # fmt: skip
    vsvc.wait_for_jobs()  # the claims lane reads the notes' vectors

    async def body(c: Client) -> None:
        got = await ok(c, "recall", {"question": QUESTION, "contexts": [context], "items": True})
        claims = {it["text"]: it for it in got["items"] if it["kind"] == "claim"}
        assert claims, got["rendered"]
        loud = claims["The espresso machine is too loud."]
        assert loud["stance"] == {"kind": "opinion", "role": "barista", "perspective": "hana"}
        bar = claims["The espresso machine uses 15 bar."]
        assert bar["stance"] == {"kind": "world", "role": "technician", "perspective": ""}
        assert "opinion of hana (barista)" in got["rendered"]
        assert "world, by ken (technician)" in got["rendered"]

    connect(vsvc, user, body, transport)


def test_http_recall_carries_the_stance(vsvc: Tabane, user: Principal, context: str) -> None:
    vsvc.add_claims(
        user,
        context,
        [ClaimInput(None, None, None, None, statement="The espresso machine is too loud.",
                    author="hana", kind="opinion")],
    )  # fmt: skip
    vsvc.wait_for_jobs()
    with serve(create_app(vsvc, lambda request: user)) as url:
        got = httpx.post(f"{url}/recall", json={"question": QUESTION, "contexts": [context]})
    assert got.status_code == 200, got.text
    [claim] = [it for it in got.json()["items"] if it["kind"] == "claim"]
    assert claim["stance"] == {"kind": "opinion", "perspective": "hana", "role": None}
    assert "opinion of hana" in got.json()["rendered"]
