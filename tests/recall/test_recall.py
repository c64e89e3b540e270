"""recall through the service: one statement over every lane, ordering, budget, trace."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tabane.errors import InvalidInput, NoContext, NoSession
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.recall.plan import RecallRequest, Tunables
from tabane.service import Tabane
from tabane.storage.schema import Claim

from helpers import counting_beside, espresso_profile

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
GARDEN = [
    "Tomatoes need six hours of sun and deep watering twice a week.",
    "Prune the roses in late winter, just above an outward-facing bud.",
]


def _ingest(svc: Tabane, user, context: str, sid: str, texts: list[str], **meta) -> None:
    svc.ingest(
        user, context, DocumentInput(source_id=sid, paragraphs=[block(t) for t in texts], **meta)
    )


def test_lexical_recall_serves_cited_paragraphs_and_reports_every_lane(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", KETTLE, title="Kettle care")
    _ingest(svc, user, context, "garden", GARDEN, title="Garden notes")
    result = svc.recall(user, RecallRequest("how do I remove limescale with vinegar?", (context,)))
    first = result.items[0]
    assert (first.citation.source, first.citation.paragraph) == ("kettle", 1)
    assert first.provenance == "source excerpt"
    assert first.citation.title == "Kettle care"
    assert [s.name for s in first.scopes]
    lanes = result.trace.lanes
    assert lanes["bm25"].ran and lanes["bm25"].hits >= 1
    assert not lanes["vector"].ran and lanes["vector"].reason == "no_embedder"
    assert not lanes["turns"].ran and lanes["turns"].reason == "no_session"
    assert "limescale" in result.rendered and "bm25" not in result.rendered
    assert result.trace.id is not None
    assert result.trace.used_tokens <= result.trace.budget_tokens


def test_a_source_named_by_title_comes_first(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", KETTLE, title="Kettle care")
    _ingest(svc, user, context, "garden", GARDEN, title="Garden notes")
    result = svc.recall(
        user, RecallRequest("what do the garden notes say about the kettle?", (context,))
    )
    assert result.items[0].citation.source == "garden" and result.items[0].direct
    assert all(not it.direct for it in result.items if it.citation.source == "kettle")


def test_a_source_named_by_the_name_its_title_opens_with(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", KETTLE, title="kettle-care(7) — household manual")
    _ingest(svc, user, context, "garden", GARDEN, title="Garden notes")

    def first(question: str, names: str = "marked"):
        got = svc.recall(user, RecallRequest(question, (context,)), tunables=Tunables(names=names))
        return got.items[0], got.trace.lanes["title"].hits

    # a name marked as one: in code, or in another script than the prose around it
    for question in ("does `kettle-care` cover roses?", "kettle care について、roses は？"):
        item, _ = first(question)
        assert (item.citation.source, item.direct) == ("kettle", True), question
    # in plain prose the same words are as often just words: not named, unless every name is
    item, _ = first("does kettle care cover roses?")
    assert not item.direct
    item, _ = first("does kettle care cover roses?", names="all")
    assert (item.citation.source, item.direct) == ("kettle", True)
    item, hits = first("does `kettle-care` cover roses?", names="off")
    assert not item.direct and hits == 0


def test_budget_keeps_the_longest_prefix_that_fits(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", KETTLE, title="Kettle care")
    prefix = Tunables(budget_fill=False)
    wide = svc.recall(user, RecallRequest("kettle element water", (context,)))
    ask = RecallRequest("kettle element water", (context,), budget=80)
    tight = svc.recall(user, ask, tunables=prefix)
    assert 0 < len(tight.items) < len(wide.items)
    assert [it.key for it in tight.items] == [it.key for it in wide.items[: len(tight.items)]]
    # by default each later item that still fits is served too, in the same order (decision 0043)
    filled = svc.recall(user, ask)
    keys = [it.key for it in wide.items]
    served = [keys.index(it.key) for it in filled.items]
    assert served == sorted(served) and filled.trace.used_tokens <= 80
    assert [it.key for it in filled.items][: len(tight.items)] == [it.key for it in tight.items]
    cut = [c for c in tight.trace.candidates if c.outcome == "cut_by_budget"]
    assert cut and tight.trace.used_tokens <= 80
    # the budget counts each item as it is written: citation line, scopes and text
    body = tight.rendered.split("\n", 1)[1]  # all but the question's line
    assert len(body) <= 80 * svc.settings.chars_per_token
    assert tight.trace.used_tokens * svc.settings.chars_per_token >= len(body) - 2
    nothing = svc.recall(
        user, RecallRequest("kettle element water", (context,), budget=1), tunables=prefix
    )
    assert nothing.items == () and nothing.trace.candidates
    # found but cut is not "not mentioned": a reader told so would deny what is stored
    assert "not mentioned" not in nothing.rendered
    assert "Evidence was found" in nothing.rendered and "budget of 1 tokens" in nothing.rendered


def test_bad_requests_are_refused_with_their_field(svc: Tabane, user, context):
    for request, field in [
        (RecallRequest("", (context,)), "question"),
        (RecallRequest("\u200b\u200d\ufeff \u2060", (context,), force=True), "question"),
        (RecallRequest("kettle", (context,), budget=0), "budget"),
        (RecallRequest("kettle", (context,), budget=10**9), "budget"),
        (RecallRequest("kettle", ()), "contexts"),
        # Python callers get the same checks as the wire's schemas: no truthy strings, and a
        # bare name is not read letter by letter
        (RecallRequest("kettle descaling", (context,), force="no"), "force"),  # type: ignore[arg-type]
        (RecallRequest("kettle descaling", context), "contexts"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(InvalidInput) as err:
            svc.recall(user, request)
        assert err.value.issues[0].path == field
    with pytest.raises(NoContext):
        svc.recall(user, RecallRequest("kettle", ("no-such-context",)))
    with pytest.raises(NoSession):
        svc.recall(user, RecallRequest("kettle", (context,), session="nope"))


@pytest.mark.slow
def test_every_memory_lane_feeds_one_bundle(vsvc: Tabane, user, context):
    _ingest(vsvc, user, context, "kettle", KETTLE, title="Kettle care")
    note = vsvc.remember(
        user, context, {"text": "Aiko prefers green tea to coffee."}, speaker="Aiko"
    )
    vsvc.remember(
        user,
        context,
        {"text": "the kettle does not cause fires", "subject": "kettle", "label": "causes",
         "object": "fire", "weight": -0.8, "kind": "world"},
    )  # fmt: skip
    vsvc.add_turn(user, "chat", "I am descaling the kettle this afternoon.", speaker="Aiko")
    vsvc.wait_for_jobs()
    result = vsvc.recall(
        user,
        RecallRequest(
            "What tea does Aiko like and is the kettle safe?", (context,), session="chat"
        ),
    )
    kinds = {it.kind: it for it in result.items}
    assert {"paragraph", "claim", "association", "turn"} <= set(kinds)
    assert kinds["turn"].provenance == "recent session memory" and kinds["turn"].author == "Aiko"
    edge = kinds["association"]
    assert edge.provenance == "derived memory" and edge.text.startswith(
        "NOT (kettle —causes→ fire)"
    )
    claim = next(it for it in result.items if it.citation.claim == note)
    assert claim.author == "Aiko"
    assert "kettle" in result.trace.seeds  # named; the nearest glosses may join it
    assert all(
        report.ran
        for report in result.trace.lanes.values()
        if report.reason not in ("no_session", "not_navigation")  # not a where-question
    )
    # only served claims count as accessed
    with vsvc.store.admin() as session:
        assert session.scalar(select(Claim.access_count).where(Claim.id == note)) == 1
    tight = vsvc.recall(user, RecallRequest("What tea does Aiko like?", (context,), budget=1))
    assert tight.items == () and any(c.key == f"c:{note}" for c in tight.trace.candidates)
    with vsvc.store.admin() as session:
        assert session.scalar(select(Claim.access_count).where(Claim.id == note)) == 1


@pytest.mark.slow
def test_the_asking_speaker_is_named_in_the_bundle_and_not_embedded(vsvc: Tabane, user, context):
    _ingest(vsvc, user, context, "kettle", KETTLE, title="Kettle care")
    vsvc.add_turn(user, "chat", "Ravi! Who?", speaker="Ravi")
    vsvc.remember(user, context, {"text": "The kettle is descaled with citric acid."})
    vsvc.wait_for_jobs()
    question = "How is the kettle descaled?"
    plain = vsvc.recall(user, RecallRequest(question, (context,), session="chat"))
    asked = vsvc.recall(user, RecallRequest(question, (context,), session="chat", speaker="Ravi"))
    assert [(c.key, c.lanes) for c in asked.trace.candidates] == [
        (c.key, c.lanes) for c in plain.trace.candidates
    ]
    assert "Asked by: Ravi" in asked.rendered and "Asked by" not in plain.rendered


def test_the_gate_answers_trivial_turns_with_nothing_unless_forced(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", ["thanks for the kettle tips"], title="Thanks")
    gated = svc.recall(user, RecallRequest("thanks!", (context,)))
    assert gated.items == () and gated.trace.gate is not None
    assert gated.trace.candidates == ()
    # skipped is not "not mentioned": the bundle says the search did not run, and how to force it
    assert "not mentioned" not in gated.rendered
    assert "not searched" in gated.rendered and gated.trace.gate in gated.rendered
    forced = svc.recall(user, RecallRequest("thanks!", (context,), force=True))
    assert forced.trace.gate is None and forced.items


def test_the_trace_is_persisted_for_its_asker_only(svc: Tabane, user, make_user, context):
    from tabane.errors import NoTrace

    _ingest(svc, user, context, "kettle", KETTLE)
    result = svc.recall(user, RecallRequest("kettle limescale", (context,)))
    stored = svc.recall_trace(user, result.trace.id)
    assert stored["trace"]["candidates"][0]["key"] == result.trace.candidates[0].key
    with pytest.raises(NoTrace):
        svc.recall_trace(make_user(), result.trace.id)


def test_working_memory_serves_similar_turns_and_the_newest_not_the_whole_window(
    svc: Tabane, user, context
):
    from tabane.recall.plan import Tunables

    chat = "window-test"
    said = [
        "The heron nests by the old mill pond every April.",
        "Lunch was soup again.",
        "The train was late this morning.",
        "My cousin visits on Sunday.",
        "I repainted the fence blue.",
        "We should book the dentist.",
    ]
    for text in said:
        svc.add_turn(user, chat, text, speaker="Mia")
    ask = RecallRequest("Where does the heron nest?", (context,), session=chat)
    result = svc.recall(user, ask, tunables=Tunables(recent_turns=2, turn_hits=3))
    turns = [it.text for it in result.items if it.kind == "turn"]
    assert turns[0] == said[0]  # the rare shared word ranks it first
    assert set(turns) == {said[0], said[-1], said[-2]}  # plus the newest two, nothing else
    assert all(it.provenance == "recent session memory" for it in result.items if it.kind == "turn")


def test_with_an_embedder_the_window_is_ranked_by_meaning(vsvc: Tabane, user, context):
    chat = "window-vectors"
    said = [
        "My sister adopted a small grey kitten last week.",
        "Lunch was soup again.",
        "The train was late this morning.",
        "I repainted the fence blue.",
        "We should book the dentist.",
    ]
    for text in said:
        vsvc.add_turn(user, chat, text, speaker="Mia")
    vsvc.wait_for_jobs()
    ask = RecallRequest("Which pet did her sibling get?", (context,), session=chat)
    result = vsvc.recall(user, ask)
    turns = [it.text for it in result.items if it.kind == "turn"]
    assert turns[0] == said[0]  # no shared word: the embedding finds it
    assert said[-1] in turns and said[-2] in turns


@pytest.mark.slow
def test_a_recent_turn_takes_the_place_its_meaning_earns_among_the_passages(
    vsvc: Tabane, user, context
):
    _ingest(vsvc, user, context, "birds", [
        "The grey heron nests in the tall reeds along the north shore of the pond.",
        "Herons build their nests high in the reeds and return to them every spring.",
        "Kingfishers dig nesting tunnels into the steep clay bank by the old bridge.",
        "The boathouse was repainted green in May.",
    ], title="Pond wildlife")  # fmt: skip
    chat = "pond-walk"
    for text in ("Did you remember to bring the flask?", "The car park was full again."):
        vsvc.add_turn(user, chat, text, speaker="Mia")
    vsvc.wait_for_jobs()
    ask = RecallRequest("Where does the heron nest?", (context,), session=chat)

    def place(result, start: str) -> int:
        return next(n for n, it in enumerate(result.items) if it.text.startswith(start))

    # In a lane of its own, the window's best turn took a first place whatever it said: here
    # before the second heron paragraph.
    own_lane = vsvc.recall(user, ask, tunables=Tunables(turn_scale=False))
    assert place(own_lane, "The car park") < place(own_lane, "Herons build")
    # On the passages' scale it comes after the paragraphs nearer the question, and still comes.
    scaled = vsvc.recall(user, ask)
    assert place(scaled, "The grey heron") < place(scaled, "Herons build")
    assert place(scaled, "Herons build") < place(scaled, "The car park")
    turn = next(c for c in scaled.trace.candidates if c.kind == "turn").lanes[0]
    nearer = [r for c in scaled.trace.candidates for r in c.lanes if r.lane == "vector"]
    assert turn.rank == 1 + sum(1 for r in nearer if r.score > turn.score) > 2
    # A turn that says what the question asks ranks with the best passage (a tie with the
    # paragraph first in both of its lanes).
    vsvc.add_turn(user, chat, "The heron nests in the reeds at the north end of the pond.")
    vsvc.wait_for_jobs()
    near = vsvc.recall(user, ask)
    assert place(near, "The heron nests") < place(near, "Herons build")
    said = next(c for c in near.trace.candidates if c.kind == "turn" and c.position <= 2)
    assert said.lanes[0].rank == 1


@pytest.mark.slow
def test_entity_profiles_join_the_bundle_by_their_summary_embedding(vsvc: Tabane, user, context):
    ask = espresso_profile(vsvc, user, context)
    result = vsvc.recall(user, ask)
    profiles = [it for it in result.items if it.kind == "profile"]
    assert profiles and profiles[0].provenance == "derived memory"
    assert profiles[0].citation.title == "profile of espresso"
    assert "nine bar" in profiles[0].text
    assert [s.name for s in profiles[0].scopes] == [f"user:{user.name}"]  # as stored
    assert any(note.startswith(f"{profiles[0].key} built ") for note in result.trace.notes)
    assert result.trace.lanes["profiles"].ran and result.trace.lanes["profiles"].hits >= 1
    without = vsvc.recall(
        user, RecallRequest(ask.question, (context,), plan="maximal_without_profiles")
    )
    assert not [it for it in without.items if it.kind == "profile"]
    assert without.trace.lanes["profiles"].reason == "not_in_plan"


@pytest.mark.slow
def test_communities_are_built_in_the_background_and_recalled_by_their_summary(
    vsvc: Tabane, user, context
):

    vsvc.add_claims(
        user,
        context,
        [
            ClaimInput("tomato", "grows with", "basil", 1.0),
            ClaimInput("basil", "grows with", "pepper", 1.0),
            ClaimInput("pepper", "grows with", "tomato", 1.0),
            ClaimInput("router", "connects to", "switch", 1.0),
            ClaimInput("switch", "connects to", "firewall", 1.0),
        ],
    )
    vsvc.wait_for_jobs()  # embeddings, then the debounced community build with its vectors
    built = vsvc.communities(user, context)
    assert not built.stale and len(built.communities) == 2
    result = vsvc.recall(user, RecallRequest("Which plants grow well with tomatoes?", (context,)))
    groups = [it for it in result.items if it.kind == "community"]
    assert groups and groups[0].provenance == "derived memory"
    assert "basil" in groups[0].text and "router" not in groups[0].text
    assert [s.name for s in groups[0].scopes] == [f"user:{user.name}"]
    assert result.trace.lanes["communities"].ran


def test_the_bm25_lane_scored_beside_gathers_the_same_candidates(svc: Tabane, user, context):
    from tabane.recall import gather
    from tabane.search.search import QueryVector
    from tabane.storage.schema import Context

    _ingest(svc, user, context, "kettle", KETTLE, title="Kettle care")
    svc.remember(user, context, {"text": "the kettle is descaled monthly", "subject": "kettle",
                                 "label": "needs", "object": "descaling", "weight": 1.0,
                                 "kind": "world"})  # fmt: skip
    question = "How often does the kettle need descaling?"
    qv = QueryVector(None, None, None, "no_embedder")
    beside, submitted = counting_beside(svc.store, user)
    with svc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == context))
        alone = gather.gather(session, question, [ctx], [None], qv, None)
        together = gather.gather(session, question, [ctx], [None], qv, None, beside=beside)
    assert len(submitted) == 1
    assert [(c.key, c.lanes) for c in together.candidates] == [
        (c.key, c.lanes) for c in alone.candidates
    ]
    assert together.seeds == alone.seeds == ("descaling", "kettle")
    assert {"bm25", "walk"} <= {lane for c in together.candidates for lane in c.lane_names}


def test_a_concept_is_seeded_when_its_key_is_a_part_of_the_question(
    svc: Tabane, user, make_context
) -> None:
    context = make_context()
    svc.add_claims(
        user,
        context,
        [
            ClaimInput("東京", "has", "Shibuya", 1.0),
            ClaimInput("tea", "needs", "water", 1.0),
            ClaimInput("Kettle", "boils", "water", 1.0),
        ],
    )
    result = svc.recall(user, RecallRequest("東京で kettles と tea を", (context,)))
    # inside a longer word, in another case; a three-letter Latin key is too short to count
    assert result.trace.seeds == ("Kettle", "東京")


def test_an_edge_joining_two_named_concepts_walks_first(svc: Tabane, user, make_context) -> None:
    context = make_context()
    svc.add_claims(user, context, [
        ClaimInput("FailsafeMonitor", "polls", "radio link", 1.0),
        ClaimInput("FailsafeMonitor", "defined_in", "monitor.rs", 1.0),
        ClaimInput("FailsafeMonitor", "maintained_by", "dkim", 1.0),
        ClaimInput("FailsafeMonitor", "watches", "BatteryMonitor", 0.8),
        ClaimInput("BatteryMonitor", "threshold", "BATT_LOW_VOLTS", 1.0),
    ])  # fmt: skip
    ask = "Which threshold does the BatteryMonitor that FailsafeMonitor watches use?"
    result = svc.recall(user, RecallRequest(ask, (context,)))
    assert set(result.trace.seeds) == {"FailsafeMonitor", "BatteryMonitor"}
    walked = sorted(
        (r.rank, c.key) for c in result.trace.candidates for r in c.lanes if r.lane == "walk"
    )
    texts = {it.key: it.text for it in result.items}
    # Activation adds up at an edge both of whose ends the question names: 2 × 0.8 beats 1 × 1.0.
    assert texts[walked[0][1]].startswith("FailsafeMonitor —watches→ BatteryMonitor")


def test_a_cited_code_paragraph_says_it_is_code(svc: Tabane, user, context):
    page = b"# Kettle\n\nTo descale it, run:\n\n```\nkettle --descale\n```\n"
    svc.ingest(user, context, DocumentInput("kettle.md", data=page))
    result = svc.recall(user, RecallRequest("how do I descale the kettle?", (context,)))
    kinds = {item.text: item.citation.kind for item in result.items}
    assert kinds == {"To descale it, run:": "text", "```\nkettle --descale\n```": "code"}
