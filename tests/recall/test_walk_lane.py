"""The walk lane (recall/lanes/graph.py): a hub seed's many edges share what it passes, so the few
edges of another concept the question names are walked too (as `activate` divides by a node's
load)."""

from __future__ import annotations

import pytest

from tabane.graph import edges
from tabane.graph.claims.parse import ClaimInput
from tabane.recall.plan import RecallRequest, Tunables
from tabane.service import Tabane

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
