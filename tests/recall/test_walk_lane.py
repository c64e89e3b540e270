"""The walk lane (recall/lanes/graph.py): a hub seed's many edges share what it passes, so the few
edges of another concept the question names are walked too (as `activate` divides by a node's
load)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from tabane.graph import edges
from tabane.graph.claims.parse import ClaimInput
from tabane.recall import gather
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.statement import Shape, build_recall_statement
from tabane.search.search import QueryVector
from tabane.service import Tabane
from tabane.storage.schema import Context
from tests.recall.test_statement_plan import _plan

QUESTION = "What lights the lantern by the harbour?"


@pytest.fixture
def hub_and_leaf(svc: Tabane, user, make_context) -> str:
    """`harbour`, a hub of 30 strong edges, and `lantern`, one weaker edge: both named by the
    question, and the walk keeps 20 edges per hop."""
    context = make_context()
    claims = [ClaimInput("harbour", "has_berth", f"berth{i:02d}", 1.0) for i in range(30)]
    claims.append(ClaimInput("lantern", "lit_by", "whale oil", 0.6))
    svc.add_claims(user, context, claims)
    return context


def walk_rank(svc: Tabane, user, context: str, tunables: Tunables) -> int | None:
    result = svc.recall(user, RecallRequest(QUESTION, (context,), force=True), tunables=tunables)
    assert {"harbour", "lantern"} <= set(result.trace.seeds)
    with svc.store.session(user) as session:
        ids = [int(c.key[2:]) for c in result.trace.candidates if c.kind == "association"]
        triples = edges.triples(session, ids)
    for c in result.trace.candidates:
        if c.kind == "association" and triples[int(c.key[2:])][0] == "lantern":
            return next(lr.rank for lr in c.lanes if lr.lane == "walk")
    return None


def test_a_hub_seed_leaves_room_for_the_edge_of_a_seed_with_few(
    svc: Tabane, user, hub_and_leaf: str
) -> None:
    assert Tunables().walk_hub == 1.0
    # harbour's 30 edges pass 1/30 each; lantern's one edge 0.6: walked first
    assert walk_rank(svc, user, hub_and_leaf, Tunables()) == 1


def test_without_the_division_the_hub_fills_the_walk(svc: Tabane, user, hub_and_leaf: str) -> None:
    # every harbour edge scores 1.0 > 0.6: the walk's 20 places go to the hub
    assert walk_rank(svc, user, hub_and_leaf, Tunables(walk_hub=0.0)) is None


def walk_ranks(svc: Tabane, user, context: str, question: str) -> dict[tuple[str, str, str], int]:
    """(subject, label, object) → the walk lane's rank of each edge recall walked."""
    result = svc.recall(user, RecallRequest(question, (context,), force=True))
    with svc.store.session(user) as session:
        walked = {
            int(c.key[2:]): next(lr.rank for lr in c.lanes if lr.lane == "walk")
            for c in result.trace.candidates
            if c.kind == "association" and any(lr.lane == "walk" for lr in c.lanes)
        }
        triples = edges.triples(session, list(walked))
    return {triples[k][:3]: rank for k, rank in walked.items()}


def test_an_edge_between_two_seeds_gathers_what_both_pass(svc: Tabane, user, make_context):
    # lantern—harbour joins two named concepts: both pass along it (harbour 1/1.1, lantern 1/1.5),
    # so it outranks the stronger edges each has alone (0.788 against 0.545 and 0.4); a loop on
    # lantern is one edge at one node, counted once in its load and its score (0.267: twice
    # would put it above whale oil)
    context = make_context()
    svc.add_claims(
        user,
        context,
        [
            ClaimInput("lantern", "stands_at", "harbour", 0.5),
            ClaimInput("lantern", "lit_by", "whale oil", 0.6),
            ClaimInput("harbour", "has_berth", "quay", 0.6),
            ClaimInput("lantern", "mirrors", "lantern", 0.4),
        ],
    )
    ranks = walk_ranks(svc, user, context, QUESTION)
    order = sorted(ranks, key=ranks.__getitem__)
    assert order == [
        ("lantern", "stands_at", "harbour"),
        ("harbour", "has_berth", "quay"),
        ("lantern", "lit_by", "whale oil"),
        ("lantern", "mirrors", "lantern"),
    ]


@pytest.mark.slow
def test_the_walk_reads_each_touched_edge_once(svc: Tabane, user, make_context):
    """The walk's plan reads `associations` through the nodes' subject and object indexes only:
    no read of it runs once per touched edge (the netting joined every touched id back to
    `associations` by its key: one lookup per edge of a hub, a cost that grows with the graph)."""
    context = make_context()
    hub = 150  # edges of one seed: more than the walk keeps (20 per hop) or recall serves (60)
    claims = [ClaimInput("harbour", "has_berth", f"berth{i:03d}", 1.0) for i in range(hub)]
    claims += [ClaimInput(f"berth{i:03d}", "moors", f"boat{i:03d}", 0.5) for i in range(hub)]
    svc.add_claims(user, context, claims)
    t = Tunables()
    with svc.store.session(user) as session:
        ctx = session.scalars(select(Context).where(Context.name == context)).one()
        qv = QueryVector(None, None, None, "no_embedder")
        params = gather.bind(QUESTION, [ctx], [None], qv, None, t)
        params["paragraph_lanes"] = 1.0
        gather._settings(session)
        shape = Shape(("walk",))
        gather.bind_before(session, shape, [ctx], params, False, t)
        assert "harbour" in params["seed_names"]
        plan = _plan(session, build_recall_statement(shape), params)

    def reads(node: dict[str, Any], out: list[tuple[str, int]]) -> list[tuple[str, int]]:
        if node.get("Relation Name") == "associations":
            out.append((node.get("Index Name", node["Node Type"]), int(node["Actual Loops"])))
        for child in node.get("Plans", []):
            reads(child, out)
        return out

    found = reads(plan, [])
    assert found  # the walk read the edges
    assert max(loops for _, loops in found) < hub, found
