"""The graph write tools (add/retract associations, aliases) through the official MCP client, in
memory and over streamable HTTP, on the real store; refused calls are read back to show that
nothing was written."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp_client import connect, err, ok
from sqlalchemy import func, select

from tabane.ingest.documents import DocumentInput
from tabane.mcp import catalog
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Claim, Context

GRAPH_TOOLS = {
    "add_associations": "write",
    "retract_associations": "destroy",
    "add_alias": "write",
    "remove_alias": "destroy",
    "list_aliases": "read",
}
EDGE = {"subject": "stress", "label": "causes", "object": "insomnia"}
CLAIM = EDGE | {"weight": 1.0}


def open_claims(svc: Tabane, user: Principal, context: str) -> int:
    with svc.store.session(user) as session:
        cid = session.scalar(select(Context.id).where(Context.name == context))
        n = session.scalar(
            select(func.count()).where(Claim.context_id == cid, Claim.closed_at.is_(None))
        )
    return int(n or 0)


def test_the_graph_tools_are_listed_with_their_annotations(svc: Tabane, user: Principal) -> None:
    specs = catalog.by_name()
    for name, kind in GRAPH_TOOLS.items():
        assert specs[name].kind == kind
    teaching = specs["add_associations"].description
    for lesson in ("RESOLVE BEFORE YOU MINT", "`resolve`", "minted_concepts", "negative weight",
                   "prevents", "next_step", "defined_in", "paragraph", "retract"):  # fmt: skip
        assert lesson in teaching, lesson

    async def body(c: Client) -> None:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        assert set(GRAPH_TOOLS) <= set(listed)
        assert listed["list_aliases"].annotations.read_only_hint is True
        assert listed["retract_associations"].annotations.destructive_hint is True
        assert listed["add_associations"].annotations.idempotent_hint is False
        schema = listed["add_associations"].input_schema
        assert schema["additionalProperties"] is False
        assert schema["properties"]["associations"]["maxItems"] == 10_000

    connect(svc, user, body, "memory")


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "http"])
def test_write_alias_retract_round_trip(
    svc: Tabane, user: Principal, context: str, transport: str
) -> None:
    svc.ingest(user, context, DocumentInput(source_id="doc", data=b"one\n\ntwo", format="text"))

    async def body(c: Client) -> None:
        report = await ok(
            c,
            "add_associations",
            {
                "context": context,
                "associations": [
                    CLAIM | {"source": "doc", "paragraph": 1, "statement": "Stress..."},
                    CLAIM | {"weight": -0.5, "kind": "opinion"},
                    EDGE | {"label": "prevents", "subject": "exercise", "weight": 1},
                ],
            },
        )
        assert len(report["claims"]) == 3 and report["associations"] == 3
        assert report["minted_concepts"] == ["exercise", "insomnia", "stress"]
        assert report["minted_labels"] == ["causes", "prevents"]
        assert (report["aliased"], report["closed"]) == ({}, 0)

        made = await ok(
            c, "add_alias", {"context": context, "alias": "tension", "target": "stress"}
        )
        assert made == {
            "alias": {
                "alias": "tension",
                "target": "stress",
                "kind": "concept",
                "scopes": [f"user:{user.name}"],
            },
            "created": True,
        }
        again = await ok(
            c, "add_alias", {"context": context, "alias": "tension", "target": "stress"}
        )
        assert again["created"] is False
        await ok(
            c,
            "add_alias",
            {"context": context, "alias": "stops", "target": "prevents", "kind": "label"},
        )
        listed = await ok(c, "list_aliases", {"context": context})
        assert [(a["kind"], a["alias"]) for a in listed["aliases"]] == [
            ("concept", "tension"),
            ("label", "stops"),
        ]
        labels = await ok(c, "list_aliases", {"context": context, "kind": "label"})
        assert [a["alias"] for a in labels["aliases"]] == ["stops"]

        via = await ok(
            c,
            "add_associations",
            {"context": context, "associations": [CLAIM | {"subject": "tension"}]},
        )
        assert via["aliased"] == {"tension": "stress"} and via["minted_concepts"] == []

        retract = {"context": context, "associations": [EDGE], "dry_run": True}
        assert await ok(c, "retract_associations", retract) == {
            "claims": 3,
            "associations": 2,  # the world partition and the opinion's
            "dry_run": True,
        }
        only_doc = await ok(
            c,
            "retract_associations",
            {"context": context, "associations": [EDGE | {"subject": "tension", "source": "doc"}]},
        )
        assert (only_doc["claims"], only_doc["dry_run"]) == (1, False)
        removed = await ok(c, "remove_alias", {"context": context, "alias": "tension"})
        assert removed == {"alias": "tension", "kind": "concept", "removed": 1}
        await err(c, "remove_alias", {"context": context, "alias": "tension"}, "not_found", "alias")

    connect(svc, user, body, transport)
    assert open_claims(svc, user, context) == 3


@pytest.mark.slow
def test_bad_claims_are_refused_with_paths_and_nothing_written(
    svc: Tabane, user: Principal, context: str
) -> None:
    async def body(c: Client) -> None:
        def batch(*items: object) -> dict[str, Any]:
            return {"context": context, "associations": list(items)}

        await err(
            c,
            "add_associations",
            batch(CLAIM, CLAIM | {"weight": "1"}, CLAIM | {"weight": True}, CLAIM | {"x": 1}),
            "invalid_input",
            "associations[1].weight",
            "associations[2].weight",
            "associations[3].x",
        )
        await err(
            c,
            "add_associations",
            batch(CLAIM, CLAIM | {"weight": 2e6}, CLAIM | {"subject": " "}),
            "invalid_input",
            "associations[1].weight",
            "associations[2].subject",
        )
        await err(
            c,
            "add_associations",
            batch(
                CLAIM | {"valid_from": "soon"},
                CLAIM | {"valid_until": "2020-01-01", "valid_from": "2021-01-01"},
            ),
            "invalid_input",
            "associations[0].valid_from",
            "associations[1].valid_until",
        )
        await err(
            c,
            "add_associations",
            batch(CLAIM, CLAIM | {"kind": "rumour"}),
            "invalid_input",
            "associations[1].kind",
        )
        await err(c, "add_associations", batch(), "invalid_input", "associations")
        await err(c, "add_associations", batch(*[CLAIM] * 10_001), "invalid_input", "associations")
        await err(
            c,
            "add_associations",
            batch(CLAIM | {"source": "nowhere", "paragraph": 0}),
            "invalid_input",
            "associations[0].source",
        )
        await err(c, "add_associations", batch(CLAIM | {"closes": [999999999]}), "no_claim")
        forged = batch(CLAIM) | {"user": "someone-else"}
        await err(c, "add_associations", forged, "invalid_input", "user")
        await err(c, "add_associations", batch(CLAIM) | {"scopes": ["org:x"]}, "forbidden")
        await err(c, "add_associations", {"context": "nowhere", "associations": [CLAIM]},
                  "no_context")  # fmt: skip
        await err(
            c,
            "retract_associations",
            {"context": context, "associations": [EDGE | {"label": ""}]},
            "invalid_input",
            "associations[0].label",
        )

    connect(svc, user, body, "memory")
    assert open_claims(svc, user, context) == 0


@pytest.mark.slow
def test_alias_errors(svc: Tabane, user: Principal, context: str, make_user) -> None:
    outsider = make_user()

    async def body(c: Client) -> None:
        await ok(c, "add_associations", {"context": context, "associations": [CLAIM]})
        args = {"context": context, "alias": "insomnia", "target": "stress"}
        await err(c, "add_alias", args, "alias_conflict", "alias")
        await err(c, "add_alias", args | {"alias": "x", "target": "ghost"}, "no_concept", "target")
        await err(c, "add_alias", args | {"alias": " "}, "invalid_input", "alias")
        await err(c, "add_alias", args | {"alias": "x", "kind": "edge"}, "invalid_input", "kind")
        assert (await ok(c, "list_aliases", {"context": context}))["aliases"] == []

    connect(svc, user, body, "memory")

    async def stranger(c: Client) -> None:
        await err(c, "list_aliases", {"context": context}, "no_context")
        await err(c, "add_associations", {"context": context, "associations": [CLAIM]},
                  "no_context")  # fmt: skip

    connect(svc, outsider, stranger, "memory")
    assert open_claims(svc, user, context) == 1
