"""The graph read tools through the official SDK client, in process."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_client import connect, ok, refused

from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

READS = (
    "query_graph",
    "describe_concept",
    "activate",
    "explore",
    "find_paths",
    "unreachable_from",
    "list_labels",
    "cite_association",
)


def seed(svc: Tabane, user: Principal, context: str) -> None:
    svc.ingest(
        user,
        context,
        DocumentInput(
            source_id="paper", paragraphs=[block("Stress causes insomnia.", ["Results"])]
        ),
    )
    claims = [
        {"subject": "stress", "label": "causes", "object": "insomnia", "weight": 1.0,
         "source": "paper", "paragraph": 0},
        {"subject": "caffeine", "label": "causes", "object": "insomnia", "weight": -0.8},
        {"subject": "insomnia", "label": "causes", "object": "fatigue", "weight": 0.6},
        {"subject": "island", "label": "r", "object": "isle", "weight": 1.0},
    ]  # fmt: skip
    svc.add_claims(user, context, parse_claims(claims))


def test_descriptions_teach_the_reads(svc: Tabane, user: Principal) -> None:
    async def body(c: Client) -> None:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        for name in READS:
            assert listed[name].annotations.read_only_hint, name
        query = listed["query_graph"].description
        assert "Resolve every cue" in query and "Why X?" in query
        assert "negative" in query and "next_step" in query and "never by explore" in query
        assert "Hop distance is not order" in listed["explore"].description
        assert "capped" in listed["find_paths"].description
        assert "never asserted" in listed["activate"].description
        props = listed["query_graph"].input_schema["properties"]
        assert {"contexts", "groups", "any", "subject", "after"} <= set(props)

    connect(svc, user, body)


@pytest.mark.slow
def test_every_read_tool_round_trips(svc: Tabane, user: Principal, context: str) -> None:
    seed(svc, user, context)

    async def body(c: Client) -> None:
        why = await ok(
            c, "query_graph", {"contexts": [context], "label": ["causes"], "object": "insomnia"}
        )
        assert [(e["subject"], e["weight"]) for e in why["edges"]] == [
            ("stress", 1.0),
            ("caffeine", -0.8),
        ]
        assert why["edges"][0]["attributions"][0]["section"] == ["Results"]
        d = await ok(c, "describe_concept", {"context": context, "concept": "insomnia"})
        assert d["degree"] == 3
        a = await ok(c, "activate", {"context": context, "origins": ["stress"], "limit": 3})
        assert [x["concept"] for x in a["concepts"]] == ["insomnia", "caffeine", "fatigue"]
        assert a["concepts"][2]["via"] == ["stress", "insomnia", "fatigue"]
        e = await ok(c, "explore", {"context": context, "origins": "stress", "depth": 1})
        assert e["concepts"] == [{"concept": "insomnia", "distance": 1}]
        p = await ok(
            c, "find_paths", {"context": context, "origins": "stress", "targets": "fatigue"}
        )
        assert p["paths"][0]["concepts"] == ["stress", "insomnia", "fatigue"]
        u = await ok(c, "unreachable_from", {"context": context, "origin": "stress"})
        assert u["concepts"] == ["island", "isle"]
        labels = await ok(c, "list_labels", {"context": context})
        assert [x["label"] for x in labels["labels"]] == ["causes", "r"]
        cited = await ok(
            c,
            "cite_association",
            {"context": context, "subject": "stress", "label": "causes", "object": "insomnia"},
        )
        assert cited["associations"][0]["citations"][0]["text"] == "Stress causes insomnia."
        bad = await refused(c, "activate", {"context": context, "origins": ["nope"]})
        assert bad["code"] == "no_concept" and bad["issues"][0]["path"] == "origins[0]"
        bad = await refused(c, "explore", {"context": context, "origins": "stress", "depth": 11})
        assert bad["code"] == "invalid_input" and bad["issues"][0]["path"] == "depth"
        bad = await refused(c, "query_graph", {"contexts": [context], "object": ["x", True]})
        assert [(i["path"], i["problem"]) for i in bad["issues"]] == [
            ("object[1]", "a spelling must be a string, not a boolean")
        ]
        bad = await refused(c, "query_graph", {"any": "stress"})
        assert bad["code"] == "invalid_input"

    connect(svc, user, body)


def test_query_graph_keeps_retracted_edges_at_zero(
    svc: Tabane, user: Principal, context: str
) -> None:
    """Weights drop, edges stay (issue 35), through the MCP client; weights read rounded."""
    claims = [
        {"subject": "tea", "label": "warms", "object": "you", "weight": 0.1},
        {"subject": "tea", "label": "warms", "object": "you", "weight": 0.2},
        {"subject": "tea", "label": "cools", "object": "you", "weight": 0.5},
    ]
    svc.add_claims(user, context, parse_claims(claims))
    svc.retract_associations(user, context, [("tea", "cools", "you", None, None)])

    async def body(c: Client) -> None:
        got = await ok(c, "query_graph", {"contexts": [context], "subject": "tea"})
        assert [(e["label"], e["weight"]) for e in got["edges"]] == [("warms", 0.3), ("cools", 0)]
        assert got["edges"][1]["attributions"][0]["close_reason"] == "retracted"
        live = await ok(
            c, "query_graph", {"contexts": [context], "subject": "tea", "include_retracted": False}
        )
        assert [e["label"] for e in live["edges"]] == ["warms"]

    connect(svc, user, body)
