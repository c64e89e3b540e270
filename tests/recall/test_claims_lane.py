"""The claims lane: claim texts embedded by the `embed_claims` job, found by a paraphrase, closed
claims never returned, other callers' claims never visible, bad vectors never stored."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput
from tabane.graph.claims import vectors as claim_vectors
from tabane.graph.claims.parse import ClaimInput
from tabane.jobs import queue
from tabane.models.embedder import Embedder
from tabane.principal import Principal
from tabane.recall.explain import Expected
from tabane.recall.gather import bind
from tabane.recall.lanes import memory as lanes_memory
from tabane.recall.plan import RecallRequest, Tunables
from tabane.search.search import QueryVector
from tabane.service import Tabane
from tabane.storage.schema import ClaimVector, Context, Job

from helpers import BadEmbedder

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

NOTES = (
    "Hannah adopted a beagle puppy named Biscuit last spring.",
    "The quarterly budget review moved to the second Thursday of the month.",
    "Kenji prefers green tea over coffee in the morning.",
    "The staging database is backed up every night at two o'clock.",
)


def _context_id(svc: Tabane, user: Principal, name: str) -> int:
    with svc.store.session(user) as session:
        return int(session.scalar(select(Context.id).where(Context.name == name)))


class ClaimHit(NamedTuple):
    claim_id: int
    context_id: int
    score: float
    rank: int


def claim_lane(
    session: Session,
    context_ids: Sequence[int],
    question: str,
    embedder: Embedder,
    *,
    pool: int,
    floor: float | None,
    asking_notes: bool = True,
) -> list[ClaimHit]:
    """recall's claims lane run as a statement of its own, with the statement's parameters."""
    contexts = [session.get(Context, cid) or Context(id=cid, name="?") for cid in context_ids]
    qv = QueryVector(embedder.embed_query(question), embedder.name, embedder.dim, None)
    t = Tunables(pool=pool, asking_notes=asking_notes)
    params = bind(question, contexts, [floor] * len(contexts), qv, None, t)
    rows = session.execute(
        lanes_memory.claims_lane(embedder.dim).order_by("context_id", "rank"), params
    )
    return [ClaimHit(r.item_id, r.context_id, r.score, r.rank) for r in rows]


def _lane(
    svc: Tabane,
    user: Principal,
    contexts: Sequence[str],
    question: str,
    pool: int = 10,
    asking_notes: bool = True,
) -> list[ClaimHit]:
    embedder = svc.embedder
    assert embedder is not None
    ids = [_context_id(svc, user, c) for c in contexts]
    with svc.store.session(user) as session:
        return claim_lane(
            session, ids, question, embedder, pool=pool, floor=None, asking_notes=asking_notes
        )


def test_a_paraphrase_finds_the_remembered_note(vsvc: Tabane, user: Principal, context: str):
    ids = [vsvc.remember(user, context, {"text": note}) for note in NOTES]
    assert vsvc.wait_for_jobs(timeout=120) == 0
    hits = _lane(vsvc, user, [context], "What is the name of Hannah's dog?")
    assert hits[0].claim_id == ids[0]
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(h.context_id == _context_id(vsvc, user, context) for h in hits)
    assert hits == sorted(hits, key=lambda h: (-h.score, h.claim_id))
    tea = _lane(vsvc, user, [context], "What does Kenji like to drink?")
    assert tea[0].claim_id == ids[2]
    top = _lane(vsvc, user, [context], "What is the name of Hannah's dog?", pool=2)
    assert [h.claim_id for h in top] == [h.claim_id for h in hits[:2]]
    embedder = vsvc.embedder
    assert embedder is not None
    with vsvc.store.session(user) as session:
        floored = claim_lane(
            session,
            [_context_id(vsvc, user, context)],
            "What is the name of Hannah's dog?",
            embedder,
            pool=10,
            floor=(hits[0].score + hits[1].score) / 2,
        )
    assert [h.claim_id for h in floored] == [ids[0]]


def test_a_note_that_asks_scores_half_its_similarity(vsvc: Tabane, user: Principal, context: str):
    notes = [
        "How is Ravi's novel coming along?",  # cosine 0.85 with the question below
        "Ravi's novel is at about forty thousand words.",  # 0.56
        "Ravi finished the first draft of his novel in August.",  # 0.46
        "The bakery ran out of rye bread.",
    ]
    ids = [vsvc.remember(user, context, {"text": note}) for note in notes]
    assert vsvc.wait_for_jobs(timeout=120) == 0
    question = "How far along is Ravi's novel?"
    # As it is, the note that only asks takes the first place: it shares the question's form.
    alone = _lane(vsvc, user, [context], question, asking_notes=False)
    assert [h.claim_id for h in alone][:3] == [ids[0], ids[1], ids[2]]
    # It asserts nothing and no reply stands in for it: an exchange whose reply is unrelated.
    scored = _lane(vsvc, user, [context], question)
    assert [h.claim_id for h in scored][:3] == [ids[1], ids[2], ids[0]]
    asking = {h.claim_id: h.score for h in alone}[ids[0]]
    assert {h.claim_id: h.score for h in scored}[ids[0]] == pytest.approx(asking / 2, abs=1e-5)
    assert [h.score for h in scored if h.claim_id != ids[0]] == [
        h.score for h in alone if h.claim_id != ids[0]
    ]
    served = vsvc.recall(user, RecallRequest(question, (context,)))
    assert served.items[0].text == notes[1]


def test_closed_claims_never_come_back(vsvc: Tabane, user: Principal, context: str) -> None:
    old = vsvc.remember(user, context, {"text": "Hannah lives in Montana."})
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert _lane(vsvc, user, [context], "Where does Hannah live?")[0].claim_id == old
    new = vsvc.remember(user, context, {"text": "Hannah lives in Oregon now.", "closes": [old]})
    assert vsvc.wait_for_jobs(timeout=120) == 0
    hits = _lane(vsvc, user, [context], "Hannah lives in Montana.")
    assert [h.claim_id for h in hits] == [new]


def test_triples_are_embedded_as_phrases_and_jobs_dedupe(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    assert claim_vectors.claim_text(None, "Pluto", "is a", "planet", -1.0) == (
        "Pluto not is a planet"
    )
    assert claim_vectors.claim_text(" ", "Pluto", "orbits", "Sun", 1.0) == "Pluto orbits Sun"
    assert claim_vectors.claim_text("A note.", "a", "b", "c", 1.0) == "A note."
    ctx_id = _context_id(vsvc, user, context)
    for subject in ("Pluto", "Ceres"):  # two writes while the first job waits: one job
        vsvc.add_claims(user, context, [ClaimInput(subject, "orbits", "the Sun", 1.0)])
    with vsvc.store.admin() as session:
        queued = session.scalar(
            select(func.count()).where(
                Job.kind == queue.EMBED_CLAIMS, Job.context_id == ctx_id, Job.state == "queued"
            )
        )
    assert queued == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    hits = _lane(vsvc, user, [context], "Which dwarf planet circles the sun, Ceres?")
    assert len(hits) == 2
    with vsvc.store.session(user) as session:
        stored = session.scalar(
            select(func.count()).select_from(ClaimVector).where(ClaimVector.context_id == ctx_id)
        )
    assert stored == 2


def test_another_users_claims_stay_invisible(
    vsvc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = make_context(alice), make_context(bob)
    vsvc.remember(alice, mine, {"text": NOTES[0]})
    vsvc.remember(bob, theirs, {"text": NOTES[0]})
    assert vsvc.wait_for_jobs(timeout=120) == 0
    theirs_id = _context_id(vsvc, bob, theirs)
    mine_id = _context_id(vsvc, alice, mine)
    embedder = vsvc.embedder
    assert embedder is not None
    with vsvc.store.session(alice) as session:  # naming bob's context id reveals nothing
        hits = claim_lane(
            session,
            [mine_id, theirs_id],
            "Hannah's dog",
            embedder,
            pool=10,
            floor=0.0,
        )
    assert [h.context_id for h in hits] == [mine_id]


@pytest.mark.parametrize("mode", ["nan", "width"])
def test_nan_and_wrong_width_vectors_are_refused(
    svc: Tabane, user: Principal, context: str, mode: str
) -> None:
    bad = BadEmbedder(mode)
    todo = [claim_vectors.ClaimText(1, "x")]
    with pytest.raises(InvalidInput):
        claim_vectors.embed(bad, todo)
    with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
        session.execute(
            update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
        )
    bad_svc = Tabane.build(svc.store, svc.settings, bad)
    bad_svc.remember(user, context, {"text": "Never stored as a vector."})
    assert bad_svc.worker.run_once()
    ctx_id = _context_id(svc, user, context)
    with svc.store.admin() as session:
        job = session.scalars(
            select(Job).where(Job.kind == queue.EMBED_CLAIMS, Job.context_id == ctx_id)
        ).one()
        assert job.state == "queued" and job.attempts == 1
        assert "claim_embeddings" in (job.last_error or "")
        session.execute(update(Job).where(Job.id == job.id).values(state="done"))
    with svc.store.session(user) as session:
        stored = session.scalar(
            select(func.count()).select_from(ClaimVector).where(ClaimVector.context_id == ctx_id)
        )
    assert stored == 0


def test_a_negative_triple_is_served_as_what_it_denies(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    vsvc.add_claims(
        user,
        context,
        [ClaimInput("Pluto", "is a", "planet", -1.0), ClaimInput("Ceres", "orbits", "Sun", 1.0)],
    )
    assert vsvc.wait_for_jobs(timeout=120) == 0
    served = vsvc.recall(user, RecallRequest("Is Pluto a planet?", (context,)))
    # the fact once: as the claim, or as the edge netted from it, whichever ranked first
    pluto = [it.text for it in served.items if it.fact and it.fact.subject == "Pluto"]
    assert pluto in (["NOT (Pluto is a planet)"], ["NOT (Pluto —is a→ planet) [weight -1.00]"])
    ceres = [it.text for it in served.items if it.fact and it.fact.subject == "Ceres"]
    assert ceres in (["Ceres orbits Sun"], ["Ceres —orbits→ Sun [weight +1.00]"])
    assert "Pluto is a planet" not in served.rendered.replace("NOT (Pluto is a planet)", "")


def test_an_edge_and_the_claim_that_only_states_it_are_served_once(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    vsvc.add_claims(
        user,
        context,
        [
            ClaimInput("FailsafeMonitor", "watches", "BatteryMonitor", 1.0),
            ClaimInput("BatteryMonitor", "threshold", "BATT_LOW_VOLTS", 1.0),
        ],
    )
    vsvc.remember(user, context, {"text": "FailsafeMonitor watches BatteryMonitor closely."})
    assert vsvc.wait_for_jobs(timeout=120) == 0
    asked = "What does FailsafeMonitor watch?"
    result = vsvc.recall(user, RecallRequest(asked, (context,)))
    watched = [it for it in result.items if it.fact and it.fact.label == "watches"]
    # the walk finds the edge (FailsafeMonitor is named), which takes its claim's place
    assert len(watched) == 1 and watched[0].kind == "association"
    # the note says more than the triple, so it is served beside it
    assert "FailsafeMonitor watches BatteryMonitor closely." in {it.text for it in result.items}
    facts = [it.fact for it in result.items if it.fact]
    assert len(facts) == len(set(facts))  # no fact twice, the threshold's neither
    # its claim is the duplicate, and explain says so
    claim = int(next(c.key for c in result.trace.candidates
                     if c.outcome == "duplicate" and c.kind == "claim")[2:])  # fmt: skip
    why = vsvc.explain_recall(user, RecallRequest(asked, (context,)), Expected(claim=claim))
    assert why.verdict == "duplicate" and "edge" in why.detail
    repeats = {c.kind for c in result.trace.candidates if c.outcome == "duplicate"}
    assert repeats and repeats <= {"claim", "association"}
