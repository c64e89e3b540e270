"""`recall` and `explain_recall` through the official MCP client (in memory and over streamable
HTTP): the rendered, cited bundle and its id, structured items on request, the error bodies."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

from helpers import unique

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
QUESTION = "how do I remove limescale with vinegar?"


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "http"])
def test_recall_returns_the_rendered_bundle_and_its_id(
    svc: Tabane, user: Principal, context: str, transport: str
) -> None:
    doc = DocumentInput(source_id="kettle", paragraphs=[block(t) for t in KETTLE], title="Kettle")
    svc.ingest(user, context, doc)

    async def body(c: Client) -> None:
        got = await ok(c, "recall", {"question": QUESTION, "contexts": [context]})
        assert set(got) == {"recall_id", "rendered", "items"}
        listed = await ok(c, "list_presets", {})
        assert [p["name"] for p in listed["presets"]] == ["default"]
        assert isinstance(got["recall_id"], int) and got["items"] is None
        assert '"Kettle" (kettle), paragraph 1' in got["rendered"]
        assert "limescale" in got["rendered"] and "bm25" not in got["rendered"]
        stored = svc.recall_trace(user, got["recall_id"])
        assert stored["question"] == QUESTION and stored["user"] == user.name
        traced = await ok(c, "recall_trace", {"recall_id": got["recall_id"]})
        assert traced["question"] == QUESTION and traced["trace"] == stored["trace"]

        full = await ok(c, "recall", {"question": QUESTION, "contexts": [context], "items": True})
        first = full["items"][0]
        assert (first["citation"]["source"], first["citation"]["paragraph"]) == ("kettle", 1)
        assert first["provenance"] == "source excerpt"
        assert [s["name"] for s in first["scopes"]] == [f"user:{user.name}"]
        assert (first["kind"], first["fact"]) == ("paragraph", None)

        served = await ok(
            c,
            "explain_recall",
            {"question": QUESTION, "contexts": [context],
             "expected": {"source": "kettle", "paragraph": 1}},
        )  # fmt: skip
        assert served["verdict"] == "served" and served["key"] == first["key"]

        asked = {"question": "What does FailsafeMonitor watch?", "contexts": [context]}
        edges = [i for i in (await ok(c, "recall", {**asked, "items": True}))["items"]
                 if i["kind"] == "association"]  # fmt: skip
        assert [e["fact"] for e in edges] == [
            {"context": context, "perspective": "", "subject": "FailsafeMonitor",
             "label": "watches", "object": "BatteryMonitor", "negated": False}
        ]  # fmt: skip

    svc.add_claims(user, context, [ClaimInput("FailsafeMonitor", "watches", "BatteryMonitor", 1.0)])
    connect(svc, user, body, transport)


@pytest.mark.slow
def test_recall_errors_are_tool_errors_with_stable_codes(
    svc: Tabane, user: Principal, make_user, make_context, context: str
) -> None:
    stranger = make_user()
    theirs = make_context(stranger)
    secret = [block("Descale the kettle with vinegar to remove limescale.")]
    svc.ingest(stranger, theirs, DocumentInput(source_id="secret", paragraphs=secret))
    chat = unique("chat")
    svc.add_turn(stranger, chat, "hello")
    ask: dict[str, Any] = {"question": QUESTION, "contexts": [context]}

    async def body(c: Client) -> None:
        await err(c, "recall", {**ask, "question": " "}, "invalid_input", "question")
        await err(c, "recall", {**ask, "budget": 0}, "invalid_input", "budget")
        await err(c, "recall", {**ask, "preset": unique("p")}, "no_preset")
        await err(c, "recall", {**ask, "contexts": [unique("c")]}, "no_context")
        await err(c, "recall", {**ask, "session": chat}, "no_session")
        await err(c, "recall", {**ask, "user": "root"}, "invalid_input", "user")
        await err(c, "recall", {**ask, "plan": "no_graph"}, "invalid_input", "plan")
        await err(c, "recall", {**ask, "budget": True}, "invalid_input", "budget")
        await err(c, "recall", {**ask, "budget": "5"}, "invalid_input", "budget")
        await err(c, "recall", {**ask, "question": "a\x00b"}, "invalid_input", "question")
        await err(c, "remember", {"context": context, "text": "a\x00b"}, "invalid_input", "text")
        bad = {**ask, "contexts": [context, "a\x00"]}  # named down to the element
        await err(c, "recall", bad, "invalid_input", "contexts[1]")
        await err(
            c,
            "explain_recall",
            {**ask, "expected": {"claim": 2**70}},
            "invalid_input",
            "expected.claim",
        )
        nested = {**ask, "expected": {"source": "kettle", "paragraph": True}}
        await err(c, "explain_recall", nested, "invalid_input", "expected.paragraph")
        hidden = await ok(
            c, "explain_recall", {**ask, "expected": {"context": theirs, "source": "secret"}}
        )
        assert hidden["verdict"] == "not_visible"
        await err(c, "explain_recall", {**ask, "expected": {}}, "invalid_input", "expected")
        theirs_id = svc.recall(stranger, RecallRequest(QUESTION, (theirs,))).recall_id
        await err(c, "recall_trace", {"recall_id": theirs_id}, "no_trace")  # not yours
        for unknown in (0, 2**70):  # as over HTTP: an id that cannot exist is unknown
            await err(c, "recall_trace", {"recall_id": unknown}, "no_trace", "recall_id")
        await err(c, "recall_trace", {"recall_id": "7"}, "invalid_input", "recall_id")
        twice = {**ask, "contexts": [context, context], "expected": {"source": "kettle"}}
        assert (await ok(c, "explain_recall", twice))["verdict"] == "not_visible"  # not stored here

    connect(svc, user, body)


def test_the_protocol_teaches_recall_first() -> None:
    from tabane.mcp.server import protocol_text

    text = protocol_text()
    first = text.index("## 2. Recall first for any question")
    assert first < text.index("`search_passages`") and first < text.index("`query_graph`")
    assert "cite each item you use" in text and "ask `explain_recall`" in text


@pytest.mark.slow
def test_an_overview_is_followed_down_to_what_it_summarizes(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    texts = [
        "Espresso forces hot water through finely ground coffee at nine bars of pressure.",
        "Cold brew coffee steeps in cool water for a whole day before it is filtered.",
        "Store roasted coffee beans in an airtight tin away from light.",
        "The sailboat tacked into the wind to reach the harbour before the storm.",
        "A jib is the small sail at the front of a sailing boat, ahead of the mast.",
        "Reef the mainsail early when the wind rises above twenty knots.",
    ]
    doc = DocumentInput(source_id="notes.md", paragraphs=[block(t) for t in texts])
    vsvc.ingest(user, context, doc)
    vsvc.wait_for_jobs()
    built = vsvc.build_raptor(user, context)
    assert built.nodes
    node = vsvc.raptor_tree(user, context).nodes[0]
    args = {"context": context, "level": node.level, "ordinal": node.ordinal}

    async def body(c: Client) -> None:
        members = (await ok(c, "overview_members", args))["members"]
        expected = vsvc.raptor_members(user, context, node.level, node.ordinal)
        assert [m["ref"] for m in members] == [m.ref for m in expected]
        paragraphs = [m for m in members if m["kind"] == "paragraph"]
        assert paragraphs and all(m["source_id"] == "notes.md" for m in paragraphs)
        assert {m["text"] for m in paragraphs} <= set(texts)
        await err(c, "overview_members", {**args, "ordinal": 9999}, "no_node")
        await err(c, "overview_members", {**args, "level": -1}, "invalid_input", "level")
        await err(c, "overview_members", {**args, "context": unique("c")}, "no_context")

    connect(vsvc, user, body)
