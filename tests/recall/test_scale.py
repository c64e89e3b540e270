"""One scale across lanes and contexts (recall/scale.py): a context, a lane or a walk that has
nothing to say about the question does not take the first places of one that has."""

from __future__ import annotations

import pytest

from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.recall.plan import RecallRequest, Tunables
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
SERVICES = [
    ClaimInput("billing service", "runs_on", "Postgres 16", 1.0),
    ClaimInput("billing service", "owned_by", "payments team", 1.0),
    ClaimInput("Postgres 16", "hosted_in", "eu-west-1", 1.0),
    ClaimInput("payments team", "reports_to", "finance", 1.0),
]
WIFI = [
    "The meeting room Wi-Fi password is written on the whiteboard by the door.",
    "Guests join the visitor Wi-Fi network; staff use the office network.",
]


def _contexts(vsvc: Tabane, user, make_context) -> tuple[str, str]:
    near, far = make_context(), make_context()
    paragraphs = [block(t) for t in KETTLE]
    document = DocumentInput(source_id="kettle", paragraphs=paragraphs, title="Appliance care")
    vsvc.ingest(user, near, document)
    vsvc.add_claims(user, far, SERVICES)
    vsvc.remember(user, far, {"text": "The billing service moved to Postgres 16 in March."})
    vsvc.wait_for_jobs()
    return near, far


def test_a_far_context_does_not_take_the_places_of_a_near_one(vsvc: Tabane, user, make_context):
    near, far = _contexts(vsvc, user, make_context)
    ask = RecallRequest("How often should I get the limescale out?", (near, far))
    result = vsvc.recall(user, ask)
    # Each context's lanes gather their own pool; ranked per context, the far context's best
    # note and edges stood level with the near context's best paragraph.
    assert [it.citation.context for it in result.items[:3]] == [near] * 3
    placed = [
        r.rank
        for c in result.trace.candidates
        if c.kind in ("claim", "association")
        for r in c.lanes
    ]
    assert placed and min(placed) > len(KETTLE)  # after every passage of the near context
    # The same two contexts, asked about the far one: it comes first (nothing is demoted for
    # being listed second).
    other = vsvc.recall(user, RecallRequest("What database does billing run on?", (near, far)))
    assert other.items[0].citation.context == far
    assert "Postgres 16" in other.items[0].text


def test_a_paragraph_one_lane_missed_is_not_halved_below_a_far_note(
    vsvc: Tabane, user, make_context
):
    near, far = _contexts(vsvc, user, make_context)
    # BM25 finds the two paragraphs that say "kettle"; the one on limescale only by meaning
    ask = RecallRequest("kettle mineral deposits", (near, far))
    # reciprocal ranks averaged over the paragraph lanes (the fusion before score shares)
    imputed = vsvc.recall(user, ask, tunables=Tunables(fusion="per_kind"))
    halved = vsvc.recall(user, ask, tunables=Tunables(fusion="per_kind", impute=False))
    first = imputed.trace.candidates[0]
    assert first.kind == "paragraph" and imputed.items[0].citation.context == near

    def fused(result, key: str) -> float:
        return next(c.fused for c in result.trace.candidates if c.key == key)

    only_vector = [
        c.key for c in imputed.trace.candidates if [r.lane for r in c.lanes] == ["vector"]
    ]
    assert only_vector
    # counted as nothing in the lane that missed it, the paragraph got half its vector rank's
    # share; counted just past that lane's last row, more
    for key in only_vector:
        rank = next(r.rank for c in halved.trace.candidates if c.key == key for r in c.lanes)
        assert abs(fused(halved, key) - 1 / (60 + rank) / 2) < 1e-9
        assert fused(imputed, key) > fused(halved, key)


def test_an_edge_only_a_gloss_led_to_ranks_by_that_gloss(vsvc: Tabane, user, make_context):
    context = make_context()
    vsvc.add_claims(user, context, SERVICES)
    for text in WIFI:
        vsvc.remember(user, context, {"text": text})
    vsvc.wait_for_jobs()
    result = vsvc.recall(user, RecallRequest("Wi-Fi password for the meeting room?", (context,)))
    # no concept of the graph is named: the walk starts from the nearest glosses, which say
    # nothing of Wi-Fi; their edges come after the notes that answer
    assert result.trace.seeds and "Wi-Fi" not in " ".join(result.trace.seeds)
    assert result.items[0].text == WIFI[0]
    # (each fact once: the edge, or the claim that only states its triple)
    triples = [n for n, it in enumerate(result.items) if it.fact]
    assert triples and min(triples) > [it.text for it in result.items].index(WIFI[0])
    walked = [r.rank for c in result.trace.candidates for r in c.lanes if r.lane == "walk"]
    assert min(walked) > 1
    # A question that names a concept keeps the walk's own place for the edges it leads to.
    named = vsvc.recall(user, RecallRequest("What does the billing service run on?", (context,)))
    walk = sorted(
        (r.rank, c.key) for c in named.trace.candidates for r in c.lanes if r.lane == "walk"
    )
    assert walk[0][0] == 1
    first = next(c for c in named.trace.candidates if c.key == walk[0][1])
    assert first.outcome == "served" and first.position == 1
    edge = next(it for it in named.items if it.key == walk[0][1])
    assert edge.text.startswith("billing service —runs_on→ Postgres 16")
