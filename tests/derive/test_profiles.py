"""Entity profiles: per concept, a summary of its heaviest open claims with perspectives kept
apart and labelled; determinism, freshness, embeddings, visibility, the route and the CLI."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select
from typer.testing import CliRunner

from tabane.api.app import create_app
from tabane.cli.main import app as cli_app
from tabane.contexts import contexts
from tabane.derive import profiles as prof
from tabane.errors import Forbidden, InvalidInput, NoConcept, NoContext
from tabane.graph.claims.parse import ClaimInput
from tabane.models.embedder import Vectors
from tabane.models.extractive import ExtractiveSummarizer
from tabane.models.summarizer import Member, Summary
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Profile

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


def forget_profiles(svc: Tabane, user: Principal, context: str) -> None:
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        session.execute(delete(Profile).where(Profile.context_id == ctx.id))


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
    forget_profiles(svc, user, context)  # summarized again from nothing, not reused
    assert svc.build_profiles(user, context).reused == 0
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    args = ["derive", "--context", context, "--what", "profiles", "--json"]
    result = CliRunner().invoke(cli_app, args, env=env)
    assert result.exit_code == 0, result.output
    [report] = json.loads(result.stdout)
    assert (report["context"], report["concepts"]) == (context, 7)
    assert svc.profile(user, context, "coffee").built


class CountingSummarizer:
    """The extractive summarizer under any name, recording the members of every call."""

    def __init__(self, name: str = "extractive") -> None:
        self.name = name
        self.inner = ExtractiveSummarizer()
        self.calls: list[tuple[str, ...]] = []

    def summarize(
        self, members: Sequence[Member], *, budget_chars: int, language_hint: str | None = None
    ) -> Summary:
        self.calls.append(tuple(m.ref for m in members))
        got = self.inner.summarize(members, budget_chars=budget_chars)
        return Summary(got.text, got.refs, self.name, got.fingerprint)


class CountingEmbedder:
    """A small deterministic embedder (a text's sha256 as 8 numbers), recording every text."""

    name = "counting-8"
    dim = 8

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim) + 1.0

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]


def built(
    svc: Tabane,
    user: Principal,
    context: str,
    summarizer: CountingSummarizer,
    embedder: CountingEmbedder | None,
) -> prof.ProfileBuild:
    with svc.store.session(user) as session:
        return prof.build(session, contexts.resolve(session, context), summarizer, embedder)


def rows(svc: Tabane, user: Principal, context: str) -> dict[str, tuple[object, ...]]:
    """Each profile's summary, summarizer, fingerprint, refs, model, dim and embedding."""
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        found = session.scalars(select(Profile).where(Profile.context_id == ctx.id))
        out: dict[str, tuple[object, ...]] = {}
        for p in found:
            vec = None if p.embedding is None else tuple(np.asarray(p.embedding).tolist())
            out[p.concept] = (p.summary, p.summarizer, p.fingerprint, tuple(p.refs), p.model,
                              p.dim, vec)  # fmt: skip
        return out


def test_a_rebuild_summarizes_and_embeds_only_the_concepts_that_changed(
    svc: Tabane, user: Principal, context: str
) -> None:
    ids = coffee(svc, user, context)
    summarizer, embedder = CountingSummarizer(), CountingEmbedder()
    first = built(svc, user, context, summarizer, embedder)
    assert (first.concepts, first.reused) == (7, 0)
    assert summarizer.calls and len(embedder.texts) == 7
    before = rows(svc, user, context)
    assert all(r[4:6] == ("counting-8", 8) and r[6] is not None for r in before.values())

    summarizer.calls.clear()
    embedder.texts.clear()
    again = built(svc, user, context, summarizer, embedder)
    assert (again.concepts, again.reused) == (7, 7)
    assert summarizer.calls == [] and embedder.texts == []  # nothing written twice
    assert rows(svc, user, context) == before

    # a new claim about tea (and the new concept China): only those two are summarized
    [new] = svc.add_claims(user, context, [ClaimInput("tea", "grows in", "China", 1.0)]).claims
    changed = built(svc, user, context, summarizer, embedder)
    assert (changed.concepts, changed.reused) == (8, 6)
    tea_refs = {f"c:{i}" for i in (ids[2], ids[5], new)}
    assert {r for call in summarizer.calls for r in call} == tea_refs  # tea's and China's
    assert len(embedder.texts) == 2
    after = rows(svc, user, context)
    assert {c: after[c] for c in before if c != "tea"} == {
        c: r for c, r in before.items() if c != "tea"
    }
    assert after["tea"][0] != before["tea"][0] and f"c:{new}" in after["tea"][3]
    assert svc.profile(user, context, "tea").stale is False


def test_summaries_built_without_an_embedder_get_vectors_when_one_appears(
    svc: Tabane, user: Principal, context: str
) -> None:
    coffee(svc, user, context)
    summarizer, embedder = CountingSummarizer(), CountingEmbedder()
    built(svc, user, context, summarizer, embedder)
    svc.add_claims(user, context, [ClaimInput("tea", "grows in", "China", 1.0)])
    plain = built(svc, user, context, summarizer, None)  # no embedder: tea and China unembedded
    assert (plain.model, plain.reused) == (None, 6)
    got = rows(svc, user, context)
    assert {c for c, r in got.items() if r[6] is None} == {"tea", "China"}
    assert all(r[4] == "counting-8" for c, r in got.items() if c not in ("tea", "China"))
    summarizer.calls.clear()
    embedder.texts.clear()
    filled = built(svc, user, context, summarizer, embedder)
    assert filled.reused == 8 and summarizer.calls == []  # summaries kept; only vectors written
    assert len(embedder.texts) == 2
    final = rows(svc, user, context)
    assert all(r[4:6] == ("counting-8", 8) and r[6] is not None for r in final.values())
    assert {c: r[:4] for c, r in final.items()} == {c: r[:4] for c, r in got.items()}


def test_another_summarizer_rewrites_every_profile(
    svc: Tabane, user: Principal, context: str
) -> None:
    """A stored summary is never kept under another summarizer's name (it would credit the
    wrong author), even when the members did not change."""
    coffee(svc, user, context)
    built(svc, user, context, CountingSummarizer(), None)
    other = CountingSummarizer("other-summarizer")
    report = built(svc, user, context, other, None)
    assert (report.reused, report.summarizer) == (0, "other-summarizer")
    assert len(other.calls) >= 7
    assert {r[1] for r in rows(svc, user, context).values()} == {"other-summarizer"}
