"""Entity profiles: per concept, a summary of its heaviest open claims with perspectives kept
apart and labelled; determinism, freshness, embeddings, visibility, the route and the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from tabane.api.app import create_app
from tabane.cli.main import app as cli_app
from tabane.contexts import contexts
from tabane.derive import profiles as prof
from tabane.errors import Forbidden, InvalidInput, NoConcept, NoContext
from tabane.graph.claim_input import ClaimInput
from tabane.service import Tabane
from tabane.storage.schema import Profile
from tabane.types import Principal

from helpers import unique


def coffee(svc: Tabane, user: Principal, context: str) -> list[int]:
    """World facts about coffee, and two holders who disagree about it."""
    claims = [
        ClaimInput("coffee", "contains", "caffeine", 3.0),
        ClaimInput("coffee", "grows in", "Ethiopia", 2.0),
        ClaimInput("coffee", "is", "tea", -1.5),  # negative: rendered with "not"
        ClaimInput("coffee", "tastes", "bitter", 1.0, kind="opinion", perspective="alice"),
        ClaimInput("coffee", "tastes", "sweet", 1.0, kind="opinion", perspective="bob"),
        ClaimInput("tea", "contains", "theanine", 1.0),
    ]
    return list(svc.add_claims(user, context, claims).claims)


def lines(summary: str) -> list[str]:
    return summary.split("\n")


def test_perspectives_are_kept_apart_and_labelled(
    svc: Tabane, user: Principal, context: str
) -> None:
    ids = coffee(svc, user, context)
    report = svc.build_profiles(user, context)
    assert (report.concepts, report.candidates, report.summarizer) == (7, 7, "extractive")
    assert report.model is None
    got = svc.profile(user, context, "coffee")
    assert got.built and not got.stale and got.claim_version == got.current_version
    world, *holders = lines(got.summary)
    # world claims first, unlabelled; the negative one says "not"
    assert "coffee contains caffeine" in world and "coffee not is tea" in world
    assert "bitter" not in world and "sweet" not in world
    # each opinion rendered under its holder (equal weights: by name)
    assert holders == [
        f"alice: coffee tastes bitter [c:{ids[3]}]",
        f"bob: coffee tastes sweet [c:{ids[4]}]",
    ]
    assert set(got.refs) == {f"c:{i}" for i in ids[:5]}
    assert got.weight == pytest.approx(3.0 + 2.0 + 1.5 + 1.0 + 1.0)
    assert got.summarizer == "extractive" and got.fingerprint and got.dim is None
    # tea: one world claim of its own, and the negative coffee claim
    tea = svc.profile(user, context, "tea")
    assert set(tea.refs) == {f"c:{ids[2]}", f"c:{ids[5]}"}


def test_building_twice_gives_identical_profiles(
    svc: Tabane, user: Principal, context: str
) -> None:
    coffee(svc, user, context)
    svc.add_claims(
        user,
        context,
        [ClaimInput(f"n{i % 7}", "near", f"n{(i * 3) % 11}", 0.1 + i / 50) for i in range(60)],
    )
    concepts = ["coffee", "tea", "n0", "n3", "caffeine"]
    svc.build_profiles(user, context)
    one = [svc.profile(user, context, c) for c in concepts]
    svc.build_profiles(user, context)
    two = [svc.profile(user, context, c) for c in concepts]

    def shape(p: prof.ProfileInfo) -> tuple[object, ...]:
        return (p.concept, p.summary, p.refs, p.fingerprint, p.weight, p.claim_version)

    assert [shape(p) for p in one] == [shape(p) for p in two]
    assert all(p.built and not p.stale and p.summary for p in two)


def test_top_keeps_the_heaviest_concepts(svc: Tabane, user: Principal, context: str) -> None:
    coffee(svc, user, context)
    report = svc.build_profiles(user, context, top=2)
    assert (report.concepts, report.candidates) == (2, 7)
    assert svc.profile(user, context, "coffee").built  # 8.5
    assert svc.profile(user, context, "caffeine").built  # 3, before tea's 2.5
    unbuilt = svc.profile(user, context, "tea")
    assert (unbuilt.built, unbuilt.stale, unbuilt.summary) == (False, True, "")
    with pytest.raises(InvalidInput) as info:
        svc.build_profiles(user, context, top=0)
    assert [i.path for i in info.value.issues] == ["top"]


def test_a_closed_claim_leaves_the_profile_after_a_rebuild(
    svc: Tabane, user: Principal, context: str
) -> None:
    ids = coffee(svc, user, context)
    svc.build_profiles(user, context)
    assert f"c:{ids[1]}" in svc.profile(user, context, "coffee").refs
    svc.retract_associations(user, context, [("coffee", "grows in", "Ethiopia", None, None)])
    assert svc.profile(user, context, "coffee").stale
    svc.build_profiles(user, context)
    got = svc.profile(user, context, "coffee")
    assert not got.stale and f"c:{ids[1]}" not in got.refs and "Ethiopia" not in got.summary
    # a concept whose claims all closed has no profile any more
    gone = svc.profile(user, context, "Ethiopia")
    assert (gone.built, gone.stale) == (False, False)


def test_stale_after_a_new_claim_about_the_concept(
    svc: Tabane, user: Principal, context: str
) -> None:
    coffee(svc, user, context)
    svc.build_profiles(user, context)
    svc.add_claims(user, context, [ClaimInput("milk", "goes into", "coffee", 1.0)])
    stale = svc.profile(user, context, "coffee")
    assert stale.stale and stale.claim_version != stale.current_version
    assert not svc.profile(user, context, "theanine").stale  # not about it
    svc.build_profiles(user, context)
    fresh = svc.profile(user, context, "coffee")
    assert not fresh.stale and "milk goes into coffee" in fresh.summary


def test_an_alias_reads_its_concept(svc: Tabane, user: Principal, context: str) -> None:
    coffee(svc, user, context)
    svc.build_profiles(user, context)
    svc.add_alias(user, context, "java", "coffee")
    assert svc.profile(user, context, "java").concept == "coffee"


def test_summary_embedding_has_the_embedder_width(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    coffee(vsvc, user, context)
    report = vsvc.build_profiles(user, context)
    assert vsvc.embedder is not None and report.model == vsvc.embedder.name
    got = vsvc.profile(user, context, "coffee")
    assert (got.model, got.dim) == (vsvc.embedder.name, vsvc.embedder.dim)
    with vsvc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        vectors = session.scalars(select(Profile.embedding).where(Profile.context_id == ctx.id))
        widths = {len(v) for v in vectors}
    assert widths == {vsvc.embedder.dim}


def test_visibility(svc: Tabane, make_user: Callable[..., Principal]) -> None:
    """Only claims inside the context's scope set are profiled; a reader reads them, an
    outsider meets no_context, and only a writer may build."""
    org = f"org:{unique('o')}"
    alice = make_user("alice", extra_write=(org,))
    bob = make_user("bob", extra_read=(org,))
    eve = make_user("eve")
    context = unique("ctx")
    svc.create_context(alice, context, scopes=[org])
    coffee(svc, alice, context)
    personal = [*alice.default_scopes, org]  # readable by alice only
    svc.add_claims(alice, context, [ClaimInput("coffee", "hides", "secret", 9.0)], scopes=personal)
    svc.build_profiles(alice, context)
    for who in (alice, bob):
        got = svc.profile(who, context, "coffee")
        assert got.built and not got.stale and "secret" not in got.summary, who.name
    with pytest.raises(NoContext) as info:
        svc.profile(eve, context, "coffee")
    assert info.value.code == "no_context"
    with pytest.raises(Forbidden):
        svc.build_profiles(bob, context)
    with pytest.raises(NoContext):
        svc.build_profiles(eve, context)


def test_unknown_concept(svc: Tabane, user: Principal, context: str) -> None:
    coffee(svc, user, context)
    with pytest.raises(NoConcept) as info:
        svc.profile(user, context, "cocoa")
    assert info.value.code == "no_concept" and info.value.issues[0].path == "concept"


def test_route(svc: Tabane, user: Principal, context: str) -> None:
    client = TestClient(create_app(svc, principal=lambda request: user))
    coffee(svc, user, context)
    before = client.get(f"/contexts/{context}/profiles/coffee").json()
    assert (before["built"], before["stale"], before["summary"]) == (False, True, "")
    svc.build_profiles(user, context)
    body = client.get(f"/contexts/{context}/profiles/coffee").json()
    assert body["built"] is True and body["stale"] is False
    assert body["summary"].split("\n")[1].startswith("alice: ")
    spaced = client.get(f"/contexts/{context}/profiles/grows%20in")
    assert spaced.status_code == 404 and spaced.json()["error"]["code"] == "no_concept"
    missing = client.get(f"/contexts/{context}/profiles/cocoa")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_concept"
    nope = client.get("/contexts/nope/profiles/coffee")
    assert nope.status_code == 404 and nope.json()["error"]["code"] == "no_context"


def test_cli_derive_profiles(svc: Tabane, tabane_home: Path, user: Principal, context: str) -> None:
    coffee(svc, user, context)
    env = {
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    args = ["derive", "--context", context, "--what", "profiles"]
    result = CliRunner().invoke(cli_app, args, env=env)
    assert result.exit_code == 0, result.output
    [report] = json.loads(result.stdout)
    assert (report["context"], report["concepts"]) == (context, 7)
    assert svc.profile(user, context, "coffee").built
