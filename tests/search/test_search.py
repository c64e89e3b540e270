"""sources/search through the service: lanes, plan, fusion, filters, groups, paging, doc2query."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput, block
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

from helpers import counting_beside

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


def test_lexical_search_reports_why_the_vector_lane_did_not_run(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", KETTLE)
    result = svc.search(user, SearchRequest("kettle limescale vinegar", contexts=(context,)))
    assert result.hits[0].source_id == "kettle"
    assert result.hits[0].paragraph == 1
    assert set(result.hits[0].lanes) == {"bm25"}
    plan = result.plan.contexts[0]
    assert plan.lanes["bm25"].ran and plan.lanes["bm25"].hits == 3
    assert not plan.lanes["vector"].ran and plan.lanes["vector"].reason == "no_embedder"
    assert result.plan.query_terms == ("kettl", "limescal", "vinegar")  # analysed: stems


@pytest.mark.slow
def test_vectors_arrive_through_jobs_and_then_a_paraphrase_is_found(vsvc: Tabane, user, context):
    _ingest(vsvc, user, context, "kettle", KETTLE)
    _ingest(vsvc, user, context, "garden", GARDEN)
    before = vsvc.search(user, SearchRequest("gardening advice", contexts=(context,)))
    vector_plan = before.plan.contexts[0].lanes["vector"]
    assert (vector_plan.ran, vector_plan.reason) == (False, "no_vectors")
    assert before.plan.contexts[0].pending_embeddings == 2
    assert vsvc.wait_for_jobs(timeout=120) == 0
    after = vsvc.search(user, SearchRequest("how should I look after plants", contexts=(context,)))
    assert after.plan.contexts[0].lanes["vector"].ran
    assert after.plan.contexts[0].lanes["vector"].model == "use-multilingual-v3"
    top = after.hits[0]
    assert top.source_id == "garden"
    assert "vector" in top.lanes and "bm25" not in top.lanes  # a paraphrase connected


@pytest.mark.slow
def test_fusion_averages_each_lanes_share_of_its_best(vsvc: Tabane, user, context):
    _ingest(vsvc, user, context, "kettle", KETTLE)
    vsvc.wait_for_jobs(timeout=120)
    result = vsvc.search(user, SearchRequest("kettle empty element overheats", contexts=(context,)))
    top = result.hits[0]
    assert top.paragraph == 2
    assert set(top.lanes) == {"bm25", "vector"}
    assert result.plan.fusion == "score_share"
    best = {
        lane: max(h.lanes[lane].score for h in result.hits if lane in h.lanes)
        for lane in ("bm25", "vector")
    }
    for hit in result.hits:
        expected = sum(lr.score / best[lane] for lane, lr in hit.lanes.items()) / 2
        assert hit.score == pytest.approx(expected)
        for lane, lr in hit.lanes.items():  # each lane's share is shown, as fusion used it
            assert lr.share == pytest.approx(lr.score / best[lane])
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


@pytest.mark.slow
def test_semantic_floor_floors_the_vector_lane_alone(vsvc: Tabane, user, context):
    _ingest(vsvc, user, context, "kettle", KETTLE)
    vsvc.wait_for_jobs(timeout=120)
    request = SearchRequest("kettle", contexts=(context,), semantic_floor=0.99)
    result = vsvc.search(user, request)
    plan = result.plan.contexts[0].lanes["vector"]
    assert plan.ran and plan.floor == 0.99 and plan.hits == 0
    # BM25-only hits still return: every paragraph, through the title "kettle"
    assert {h.paragraph for h in result.hits} == {0, 1, 2}
    for bad in (math.nan, 1.5, -2.0):
        with pytest.raises(InvalidInput) as info:
            vsvc.search(user, SearchRequest("kettle", contexts=(context,), semantic_floor=bad))
        assert info.value.issues[0].path == "semantic_floor"


def test_filters_resolve_to_an_eligible_set_and_keep_bm25_statistics(svc: Tabane, user, context):
    _ingest(svc, user, context, "old", KETTLE, tags=["home"], date="2020-01-01")
    _ingest(
        svc, user, context, "new", [t + " Again." for t in KETTLE], tags=["work"], date="2024-06-01"
    )
    _ingest(svc, user, context, "untagged", GARDEN)
    everything = svc.search(user, SearchRequest("kettle water", contexts=(context,), limit=20))
    tagged = svc.search(
        user, SearchRequest("kettle water", contexts=(context,), limit=20, tags=("home", "x"))
    )
    assert {h.source_id for h in tagged.hits} == {"old"}
    f = tagged.plan.contexts[0].filter
    assert f is not None and (f.eligible_sources, f.total_sources) == (1, 3)
    # a filter never changes BM25 statistics: the same paragraph keeps its exact score
    score = {(h.source_id, h.paragraph): h.lanes["bm25"].score for h in everything.hits}
    for h in tagged.hits:
        assert h.lanes["bm25"].score == pytest.approx(score[(h.source_id, h.paragraph)], abs=1e-12)
    window = svc.search(
        user,
        SearchRequest(
            "kettle water",
            contexts=(context,),
            limit=20,
            since=datetime(2024, 1, 1, tzinfo=UTC),
            until=datetime(2024, 6, 1, tzinfo=UTC),
        ),
    )
    assert window.hits == []  # half-open: until excludes 2024-06-01 itself
    assert window.plan.contexts[0].filter.eligible_sources == 0


def test_groups_reach_nested_contexts_and_interleave_by_rank(svc, user, make_context):
    a, b = make_context(), make_context()
    _ingest(svc, user, a, "ka", KETTLE)
    _ingest(svc, user, b, "kb", KETTLE[:2])
    inner = f"g{a}"
    svc.create_group(user, inner, contexts=[b])
    svc.create_group(user, f"o{a}", contexts=[a], groups=[inner])
    result = svc.search(user, SearchRequest("kettle water", groups=(f"o{a}",), limit=10))
    assert [p.context for p in result.plan.contexts] == [a, b]
    ranks = [(h.context, h.context_rank) for h in result.hits]
    assert ranks[:2] == [(a, 1), (b, 1)]
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))


def test_keyset_paging_walks_the_same_ranking(svc: Tabane, user, context):
    texts = [f"kettle note number {i} about water and kettle {'x ' * i}" for i in range(12)]
    _ingest(svc, user, context, "many", texts)
    whole = svc.search(user, SearchRequest("kettle water", contexts=(context,), limit=12))
    first = svc.search(user, SearchRequest("kettle water", contexts=(context,), limit=5))
    second = svc.search(
        user, SearchRequest("kettle water", contexts=(context,), limit=5, after=first.next_after)
    )
    third = svc.search(
        user, SearchRequest("kettle water", contexts=(context,), limit=5, after=second.next_after)
    )
    paged = [h.paragraph for h in first.hits + second.hits + third.hits]
    assert paged == [h.paragraph for h in whole.hits]
    assert third.next_after is None
    with pytest.raises(InvalidInput):
        svc.search(user, SearchRequest("kettle", contexts=(context,), after="garbage!"))


def test_doc2query_questions_join_the_postings(svc: Tabane, user, context):
    svc.ingest(
        user,
        context,
        DocumentInput(
            source_id="faq",
            paragraphs=[block("Run the descaling programme monthly."), block("Unrelated text.")],
            questions=[["How do I get rid of limescale?"], []],
        ),
    )
    result = svc.search(user, SearchRequest("limescale", contexts=(context,)))
    assert [(h.paragraph, h.via_question) for h in result.hits] == [(0, ("limescal",))]


def test_bad_requests(svc: Tabane, user, context):
    empty = svc.search(user, SearchRequest("   ", contexts=(context,)))
    assert empty.hits == []
    assert empty.plan.contexts[0].lanes["bm25"].reason == "no_query_terms"
    for kwargs, path in (
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"contexts": ()}, "contexts"),
        ({"lanes": ("bm25", "graph")}, "lanes"),
    ):
        request = SearchRequest("kettle", **{"contexts": (context,), **kwargs})
        with pytest.raises(InvalidInput) as info:
            svc.search(user, request)
        assert info.value.issues[0].path == path


def test_search_never_shows_what_the_caller_cannot_see(svc, make_user, make_context):
    owner = make_user(extra_write=("team:s",))
    teammate = make_user(extra_read=("team:s",))
    ctx = make_context(owner, scopes=["team:s"])
    _ingest(svc, owner, ctx, "shared", KETTLE)
    _ingest(svc, owner, ctx, "private", KETTLE, scopes=[f"user:{owner.name}", "team:s"])
    mine = svc.search(owner, SearchRequest("kettle", contexts=(ctx,), limit=20))
    theirs = svc.search(teammate, SearchRequest("kettle", contexts=(ctx,), limit=20))
    assert {h.source_id for h in mine.hits} == {"shared", "private"}
    assert {h.source_id for h in theirs.hits} == {"shared"}
    # the teammate's statistics count only what they see, so scores differ from the owner's
    assert theirs.hits[0].lanes["bm25"].score != mine.hits[0].lanes["bm25"].score


@pytest.mark.slow
def test_the_bm25_lane_read_beside_finds_what_it_finds_alone(vsvc: Tabane, user, context):
    from sqlalchemy import select

    from tabane.search import search as search_mod
    from tabane.storage.schema import Context

    _ingest(vsvc, user, context, "kettle", KETTLE)
    _ingest(vsvc, user, context, "garden", GARDEN)
    vsvc.wait_for_jobs(timeout=120)
    request = SearchRequest("water the kettle and the tomatoes", contexts=(context,), limit=5)
    qv = search_mod.embed_query(vsvc.embedder, request.query)
    beside, submitted = counting_beside(vsvc.store, user)
    with vsvc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == context))
        alone = search_mod.search(session, [ctx], request, qv, default_floor=None)
        together = search_mod.search(session, [ctx], request, qv, default_floor=None, beside=beside)
    assert len(submitted) == 1  # the BM25 lane ran on the second connection
    assert together.hits == alone.hits and together.plan == alone.plan
    assert {"bm25", "vector"} <= {lane for hit in together.hits for lane in hit.lanes}


def test_a_hit_says_whether_it_is_code(svc: Tabane, user, context):
    """Code keeps its line breaks and is marked as code (issue 28), so a reader of a hit (or of
    a citation) knows to show it verbatim."""
    page = b"# Kettle\n\nDescale the kettle monthly.\n\n```\nkettle --descale\nkettle --boil\n```\n"
    svc.ingest(user, context, DocumentInput("kettle.md", data=page))
    hits = svc.search(user, SearchRequest("kettle descale", contexts=(context,))).hits
    kinds = {h.text: h.kind for h in hits}
    assert kinds == {
        "Descale the kettle monthly.": "text",
        "```\nkettle --descale\nkettle --boil\n```": "code",  # a fenced block keeps its fences
    }


@pytest.mark.slow
def test_a_lane_that_found_nothing_is_named_in_the_notes(vsvc: Tabane, user, context):
    _ingest(vsvc, user, context, "kettle", KETTLE)
    vsvc.wait_for_jobs(timeout=120)
    # no term of this question is in the text, but its meaning is
    result = vsvc.search(user, SearchRequest("やかんの湯垢を落とすには", contexts=(context,)))
    plan = result.plan.contexts[0]
    assert plan.lanes["bm25"].ran and plan.lanes["bm25"].hits == 0
    assert plan.lanes["vector"].hits > 0
    assert result.plan.notes == [f"{context}: bm25 found nothing; the order is the vector lane's"]
    assert [h.lanes.keys() for h in result.hits] == [{"vector"}] * len(result.hits)
    both = vsvc.search(user, SearchRequest("kettle limescale", contexts=(context,)))
    assert both.plan.notes == []
