"""activate, explore, paths and unreachable_from against the real store; activate also against a
plain Python reference over the whole graph (hubs fetched by rank must not change the answer)."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from typing import Any

import pytest

from tabane.contexts import contexts as contexts_mod
from tabane.errors import InvalidInput, NoConcept
from tabane.graph.claims.parse import parse_claims
from tabane.graph.walk.fetch import Graph
from tabane.graph.walk.walk import CHUNK
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def write(svc: Tabane, user: Principal, context: str, *claims: dict[str, Any], **kw: Any) -> None:
    svc.add_claims(user, context, parse_claims(list(claims)), **kw)


def c(s: str, label: str, o: str, w: float = 1.0, **more: Any) -> dict[str, Any]:
    return {"subject": s, "label": label, "object": o, "weight": w, **more}


def hub_graph(svc: Tabane, user: Principal, context: str) -> None:
    """O touches a hub H (ten more edges) and a quiet X (one more edge)."""
    write(
        svc, user, context,
        c("O", "r", "H"), c("X", "r", "O"),  # X→O: followed backwards too
        *(c("H", "r", f"L{i}") for i in range(10)),
        c("X", "r", "Y"),
    )  # fmt: skip


def test_a_hub_passes_less_per_edge_but_reports_edges_unnormalized(
    svc: Tabane, user: Principal, context: str
) -> None:
    hub_graph(svc, user, context)
    result = svc.activate(user, context, "O")
    got = {a.concept: a for a in result.concepts}
    assert got["H"].activation == pytest.approx(0.25)  # 1.0 · 0.5 · 1 / W(O)=2
    assert got["X"].activation == pytest.approx(0.25)
    assert got["Y"].activation == pytest.approx(0.25 * 0.5 / 2)  # X is quiet: W(X)=2
    assert got["L0"].activation == pytest.approx(0.25 * 0.5 / 11)  # H is a hub: W(H)=11
    order = [a.concept for a in result.concepts]
    assert order[:3] == ["H", "X", "Y"]  # equal activation: depth, then spelling
    assert order[3:] == [f"L{i}" for i in range(10)]
    assert got["Y"].via == ("O", "X", "Y") and got["Y"].depth == 2
    assert [(e.subject, e.object, e.weight) for e in got["Y"].path] == [
        ("X", "O", 1.0),
        ("X", "Y", 1.0),
    ]
    assert all(e.weight == 1.0 for e in result.edges)  # never divided by W
    assert {(e.subject, e.object) for e in result.edges} >= {("O", "H"), ("H", "L0")}
    assert result.edges[0].attributions and not got["Y"].path[0].attributions


def test_decay_limit_floor_and_labels(svc: Tabane, user: Principal, context: str) -> None:
    hub_graph(svc, user, context)
    write(svc, user, context, c("O", "other", "Z", 2.0))
    full = svc.activate(user, context, ["O"], decay=1.0)
    assert {a.concept: a.activation for a in full.concepts}["Z"] == pytest.approx(2 / 4)
    assert len(svc.activate(user, context, "O", limit=2).concepts) == 2
    floored = svc.activate(user, context, "O", min_activation=0.03)  # Y: 0.125 · 0.5 / 2
    assert {a.concept for a in floored.concepts} == {"H", "X", "Y", "Z"}
    floored = svc.activate(user, context, "O", min_activation=0.05)
    assert {a.concept for a in floored.concepts} == {"H", "X", "Z"}
    only_r = svc.activate(user, context, "O", labels=["r"])
    assert "Z" not in {a.concept for a in only_r.concepts}
    assert {a.concept: a.activation for a in only_r.concepts}["H"] == pytest.approx(0.25)


def test_negative_edges_carry_their_magnitude_and_keep_their_sign(
    svc: Tabane, user: Principal, context: str
) -> None:
    write(svc, user, context, c("caffeine", "causes", "insomnia", -0.8))
    (hit,) = svc.activate(user, context, "insomnia").concepts
    assert hit.concept == "caffeine" and hit.activation == pytest.approx(0.5 * 0.8)
    assert hit.path[0].weight == -0.8


def reference(edges: list[tuple[str, str, float]], origin: str, decay: float, limit: int) -> list:
    """Max-product best-first over the whole graph, as plain Python."""
    adj: dict[str, list[tuple[str, float]]] = {}
    for s, o, w in edges:
        adj.setdefault(s, []).append((o, w))
        if s != o:
            adj.setdefault(o, []).append((s, w))
    act = {origin: 1.0}
    heap = [(-1.0, origin)]
    done: list[str] = []
    while heap and len(done) <= limit:
        a, u = heapq.heappop(heap)
        if u in done or -a < act[u]:
            continue
        done.append(u)
        strength = sum(abs(w) for _, w in adj.get(u, []))
        for v, w in adj.get(u, []):
            flow = -a * decay * abs(w) / max(1.0, strength)
            if v not in done and flow > act.get(v, 0.0) and flow >= 1e-6:
                act[v] = flow
                heapq.heappush(heap, (-flow, v))
    return [(v, act[v]) for v in done[1 : limit + 1]]


def test_matches_a_whole_graph_reference_with_big_hubs(
    svc: Tabane, user: Principal, context: str
) -> None:
    rng = random.Random(7)
    edges: dict[tuple[str, str], float] = {}
    for i in range(3 * CHUNK):  # two hubs well past one fetch chunk
        edges[("hub", f"n{i}")] = rng.uniform(0.1, 3) * rng.choice([1, -1])
        edges[(f"n{i}", "hub2")] = rng.uniform(0.1, 3)
    for _ in range(300):
        a, b = rng.sample(range(3 * CHUNK), 2)
        edges[(f"n{a}", f"n{b}")] = rng.uniform(-2, 2)
    edges[("start", "hub")] = 5.0
    edges[("start", "n3")] = 0.5
    write(svc, user, context, *(c(s, "r", o, w) for (s, o), w in edges.items()))
    flat = [(s, o, w) for (s, o), w in edges.items()]
    for decay, limit in ((0.5, 20), (0.9, 60)):
        got = svc.activate(user, context, "start", decay=decay, limit=limit)
        want = reference(flat, "start", decay, limit)
        assert [a.concept for a in got.concepts] == [v for v, _ in want]
        assert [a.activation for a in got.concepts] == pytest.approx([a for _, a in want])
        assert got.statements < limit  # batched, never one statement per edge


def test_a_batch_fetch_ranks_each_node_as_a_single_fetch_and_a_python_oracle(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    """Per node: ranks in `Hop.key` order, Σ|w| summed strongest first (bit for bit), degree
    over all its edges; two scope rows of one edge net into one hop; a self-loop counts once."""
    org = unique("org:b")
    alice = make_user(extra_write=(org,))
    context = make_context(alice, scopes=[org])
    rng = random.Random(5)
    net: dict[tuple[str, str, str], float] = {}
    for i in range(CHUNK + 30):
        size = rng.choice([0.1, 0.3, 0.7]) if i % 2 else round(rng.uniform(0.1, 2), 3)  # ties
        net[("hub", "r", f"n{i}")] = rng.choice([1, -1]) * size  # not dyadic: order shows
    for i in range(5):
        net[(f"n{i}", "s", "hub")] = 0.75
    net[("hub", "r", "hub")] = 0.3
    net[("n1", "r", "n2")] = -1.1
    write(svc, alice, context, *(c(s, lab, o, w) for (s, lab, o), w in net.items()))
    write(svc, alice, context, c("hub", "r", "n0", 0.25), scopes=[f"user:{alice.name}"])
    net[("hub", "r", "n0")] += 0.25

    def oracle(node: str) -> tuple[list[tuple[Any, ...]], float]:
        keys = [
            (-abs(w), o if s == node else s, lab, "", s)
            for (s, lab, o), w in net.items()
            if node in (s, o)
        ]
        strength = 0.0
        for key in sorted(keys):
            strength += -key[0]
        return sorted(keys), strength

    with svc.store.session(alice) as session:
        graph = Graph(session, contexts_mod.resolve(session, context))
        nodes = ["n2", "hub", "n1", "absent"]
        batch = graph.chunks(nodes, 0, CHUNK)
        for node in nodes:
            assert batch[node] == graph.chunks([node], 0, CHUNK)[node]
            keys, strength = oracle(node)
            assert [h.key() for h in batch[node].hops] == keys[:CHUNK]
            assert batch[node].strength == strength  # exactly: the same float on every plan
            assert batch[node].degree == len(keys)
        rest = graph.chunks(["hub"], CHUNK, None)["hub"]
        assert [h.key() for h in rest.hops] == oracle("hub")[0][CHUNK:]
        assert rest.strength == batch["hub"].strength and rest.degree == CHUNK + 36
        (n0,) = [h for h in (*batch["hub"].hops, *rest.hops) if h.other == "n0" and h.label == "r"]
        assert (n0.weight, n0.claims) == (net[("hub", "r", "n0")], 2)
        assert graph.statements == 2 + len(nodes)


def test_each_edge_gets_only_its_own_claims(svc: Tabane, user: Principal, context: str) -> None:
    """Attributions join on the whole edge id: the same triple in another perspective partition
    lends none of its claims."""
    tea = {"subject": "tea", "label": "is", "object": "calming"}
    write(
        svc, user, context,
        tea | {"weight": 2.0, "kind": "opinion", "perspective": "alice"},
        c("tea", "is", "calming", 0.5), c("tea", "is", "calming", 0.25),
        c("tea", "r", "mint"),
    )  # fmt: skip
    world = svc.activate(user, context, "tea", perspective="")
    edge = next(e for e in world.edges if e.object == "calming")
    assert [a.weight for a in edge.attributions] == [0.5, 0.25]
    assert (edge.weight, edge.claims, edge.perspective) == (0.75, 2, None)
    alices = svc.activate(user, context, "tea", perspective="alice")
    (only,) = alices.edges
    assert [a.weight for a in only.attributions] == [2.0] and only.perspective == "alice"


def test_explore_depth_and_labels_never_bridge(svc: Tabane, user: Principal, context: str) -> None:
    write(
        svc, user, context,
        c("A", "next", "B"), c("B", "next", "C"), c("C", "next", "D"),
        c("E", "next", "F"), c("A", "part_of", "P"),
    )  # fmt: skip
    result = svc.explore(user, context, "A", depth=2)
    assert [(r.concept, r.distance) for r in result.concepts] == [("B", 1), ("P", 1), ("C", 2)]
    assert not result.capped
    far = svc.explore(user, context, ["A"], depth=10)
    assert "E" not in {r.concept for r in far.concepts}  # sharing the label `next` is no bridge
    only_next = svc.explore(user, context, "A", depth=10, labels=["next"])
    assert [r.concept for r in only_next.concepts] == ["B", "C", "D"]
    capped = svc.explore(user, context, "A", depth=10, limit=2)
    assert capped.capped and len(capped.concepts) == 2
    with pytest.raises(InvalidInput) as err:
        svc.explore(user, context, "A", depth=11)
    assert [i.path for i in err.value.issues] == ["depth"]


def test_explore_edges_each_edge_once_nearest_kept(
    svc: Tabane, user: Principal, context: str
) -> None:
    """Taguru's explore (decision 0027): every edge met, once, with the path to its near end;
    a limit keeps the nearest; the hub's back edge is not met twice."""
    write(svc, user, context, c("A", "next", "B"), c("B", "next", "C"), c("C", "back", "A"))
    found = svc.explore_edges(user, context, "A", depth=3)
    met = [(m.distance, m.via, (m.edge.subject, m.edge.object)) for m in found.matches]
    assert met == [  # by distance, then each node's edges strongest first, then by far end
        (1, ("A",), ("A", "B")),
        (1, ("A",), ("C", "A")),
        (2, ("A", "B"), ("B", "C")),
    ]
    assert not found.capped
    nearest = svc.explore_edges(user, context, "A", depth=3, limit=2)
    assert [m.distance for m in nearest.matches] == [1, 1] and nearest.capped
    assert all(m.edge.claims == 1 for m in found.matches)


def test_paths_shortest_first_and_capped(svc: Tabane, user: Principal, context: str) -> None:
    write(
        svc, user, context,
        c("A", "r", "B", 2.0), c("B", "r", "D"), c("A", "r", "C"), c("D", "r", "C"),
        c("A", "s", "D", 0.5), c("A", "t", "D", 0.7), c("D", "r", "E"), c("E", "r", "F"),
    )  # fmt: skip
    result = svc.paths(user, context, "A", "D")
    assert [p.concepts for p in result.paths] == [("A", "D"), ("A", "B", "D"), ("A", "C", "D")]
    assert result.paths[0].edges[0].label == "t"  # the strongest of the parallel edges
    assert not result.capped and not result.truncated
    assert svc.paths(user, context, "A", "D", limit=1).truncated
    far = svc.paths(user, context, "A", "F", budget=1)
    assert far.capped and far.paths == ()
    reached = svc.paths(user, context, "A", ["F"], max_depth=3)
    assert [p.concepts for p in reached.paths] == [("A", "D", "E", "F")]


def test_unreachable_from_pages_the_islands(svc: Tabane, user: Principal, context: str) -> None:
    write(
        svc, user, context,
        c("brewing", "step", "washing"), c("washing", "next", "soaking"),
        *(c(f"island{i}", "r", f"isle{i}") for i in range(3)),
        c("brewing", "r", "gone"),
    )  # fmt: skip
    svc.retract_associations(user, context, [("brewing", "r", "gone", None, None)])
    first = svc.unreachable_from(user, context, "brewing", limit=4)
    assert first.reachable == 3 and first.total == 7
    assert first.concepts == ("gone", "island0", "island1", "island2")
    rest = svc.unreachable_from(user, context, "brewing", limit=4, after=first.next)
    assert rest.concepts == ("isle0", "isle1", "isle2") and rest.next is None


def test_unknown_origins_and_bad_ranges(svc: Tabane, user: Principal, context: str) -> None:
    write(svc, user, context, c("A", "r", "B"))
    with pytest.raises(NoConcept) as err:
        svc.activate(user, context, ["A", "nope"])
    assert err.value.code == "no_concept" and [i.path for i in err.value.issues] == ["origins[1]"]
    with pytest.raises(NoConcept) as err:
        svc.paths(user, context, "A", "nope")
    assert [i.path for i in err.value.issues] == ["targets"]
    bad_ranges: list[tuple[dict[str, Any], str]] = [
        ({"decay": 0}, "decay"),
        ({"decay": 1.5}, "decay"),
        ({"limit": 0}, "limit"),
        ({"min_activation": 0}, "min_activation"),
    ]
    for kwargs, path in bad_ranges:
        with pytest.raises(InvalidInput) as bad:
            svc.activate(user, context, "A", **kwargs)
        assert [i.path for i in bad.value.issues] == [path]
    with pytest.raises(InvalidInput):
        svc.paths(user, context, "A", "B", budget=0)


def test_walks_never_see_private_claims(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    org = unique("org:w")
    alice, bob = make_user(extra_write=(org,)), make_user(extra_write=(org,))
    shared = make_context(alice, scopes=[org])
    write(svc, alice, shared, c("A", "r", "B"))
    write(
        svc,
        alice,
        shared,
        c("B", "r", "secret"),
        c("A", "r", "B", 9),
        scopes=[f"user:{alice.name}"],
    )
    assert [a.concept for a in svc.activate(bob, shared, "A").concepts] == ["B"]
    assert [a.concept for a in svc.activate(alice, shared, "A").concepts] == ["B", "secret"]
    assert svc.activate(bob, shared, "A").edges[0].weight == 1.0
    assert [r.concept for r in svc.explore(bob, shared, "A", depth=5).concepts] == ["B"]
    assert svc.unreachable_from(bob, shared, "A").total == 0
    with pytest.raises(NoConcept):
        svc.paths(bob, shared, "A", "secret")


def test_walks_read_the_graph_as_it_was_in_a_window(
    svc: Tabane, user: Principal, context: str
) -> None:
    """A correction closes a range: a walk over a window before it still sees the old edge."""
    first = svc.add_claims(
        user,
        context,
        parse_claims(
            [
                {"subject": "Hana", "label": "lives_in", "object": "Oslo", "weight": 1,
                 "valid_from": "2020-01-01"},
                {"subject": "Oslo", "label": "in", "object": "Norway", "weight": 1,
                 "valid_from": "2000-01-01"},  # without it, valid from when it was recorded
            ]
        ),
    )  # fmt: skip
    svc.add_claims(
        user,
        context,
        parse_claims(
            [
                {"subject": "Hana", "label": "lives_in", "object": "Lyon", "weight": 1,
                 "valid_from": "2024-05-01", "closes": [first.claims[0]]},
            ]
        ),
    )  # fmt: skip
    from datetime import UTC, datetime

    now = {c.concept for c in svc.activate(user, context, "Hana").concepts}
    assert "Lyon" in now and "Oslo" not in now
    then = svc.activate(
        user, context, "Hana", since=datetime(2021, 1, 1, tzinfo=UTC),
        until=datetime(2022, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    assert {c.concept for c in then.concepts} >= {"Oslo"} and "Lyon" not in {
        c.concept for c in then.concepts
    }
    reached = svc.explore(user, context, "Hana", until=datetime(2022, 1, 1, tzinfo=UTC))
    assert "Oslo" in {c.concept for c in reached.concepts}
    found = svc.paths(user, context, "Hana", "Norway", until=datetime(2022, 1, 1, tzinfo=UTC))
    assert found.paths and not svc.paths(user, context, "Hana", "Norway").paths
    with pytest.raises(InvalidInput) as err:
        svc.activate(
            user, context, "Hana", since=datetime(2022, 1, 1, tzinfo=UTC),
            until=datetime(2021, 1, 1, tzinfo=UTC),
        )  # fmt: skip
    assert err.value.issues[0].path == "until"
