"""Background-built memory through the official MCP client: search_communities on a built
context, refresh_embeddings queuing what the model lacks."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

FRUIT = ("apple", "banana", "cherry")
VEHICLES = ("bike", "bus", "truck")


def clique(names: tuple[str, ...], label: str) -> list[ClaimInput]:
    return [ClaimInput(a, label, b, 1.0) for i, a in enumerate(names) for b in names[i + 1 :]]


@pytest.mark.parametrize("transport", ["memory", pytest.param("http", marks=pytest.mark.slow)])
def test_search_communities_over_mcp(
    svc: Tabane,
    user: Principal,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    transport: str,
) -> None:
    context, unbuilt = make_context(), make_context()
    svc.add_claims(user, context, [*clique(FRUIT, "goes with"), *clique(VEHICLES, "drives by")])
    svc.build_communities(user, context)

    async def body(c: Client) -> None:
        found = await ok(c, "search_communities", {"context": context, "query": "Truck BUS"})
        assert (found["built"], found["stale"], found["total"]) == (True, False, 1)
        assert found["terms"] == ["bus", "truck"]
        assert set(found["hits"][0]["matched"]) == {"truck", "bus"}
        members = {m["concept"] for m in found["hits"][0]["community"]["members"]}
        assert members == {"bike", "bus", "truck"}
        assert (await ok(c, "search_communities", {"context": unbuilt, "query": "x"}))[
            "built"
        ] is False
        await err(c, "search_communities", {"context": context, "query": " "}, "invalid_input")
        await err(c, "search_communities", {"context": "no-such-ctx", "query": "a"}, "no_context")

    connect(svc, user, body, transport)

    async def stranger(c: Client) -> None:  # another user's context is not there
        await err(c, "search_communities", {"context": context, "query": "bus"}, "no_context")

    connect(svc, make_user(), stranger, "memory")


@pytest.mark.slow  # the real embedding model
def test_refresh_embeddings_over_mcp(
    svc: Tabane, vsvc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    context = make_context()
    svc.ingest(user, context, DocumentInput(source_id="a", paragraphs=[block("Kettles boil.")]))

    async def body(c: Client) -> None:
        got = await ok(c, "refresh_embeddings", {"context": context})
        assert got == {"context": context, "model": "use-multilingual-v3", "sources": 1}
        await err(c, "refresh_embeddings", {"context": "no-such-ctx"}, "no_context", "context")

    connect(vsvc, user, body, "memory")
    assert vsvc.wait_for_jobs(timeout=120) == 0

    async def none(c: Client) -> None:
        await err(c, "refresh_embeddings", {"context": context}, "conflict")

    connect(svc, user, none, "memory")
