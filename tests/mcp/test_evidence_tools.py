"""`assemble_evidence` and `retrieve` through the official MCP client: recall's items as data
with their ranks and lanes, origins resolved to anchors, and the error body on bad input."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
]


@pytest.mark.slow
def test_evidence_and_retrieve_over_mcp(svc: Tabane, user: Principal, context: str) -> None:
    doc = DocumentInput(source_id="kettle", paragraphs=[block(t) for t in KETTLE], title="Kettle")
    svc.ingest(user, context, doc)
    svc.add_claims(user, context, [ClaimInput("Kettle", "descaled_with", "Vinegar", 1.0)])
    ask = {"question": "how do I remove limescale?", "contexts": [context]}

    async def body(c: Client) -> None:
        recalled = await ok(c, "recall", {**ask, "items": True})
        got = await ok(c, "assemble_evidence", ask)
        assert [i["key"] for i in got["items"]] == [i["key"] for i in recalled["items"]]
        assert got["items"][0]["rank"] == 1 and got["items"][0]["lanes"]
        assert got["rendered"] == recalled["rendered"]

        found = await ok(c, "retrieve", {"context": context, "origins": ["Kettle"]})
        assert found["anchors"][0]["concept"] == "Kettle"
        assert found["anchors"][0]["match"] == "exact"
        assert any(i["fact"]["label"] == "descaled_with" for i in found["associations"])
        verbatim = await ok(
            c, "retrieve", {"context": context, "origins": ["kettel"], "auto_pick": False}
        )
        assert verbatim["anchors"][0]["concept"] is None and verbatim["question"] == "kettel"
        await err(
            c, "retrieve", {"context": context, "origins": [" "]}, "invalid_input", "origins[0]"
        )
        await err(c, "assemble_evidence", {"question": ""}, "invalid_input", "question")

    connect(svc, user, body)
