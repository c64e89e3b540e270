"""search_passages and explain_search through the official SDK client, in process."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp_client import connect, ok, refused

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

TEXTS = [
    "The kettle boils water quickly.",
    "Descale the kettle element monthly.",
    "A kettle note.",
    "Gardening is not about kettles at all.",
]


def store(svc: Tabane, user: Principal, context: str) -> None:
    svc.ingest(
        user,
        context,
        DocumentInput(
            source_id="kettle",
            paragraphs=[block(t) for t in TEXTS],
            questions=[[], ["How do I get rid of limescale?"], [], []],
            tags=["home"],
        ),
    )


def test_descriptions_teach_the_discipline(svc: Tabane, user: Principal) -> None:
    async def body(c: Client) -> None:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        search = listed["search_passages"]
        assert "ANSWER you expect" in search.description
        assert "not the question" in search.description
        assert "plan" in search.description and "via_question" in search.description
        assert "no_vectors" in search.description
        explain = listed["explain_search"]
        assert "instead of re-running" in explain.description
        for verdict in ("not_stored", "below_cutoff", "no_term_overlap", "served"):
            assert verdict in explain.description
        assert search.annotations.read_only_hint and explain.annotations.read_only_hint
        assert search.input_schema["properties"]["query"]["description"].startswith("Phrased")

    connect(svc, user, body)


def test_search_passages(svc: Tabane, user: Principal, make_context) -> None:
    context, other = make_context(), make_context()
    store(svc, user, context)
    svc.ingest(user, other, DocumentInput(source_id="o", paragraphs=[block("Kettle kettle.")]))
    group = f"g{context}"
    svc.create_group(user, group, contexts=[context, other])

    async def body(c: Client) -> None:
        args = {"query": "kettle boils water", "contexts": [context]}
        found = await ok(c, "search_passages", args)
        top = found["hits"][0]
        assert (top["context"], top["source_id"], top["paragraph"], top["rank"]) == (
            context,
            "kettle",
            0,
            1,
        )
        assert set(top["lanes"]) == {"bm25"}
        vector = found["plan"]["contexts"][0]["lanes"]["vector"]
        assert (vector["ran"], vector["reason"]) == (False, "no_embedder")
        assert found["plan"]["query_terms"] == ["kettl", "boil", "water"]  # English stems

        asked = await ok(c, "search_passages", {"query": "limescale", "contexts": [context]})
        assert [(h["paragraph"], h["via_question"]) for h in asked["hits"]] == [(1, ["limescal"])]

        page = await ok(c, "search_passages", {"query": "kettle", "groups": [group], "limit": 2})
        assert {h["context"] for h in page["hits"]} == {context, other}
        assert page["next_after"]
        rest = await ok(
            c,
            "search_passages",
            {"query": "kettle", "groups": [group], "limit": 2, "after": page["next_after"]},
        )
        assert [h["rank"] for h in rest["hits"]] == [3, 4]

        filtered = await ok(
            c,
            "search_passages",
            {"query": "kettle", "contexts": [context], "tags": ["work"], "since": "2020-01-01"},
        )
        assert filtered["hits"] == []
        filt = filtered["plan"]["contexts"][0]["filter"]
        assert (filt["eligible_sources"], filt["total_sources"]) == (0, 1)
        assert filt["since"] == "2020-01-01T00:00:00+00:00"

        empty = await ok(c, "search_passages", {"query": " ", "contexts": [context]})
        assert empty["hits"] == []
        assert empty["plan"]["contexts"][0]["lanes"]["bm25"]["reason"] == "no_query_terms"

    connect(svc, user, body)


def test_explain_search_verdicts(svc: Tabane, user: Principal, make_user, make_context) -> None:
    context = make_context()
    store(svc, user, context)
    stranger = make_user()
    theirs = make_context(stranger)
    svc.ingest(stranger, theirs, DocumentInput(source_id="secret", paragraphs=[block("kettle")]))

    async def body(c: Client) -> None:
        scope = {"contexts": [context]}
        served = await ok(
            c,
            "explain_search",
            {"query": "kettle boils water", **scope, "expected": {"source_id": "kettle"}},
        )
        assert (served["verdict"], served["rank"], served["paragraph"]) == ("served", 1, 0)
        assert {t["term"] for t in served["terms"]} == {"kettl", "boil", "water"}

        ranked = await ok(c, "search_passages", {"query": "kettle", **scope})
        last = ranked["hits"][-1]["paragraph"]
        below = await ok(
            c,
            "explain_search",
            {
                "query": "kettle",
                **scope,
                "limit": 1,
                "expected": {"source_id": "kettle", "paragraph": last},
            },
        )
        assert below["verdict"] == "below_cutoff"
        assert below["limit_to_reach"] == below["rank"] > 1

        apart = await ok(
            c,
            "explain_search",
            {
                "query": "boils water",
                **scope,
                "expected": {"context": context, "source_id": "kettle", "paragraph": 3},
            },
        )
        assert apart["verdict"] == "no_term_overlap"
        assert "garden" in apart["paragraph_terms"]

        def strip(e: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in e.items() if k not in ("context", "source_id")}

        hidden = await ok(
            c,
            "explain_search",
            {"query": "kettle", **scope, "expected": {"context": theirs, "source_id": "secret"}},
        )
        absent = await ok(
            c,
            "explain_search",
            {"query": "kettle", **scope, "expected": {"context": theirs, "source_id": "nope"}},
        )
        assert hidden["verdict"] == "not_stored" and strip(hidden) == strip(absent)

    connect(svc, user, body)


def test_bad_arguments(svc: Tabane, user: Principal, context: str) -> None:
    async def body(c: Client) -> None:
        unknown = await refused(
            c, "search_passages", {"query": "k", "contexts": [f"nosuch{context}"]}
        )
        assert (unknown["code"], unknown["issues"][0]["path"]) == ("no_context", "contexts[0]")
        for args, path in (
            ({"limit": 0}, "limit"),
            ({"semantic_floor": 2.0}, "semantic_floor"),
            ({"since": "soon"}, "since"),
            ({"user": "root"}, "user"),
        ):
            bad = await refused(c, "search_passages", {"query": "k", "contexts": [context], **args})
            assert (bad["code"], bad["issues"][0]["path"]) == ("invalid_input", path)
        nowhere = await refused(c, "search_passages", {"query": "k"})
        assert (nowhere["code"], nowhere["issues"][0]["path"]) == ("invalid_input", "contexts")
        group = f"g{context}"
        svc.create_group(user, group, contexts=[context])
        which = await refused(
            c, "explain_search", {"query": "k", "groups": [group], "expected": {"source_id": "x"}}
        )
        assert (which["code"], which["issues"][0]["path"]) == ("invalid_input", "expected.context")

    connect(svc, user, body)


@pytest.mark.slow
def test_search_passages_takes_one_context_or_a_list(
    svc: Tabane, user: Principal, make_context
) -> None:
    """Taguru's clients pass `context` (issue 35): it reads as `contexts: [context]`, both
    together as their union; explain_search takes it the same way."""
    context, other = make_context(), make_context()
    store(svc, user, context)
    svc.ingest(user, other, DocumentInput(source_id="o", paragraphs=[block("Kettle kettle.")]))

    async def body(c: Client) -> None:
        one = await ok(c, "search_passages", {"query": "kettle boils", "context": context})
        listed = await ok(c, "search_passages", {"query": "kettle boils", "contexts": [context]})
        assert one["hits"] == listed["hits"] and one["hits"]
        both = await ok(
            c, "search_passages", {"query": "kettle", "context": other, "contexts": [context]}
        )
        assert {h["context"] for h in both["hits"]} == {context, other}
        why = await ok(
            c,
            "explain_search",
            {"query": "kettle boils", "context": context, "expected": {"source_id": "kettle"}},
        )
        assert why["verdict"] == "served"
        empty = await refused(c, "search_passages", {"query": "kettle", "context": ""})
        assert [i["path"] for i in empty["issues"]] == ["context"]
        unknown = await refused(c, "search_passages", {"query": "kettle", "context": "nowhere"})
        assert unknown["code"] == "no_context"

    connect(svc, user, body)
