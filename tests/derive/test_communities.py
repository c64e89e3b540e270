"""Communities of a context's association graph: deterministic Louvain, summaries, freshness,
visibility, the HTTP routes and the CLI."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from typer.testing import CliRunner

from tabane.api.app import create_app
from tabane.cli.main import app as cli_app
from tabane.contexts import contexts
from tabane.derive.communities import communities as comm
from tabane.derive.communities import graph as cg
from tabane.errors import Forbidden, InvalidInput, NoContext
from tabane.graph.claims.parse import ClaimInput
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema.derived import Community

from helpers import unique

FRUIT = ("apple", "banana", "cherry", "damson")
VEHICLES = ("bike", "bus", "car", "truck")


def clique(names: tuple[str, ...], label: str, weight: float = 1.0) -> list[ClaimInput]:
    return [ClaimInput(a, label, b, weight) for i, a in enumerate(names) for b in names[i + 1 :]]


def two_clusters(svc: Tabane, user: Principal, context: str) -> None:
    claims = [
        *clique(FRUIT, "goes with", 2.0),
        *clique(VEHICLES, "shares road with", 1.5),
        ClaimInput("apple", "painted on", "truck", 0.1),  # one weak bridge
        ClaimInput("banana", "is not", "car", -1.0),  # negative: counts by |weight|
        ClaimInput("banana", "is not", "car", 0.5),  # nets to -0.5
    ]
    svc.add_claims(user, context, claims)


def shape(result: comm.Communities) -> list[tuple[Any, ...]]:
    return [
        (c.level, c.ordinal, c.parent, c.size, c.summary, c.summarizer, c.members)
        for c in result.communities
    ]


# --- building ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_separated_clusters_come_out_as_two_communities(
    svc: Tabane, user: Principal, context: str
) -> None:
    two_clusters(svc, user, context)
    report = svc.build_communities(user, context)
    assert report.communities == (2,)
    assert (report.concepts, report.edges, report.summarizer) == (8, 14, "edges-v2")
    got = svc.communities(user, context)
    assert got.built and not got.stale and got.graph_version == got.current_version
    # Equal sizes: the smaller first member name ("apple" < "bike") comes first.
    assert [tuple(sorted(m.concept for m in c.members)) for c in got.communities] == [
        FRUIT,
        VEHICLES,
    ]
    fruit = got.communities[0]
    assert (fruit.level, fruit.ordinal, fruit.parent, fruit.size) == (0, 0, None, 4)
    # apple: three fruit edges of 2 and the bridge of 0.1; banana: three of 2 and |-0.5|
    assert fruit.members[:2] == (comm.Member("banana", 6.5), comm.Member("apple", 6.1))
    assert fruit.summary == (
        "4 concepts: banana (6.5), apple (6.1), cherry (6), damson (6). Heaviest edges: "
        "apple goes with banana (2); apple goes with cherry (2); apple goes with damson (2); "
        "banana goes with cherry (2); banana goes with damson (2)."
    )


def test_a_negative_edge_reads_not_in_the_summary() -> None:
    group = cg.Group(0, 0, (("Pluto", 1.5), ("planet", 1.0), ("Sun", 0.5)))
    edges = [(("Pluto", "is a", "planet"), -1.0), (("Pluto", "orbits", "Sun"), 0.5)]
    assert cg.summarize(group, edges) == (
        "3 concepts: Pluto (1.5), planet (1), Sun (0.5). Heaviest edges: "
        "Pluto not is a planet (1); Pluto orbits Sun (0.5)."
    )


@pytest.mark.slow
def test_building_twice_gives_identical_communities_and_summaries(
    svc: Tabane, user: Principal, context: str
) -> None:
    rng = random.Random(7)
    names = [f"n{i:03d}" for i in range(60)]
    claims = [
        ClaimInput(rng.choice(names), rng.choice(["a", "b"]), rng.choice(names), rng.random())
        for _ in range(300)
    ]
    svc.add_claims(user, context, claims)
    first = svc.build_communities(user, context)
    one = svc.communities(user, context)
    second = svc.build_communities(user, context)
    two = svc.communities(user, context)
    assert first.communities == second.communities and len(one.communities) > 1
    assert shape(one) == shape(two)
    assert second.built_at >= first.built_at


def test_partition_ignores_the_order_edges_arrive_in() -> None:
    rng = random.Random(3)
    names = [f"c{i}" for i in range(80)]
    edges = {cg.pair(*rng.sample(names, 2)): round(rng.random(), 3) for _ in range(400)}
    shuffled = list(edges.items())
    rng.shuffle(shuffled)
    assert cg.partition(edges) == cg.partition(dict(shuffled))


@pytest.mark.slow
def test_a_large_graph_gets_a_level_above(svc: Tabane, user: Principal, context: str) -> None:
    """Thirty small cliques in a ring: level 0 finds the cliques, level 1 joins neighbours."""
    claims = []
    for k in range(30):
        members = tuple(f"k{k:02d}m{i}" for i in range(4))
        claims += clique(members, "near", 1.0)
        claims.append(ClaimInput(members[0], "next", f"k{(k + 1) % 30:02d}m1", 0.2))
    svc.add_claims(user, context, claims)
    with svc.store.session(user) as session:
        report = comm.build(session, contexts.resolve(session, context), level_up_after=10)
    assert report.communities[0] == 30 and 1 < report.communities[1] < 30
    got = svc.communities(user, context)
    upper = svc.communities(user, context, level=1).communities
    assert [c.level for c in upper] == [1] * len(upper)
    lower = [c for c in got.communities if c.level == 0]
    assert all(c.parent is not None and 0 <= c.parent < len(upper) for c in lower)
    for u in upper:  # a level-1 community holds exactly the members of its children
        children = [c for c in lower if c.parent == u.ordinal]
        assert u.size == sum(c.size for c in children)


def test_an_empty_graph_builds_nothing_and_is_not_stale(
    svc: Tabane, user: Principal, context: str
) -> None:
    assert svc.build_communities(user, context).communities == ()
    got = svc.communities(user, context)
    assert (got.built, got.stale, got.communities) == (False, False, ())


# --- freshness --------------------------------------------------------------------------------


@pytest.mark.slow
def test_stale_after_a_claim_write_and_fresh_after_a_rebuild(
    svc: Tabane, user: Principal, context: str
) -> None:
    two_clusters(svc, user, context)
    assert svc.communities(user, context).stale  # never built, graph not empty
    svc.build_communities(user, context)
    assert not svc.communities(user, context).stale
    svc.add_claims(user, context, [ClaimInput("cherry", "goes with", "elderberry", 1.0)])
    stale = svc.communities(user, context)
    assert stale.stale and stale.graph_version != stale.current_version
    assert svc.search_communities(user, context, "cherry").stale
    svc.build_communities(user, context)
    fresh = svc.communities(user, context)
    assert not fresh.stale
    assert "elderberry" in {m.concept for m in fresh.communities[0].members}
    with svc.store.admin() as session:  # summaries an older summarizer wrote: stale as well
        session.execute(update(Community).values(summarizer="edges-v1"))
    assert svc.communities(user, context).stale


@pytest.mark.slow
def test_retracting_makes_it_stale_too(svc: Tabane, user: Principal, context: str) -> None:
    two_clusters(svc, user, context)
    svc.build_communities(user, context)
    svc.retract_associations(user, context, [("apple", "painted on", "truck", None, None)])
    assert svc.communities(user, context).stale


# --- visibility -------------------------------------------------------------------------------


@pytest.mark.slow
def test_visibility(svc: Tabane, make_user: Callable[..., Principal]) -> None:
    """The rule: a build clusters only association rows inside the context's scope set, so a
    reader of the context never meets a concept it could not see; an outsider sees nothing;
    only a writer of the context may build."""
    org = f"org:{unique('o')}"
    alice = make_user("alice", extra_write=(org,))
    bob = make_user("bob", extra_read=(org,))
    eve = make_user("eve")
    context = unique("ctx")
    svc.create_context(alice, context, scopes=[org])
    two_clusters(svc, alice, context)
    personal = [*alice.default_scopes, org]  # readable by alice only
    svc.add_claims(alice, context, clique(("secret", "plan"), "is"), scopes=personal)
    svc.add_claims(alice, context, [ClaimInput("apple", "hides", "secret", 9.0)], scopes=personal)
    svc.build_communities(alice, context)
    for who in (alice, bob):
        got = svc.communities(who, context)
        assert not got.stale, who.name
        names = {m.concept for c in got.communities for m in c.members}
        assert names == set(FRUIT) | set(VEHICLES)
        assert "secret" not in " ".join(c.summary for c in got.communities)
    assert svc.search_communities(bob, context, "secret plan").hits == ()
    for read in (
        lambda: svc.communities(eve, context),
        lambda: svc.search_communities(eve, context, "apple"),
    ):
        with pytest.raises(NoContext):
            read()
    with pytest.raises(Forbidden):
        svc.build_communities(bob, context)
    with pytest.raises(NoContext):
        svc.build_communities(eve, context)


# --- search -----------------------------------------------------------------------------------


def test_search_matches_member_names_and_summaries(
    svc: Tabane, user: Principal, context: str
) -> None:
    two_clusters(svc, user, context)
    svc.build_communities(user, context)
    found = svc.search_communities(user, context, "Truck and BUS")
    assert found.terms == ("and", "bus", "truck") and found.total == 1
    hit = found.hits[0]
    assert hit.community.ordinal == 1 and hit.matched == ("truck", "bus")  # heaviest first
    assert hit.score == pytest.approx(2 / 3)
    # a label named in a summary matches too ("goes with" is only in the fruit summary)
    assert [h.community.ordinal for h in svc.search_communities(user, context, "goes").hits] == [0]
    both = svc.search_communities(user, context, "apple car", limit=1)
    assert (both.total, len(both.hits)) == (2, 1)
    assert svc.search_communities(user, context, "!!!").hits == ()


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda s, u, c: s.communities(u, c, level=-1), "level"),
        (lambda s, u, c: s.search_communities(u, c, "  "), "query"),
        (lambda s, u, c: s.search_communities(u, c, "apple", limit=0), "limit"),
        (lambda s, u, c: s.search_communities(u, c, "apple", limit=101), "limit"),
        (lambda s, u, c: s.derive(u, c, what="trees"), "what"),
    ],
)
def test_bad_input(svc: Tabane, user: Principal, context: str, call: Any, path: str) -> None:
    with pytest.raises(InvalidInput) as info:
        call(svc, user, context)
    assert [i.path for i in info.value.issues] == [path]


def test_unknown_context(svc: Tabane, user: Principal) -> None:
    for call in (svc.build_communities, svc.communities):
        with pytest.raises(NoContext) as info:
            call(user, "no-such-context")
        assert info.value.code == "no_context"


# --- surfaces ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_routes(svc: Tabane, user: Principal, context: str) -> None:
    client = TestClient(create_app(svc, principal=lambda request: user))
    two_clusters(svc, user, context)
    listed = client.get(f"/contexts/{context}/communities").json()
    assert (listed["built"], listed["stale"], listed["communities"]) == (False, True, [])
    svc.build_communities(user, context)
    listed = client.get(f"/contexts/{context}/communities").json()
    assert listed["stale"] is False and [c["size"] for c in listed["communities"]] == [4, 4]
    assert listed["communities"][0]["members"][0] == {"concept": "banana", "weight": 6.5}
    assert client.get(f"/contexts/{context}/communities?level=1").json()["communities"] == []
    found = client.post(f"/contexts/{context}/communities/search", json={"query": "bike"})
    assert found.status_code == 200
    body = found.json()
    assert body["stale"] is False and [h["matched"] for h in body["hits"]] == [["bike"]]
    svc.add_claims(user, context, [ClaimInput("bike", "has", "bell", 1.0)])
    assert client.get(f"/contexts/{context}/communities").json()["stale"] is True
    again = client.post(f"/contexts/{context}/communities/search", json={"query": "bike"})
    assert again.json()["stale"] is True
    missing = client.get("/contexts/nope/communities")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_context"
    bad = client.post(f"/contexts/{context}/communities/search", json={"query": "x", "limit": 0})
    assert bad.status_code == 422 and bad.json()["error"]["issues"][0]["path"] == "body.limit"
    typo = client.post(f"/contexts/{context}/communities/search", json={"q": "x"})
    assert typo.status_code == 422
    negative = client.get(f"/contexts/{context}/communities?level=-1")
    assert negative.status_code == 422


def test_cli_derive(svc: Tabane, tabane_home: Path, user: Principal, context: str) -> None:
    two_clusters(svc, user, context)
    env = {
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    args = ["derive", "--context", context, "--what", "communities", "--json"]
    result = CliRunner().invoke(cli_app, args, env=env)
    assert result.exit_code == 0, result.output
    [report] = json.loads(result.stdout)
    assert (report["context"], report["communities"]) == (context, [2])
    assert not svc.communities(user, context).stale
    bad = CliRunner().invoke(cli_app, ["derive", "--what", "trees"], env=env)
    assert bad.exit_code == 2 and "invalid_input" in bad.stderr
