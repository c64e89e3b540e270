"""Chains complete (recall/chains.py, decision 0046): the edge that continues a served path of
edges is read with the path, within the first `max_items`, not left past the cut; an edge that
continues nothing keeps its place, and no other path loses an edge for it."""

from __future__ import annotations

import pytest

from tabane.graph import edges
from tabane.graph.claims.parse import ClaimInput
from tabane.recall.chains import complete, path_ends
from tabane.recall.order import arrange
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence, Fact
from tabane.service import Tabane


def edge(n: int, subject: str, label: str, obj: str) -> Evidence:
    return Evidence(
        f"a:{n}",
        "association",
        f"{subject} {label} {obj}",
        "derived memory",
        Citation(),
        (),
        fact=Fact("g", "", subject, label, obj, negated=False),
    )


def passage(n: int) -> Evidence:
    return Evidence(f"p:{n}", "paragraph", f"passage number {n}.", "source excerpt", Citation(), ())


# A three-hop chain from the tower: tower → keeper → mentor → school. Its first two edges rank
# early, its third past the first 20 items; the tower's other edges and passages fill the rest.
CHAIN = [edge(1, "tower", "kept_by", "keeper"), edge(2, "keeper", "apprenticed_to", "mentor")]
THIRD = edge(3, "mentor", "trained_at", "school")
FILL = [edge(10 + n, "tower", f"attribute{n}", f"value{n}") for n in range(8)]


def ordered() -> list[Evidence]:
    return [*CHAIN, *FILL, *(passage(n) for n in range(12)), passage(99), THIRD]


def test_the_served_paths_ends_are_the_nodes_a_path_of_two_edges_stops_at() -> None:
    ends = path_ends([*CHAIN, *FILL[:2]])
    # mentor: one edge, whose other end (keeper) has two; each value: one edge off the tower
    assert ends[("g", "mentor")].key == "a:2"
    assert ("g", "keeper") not in ends and ("g", "tower") not in ends
    assert ends[("g", "value0")].key == "a:10"


def test_the_third_edge_of_a_chain_is_served_after_the_path_it_completes() -> None:
    assert [it.key for it in ordered()].index("a:3") >= 20
    notes: list[str] = []
    got = [it.key for it in complete(ordered(), 20, 20, notes)]
    assert got.index("a:3") == got.index("a:2") + 1 < 20
    # the item that made room is the last one ahead that is on no path: a passage
    assert got[20] == "p:9"
    assert notes == ["chain: a:3 continues the served path that ends with a:2"]


def test_an_edge_that_continues_no_served_path_keeps_its_place() -> None:
    stray = edge(4, "harbour", "has", "crane")
    items = [*ordered()[:-1], stray]
    assert complete(items, 20, 20) == items
    assert complete(ordered(), 20, 0) == ordered()  # off


def test_no_path_loses_an_edge_to_make_room() -> None:
    # the first 20 are edges of paths only: nothing can go behind, the order stands
    long_path = [edge(20 + n, f"n{n}", "next", f"n{n + 1}") for n in range(20)]
    items = [*long_path, edge(50, "n20", "next", "n21")]
    got = complete(items, 20, 20)
    assert [it.key for it in got[:20]] == [it.key for it in long_path]


def test_arrange_serves_the_chain_whole_by_default() -> None:
    assert Tunables().chain_most > 0
    most = Tunables().chain_most
    placed = arrange("where did the keeper's mentor train?", ordered(), None, max_items=20,
                     budget=5000, chars_per_token=4.0, earn=(0.0, most))  # fmt: skip
    outcome = {p.item.key: p.outcome for p in placed}
    assert outcome["a:3"] == "served" and outcome["p:9"] == "cut_by_max_items"


@pytest.mark.slow
def test_a_three_hop_chain_is_complete_within_the_first_20(svc: Tabane, user, make_context):
    """A graph of our own: the question names the tower and its keeper; the tower has 30
    attributes and the keeper 10, so the chain's third edge (the teacher's school, two hops from
    the keeper through a node that passes half of what it got and has three weaker edges) ranks
    past the walk's first 20 edges."""
    context = make_context()
    claims = [ClaimInput("Hollow Tower", f"attribute{n:02d}", f"tower value {n}", 1.0)
              for n in range(30)]  # fmt: skip
    claims += [ClaimInput("Ines Varga", f"trait{n:02d}", f"keeper trait {n}", 1.0)
               for n in range(10)]  # fmt: skip
    claims += [
        ClaimInput("Hollow Tower", "kept_by", "Ines Varga", 1.0),
        ClaimInput("Ines Varga", "taught_by", "Tomas Reed", 1.0),
        ClaimInput("Tomas Reed", "trained_at", "Northpoint Academy", 1.0),
    ]
    claims += [ClaimInput("Tomas Reed", f"habit{n}", f"teacher habit {n}", 0.5) for n in range(3)]
    svc.add_claims(user, context, claims)
    asked = "Where did the man who taught Ines Varga, the keeper of Hollow Tower, train?"
    request = RecallRequest(asked, (context,), force=True)

    def place(tunables: Tunables) -> tuple[int, str, tuple[str, ...]]:
        result = svc.recall(user, request, tunables=tunables)
        with svc.store.session(user) as session:
            ids = [int(c.key[2:]) for c in result.trace.candidates if c.kind == "association"]
            triples = edges.triples(session, ids)
        third = next(c for c in result.trace.candidates if c.kind == "association"
                     and triples[int(c.key[2:])][1] == "trained_at")  # fmt: skip
        return third.position, third.outcome, result.trace.notes

    position, outcome, _ = place(Tunables(chain_most=0))
    assert position > 20 and outcome == "cut_by_max_items"
    position, outcome, notes = place(Tunables())
    assert position <= 20 and outcome == "served"
    assert any(n.startswith("chain: ") and "continues the served path" in n for n in notes)
