"""sources/search/explain: each verdict, its evidence, and agreement with the search itself."""

from __future__ import annotations

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

TEXTS = [
    "The kettle boils water quickly.",
    "Kettle kettle kettle: descale the kettle element.",
    "A kettle note.",
    "Gardening is not about kettles at all.",
]


@pytest.fixture
def stored(svc: Tabane, user, context) -> str:
    svc.ingest(
        user,
        context,
        DocumentInput(source_id="k", paragraphs=[block(t) for t in TEXTS], tags=["home"]),
    )
    return context


def _explain(svc, user, context, query, paragraph=None, source="k", **kw):
    request = SearchRequest(query, contexts=(context,), **kw)
    return svc.explain_search(user, request, context, source, paragraph)


def test_served_matches_the_search(svc, user, stored):
    result = svc.search(user, SearchRequest("kettle water", contexts=(stored,)))
    top = result.hits[0]
    e = _explain(svc, user, stored, "kettle water", top.paragraph)
    assert (e.verdict, e.rank) == ("served", 1)
    assert e.lanes["bm25"].score == pytest.approx(top.lanes["bm25"].score)
    by_term = {t.term: t for t in e.terms}  # the analysed terms: English stems
    assert by_term["kettl"].tf == 1 and by_term["kettl"].df == 4  # "kettles" too
    total = sum(t.contribution for t in e.terms)
    assert total == pytest.approx(top.lanes["bm25"].score, abs=1e-9)
    assert e.vector["reason"] == "no_embedder"


def test_below_cutoff_gives_a_verified_limit(svc, user, stored):
    result = svc.search(user, SearchRequest("kettle", contexts=(stored,), limit=3))
    last = result.hits[-1].paragraph
    missing = ({0, 1, 2} - {h.paragraph for h in result.hits[:1]}) - {last}
    target = missing.pop()
    e = _explain(svc, user, stored, "kettle", target, limit=1)
    assert e.verdict == "below_cutoff"
    assert e.rank is not None and e.rank > 1
    assert e.limit_to_reach == e.rank
    assert e.cutoff_score == pytest.approx(result.hits[0].score)
    again = svc.search(user, SearchRequest("kettle", contexts=(stored,), limit=e.limit_to_reach))
    assert target in {h.paragraph for h in again.hits}


def test_no_term_overlap_shows_both_sides(svc, user, stored):
    e = _explain(svc, user, stored, "boils water", 3)
    assert e.verdict == "no_term_overlap"
    assert e.query_terms == ("boil", "water")
    assert "garden" in e.paragraph_terms and "kettl" in e.paragraph_terms


def test_filtered_out_retracted_out_of_range_no_terms(svc, user, stored):
    assert _explain(svc, user, stored, "kettle", 0, tags=("work",)).verdict == "filtered_out"
    assert _explain(svc, user, stored, "kettle", 9).verdict == "paragraph_out_of_range"
    assert _explain(svc, user, stored, "...", 0).verdict == "no_query_terms"
    svc.retract(user, stored, "k")
    assert _explain(svc, user, stored, "kettle", 0).verdict == "retracted"


def test_invisible_looks_exactly_like_missing(svc, make_user, make_context):
    owner, stranger = make_user(), make_user()
    mine = make_context(owner)
    svc.ingest(owner, mine, DocumentInput(source_id="secret", paragraphs=[block("kettle")]))
    theirs = make_context(stranger)
    for ctx in (mine, theirs):
        request = SearchRequest("kettle", contexts=(theirs,))
        invisible = svc.explain_search(stranger, request, mine, "secret", 0)
        absent = svc.explain_search(stranger, request, ctx, "never-stored", 0)
        assert invisible.verdict == absent.verdict == "not_stored"
        assert invisible.detail == absent.detail


def test_context_not_searched(svc, user, stored, make_context):
    other = make_context()
    request = SearchRequest("kettle", contexts=(other,))
    assert svc.explain_search(user, request, stored, "k", 0).verdict == "context_not_searched"


@pytest.mark.slow
def test_below_floor_with_vectors(vsvc, user, context):
    vsvc.ingest(
        user,
        context,
        DocumentInput(source_id="v", paragraphs=[block("Tomatoes need sun."), block("Kettle.")]),
    )
    vsvc.wait_for_jobs(timeout=120)
    request = SearchRequest("boiling water", contexts=(context,), semantic_floor=0.95)
    e = vsvc.explain_search(user, request, context, "v", 0)
    assert e.verdict == "below_floor"
    assert e.vector["ran"] and e.vector["floor"] == 0.95
    assert -1.0 <= e.vector["cosine"] < 0.95


def test_a_hit_on_an_earlier_page_says_so(svc, user, stored):
    first = svc.search(user, SearchRequest("kettle", contexts=(stored,), limit=1))
    top = first.hits[0]
    later = _explain(svc, user, stored, "kettle", top.paragraph, limit=1, after=first.next_after)
    assert (later.verdict, later.rank) == ("earlier_page", 1)
    assert "earlier page" in later.detail and "ranks 2..2" in later.detail
    third = svc.search(user, SearchRequest("kettle", contexts=(stored,), limit=3)).hits[2]
    past = _explain(svc, user, stored, "kettle", third.paragraph, limit=1, after=first.next_after)
    assert (past.verdict, past.rank) == ("below_cutoff", 3)
    assert "past this page's ranks 2..2" in past.detail  # not "past the limit of 1"


@pytest.mark.slow
def test_a_source_past_the_searchs_pools_gets_its_rank_and_a_limit(svc, user, context):
    # 70 sources the query matches, each once more than the one after it: a strict BM25 order
    for n in range(70):
        text = " ".join(["kettle"] * (70 - n) + [f"filler{n}"] * n)
        svc.ingest(user, context, DocumentInput(source_id=f"s{n:02d}", paragraphs=[block(text)]))
    request = SearchRequest("kettle", contexts=(context,), limit=100)
    ranked = [h.source_id for h in svc.search(user, request).hits]
    deep = ranked[60]  # past a 10-hit search's pools of 50
    e = svc.explain_search(user, SearchRequest("kettle", (context,), limit=10), context, deep)
    assert (e.verdict, e.rank) == ("below_cutoff", 61)
    assert e.limit_to_reach is not None
    again = SearchRequest("kettle", (context,), limit=e.limit_to_reach)
    assert deep in {h.source_id for h in svc.search(user, again).hits}
