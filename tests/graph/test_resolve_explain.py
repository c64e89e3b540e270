"""resolve/explain: each verdict, from resolve's own scoring code."""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane


def write(svc: Tabane, user: Principal, context: str, *triples, **kw) -> None:
    claims = [{"subject": s, "label": lb, "object": o, "weight": 1.0} for s, lb, o in triples]
    svc.add_claims(user, context, parse_claims(claims), **kw)


@pytest.fixture
def tokyo(svc: Tabane, user: Principal, context: str) -> str:
    write(
        svc,
        user,
        context,
        ("東京都", "所在地", "関東"),
        ("京都", "所在地", "近畿"),
        ("京都府", "県庁所在地", "京都市"),
        ("interval", "r", "intervals"),
    )
    svc.add_alias(user, context, "TYO", "東京都")
    return context


def test_served_with_rank_score_kind_and_tier(svc, user, tokyo) -> None:
    got = svc.explain_resolve(user, tokyo, "東京", "東京都")
    assert (got.verdict, got.rank, got.match, got.tier) == ("served", 1, "containment", "lexical")
    assert got.score == pytest.approx(2 / 3)
    alias = svc.explain_resolve(user, tokyo, "tyo", "TYO")
    assert (alias.verdict, alias.canonical, alias.match) == ("served", "東京都", "alias")


def test_the_expected_spelling_is_read_as_a_write_stores_it(svc, user, tokyo) -> None:
    """NFD (as macOS types it), padded or with a zero-width space: the stored spelling."""
    write(svc, user, tokyo, ("café", "serves", "coffee"))
    for spelled in ("cafe\u0301", " café ", "café\u200b"):
        got = svc.explain_resolve(user, tokyo, "cafe", spelled)
        assert (got.verdict, got.canonical) == ("served", "café"), spelled
    svc.add_alias(user, tokyo, "Cafe\u0301 X", "café")
    assert svc.remove_alias(user, tokyo, "Café X") == 1  # NFC removes what NFD added


def test_not_in_vocabulary_lists_the_nearest_spellings(svc, user, tokyo) -> None:
    got = svc.explain_resolve(user, tokyo, "都庁", "東京都庁")
    assert got.verdict == "not_in_vocabulary" and got.canonical is None
    assert got.nearest[0] == "東京都"


def test_eclipsed_by_exact(svc, user, tokyo) -> None:
    got = svc.explain_resolve(user, tokyo, "京都", "東京都")
    assert (got.verdict, got.eclipsed_by) == ("eclipsed_by_exact", ("京都",))


def test_below_floor_names_the_admitting_floor(svc, user, tokyo) -> None:
    got = svc.explain_resolve(user, tokyo, "intrvl", "interval", dice_floor=0.9)
    assert got.verdict == "below_floor" and got.dice_floor.source == "call"
    assert got.admitting_floor == got.score and 0 < got.score < 0.9
    again = svc.resolve(user, tokyo, "intrvl", dice_floor=got.admitting_floor)
    assert "interval" in [c.name for c in again.candidates]


def test_cut_by_limit_with_a_verified_limit(svc, user, tokyo) -> None:
    got = svc.explain_resolve(user, tokyo, "都", "京都府", limit=1)
    assert got.verdict == "cut_by_limit" and got.rank is not None and got.rank > 1
    assert got.limit_to_reach == got.rank
    served = svc.resolve(user, tokyo, "都", limit=got.limit_to_reach)
    assert served.candidates[-1].name == "京都府"


def test_semantic_never_ran_without_an_embedder(svc, user, tokyo) -> None:
    got = svc.explain_resolve(user, tokyo, "首都", "関東")
    assert (got.verdict, got.semantic_reason) == ("semantic_never_ran", "no_embedder")
    label = svc.explain_resolve(user, tokyo, "所在", "所在地", kind="label")
    assert (label.verdict, label.match) == ("served", "containment")


def test_invisible_looks_like_missing(svc, make_user, make_context) -> None:
    alice = make_user(extra_write=("team:rx",))
    bob = make_user(extra_read=("team:rx",))
    ctx = make_context(alice, scopes=["team:rx"])
    write(svc, alice, ctx, ("秘密", "r", "x"), scopes=[f"user:{alice.name}"])
    write(svc, alice, ctx, ("公開", "r", "y"))
    missing = svc.explain_resolve(bob, ctx, "秘密", "存在しない")
    hidden = svc.explain_resolve(bob, ctx, "秘密", "秘密")
    assert hidden.verdict == missing.verdict == "not_in_vocabulary"
    assert (hidden.canonical, hidden.nearest) == (None, ())
    with pytest.raises(InvalidInput):
        svc.explain_resolve(bob, ctx, "秘密", "")


@pytest.mark.slow
def test_semantic_verdicts(vsvc: Tabane, make_user, make_context) -> None:
    user = make_user()
    context = make_context(user)
    write(vsvc, user, context, ("杜氏", "役割", "酒造りの長"), ("新幹線", "種類", "高速鉄道"))
    pending = vsvc.explain_resolve(user, context, "醸造責任者", "杜氏")
    assert pending.verdict == "semantic_never_ran"
    assert pending.semantic_reason == "gloss_vectors_pending"
    vsvc.wait_for_jobs()
    served = vsvc.explain_resolve(user, context, "醸造責任者", "杜氏", semantic_floor=0.0)
    assert (served.verdict, served.tier) == ("served", "semantic") and served.cosine is not None
    below = vsvc.explain_resolve(user, context, "醸造責任者", "新幹線", semantic_floor=0.99)
    assert below.verdict == "semantic_below_floor" and below.cosine < 0.99
    assert below.semantic_floor.value == 0.99


def test_an_overlap_of_over_common_bigrams_alone_is_named(svc, user, context) -> None:
    """`evict_cld` shares 6 of its 7 bigrams with `evictCold`, all over-common (101 spellings
    start so): explain names them rather than saying there is no overlap."""
    many = [("evictCold", "kind", "fn")] + [(f"evictCold{i}", "kind", "fn") for i in range(100)]
    write(svc, user, context, *many)
    got = svc.explain_resolve(user, context, "evict_cld", "evictCold")
    assert got.verdict == "semantic_never_ran"
    assert "no lexical overlap" not in got.detail and "over-common" in got.detail
    assert "ev" in got.detail  # a shared bigram, by name


def test_a_case_twin_past_the_limit_is_cut_by_limit_not_eclipsed(svc, user, context) -> None:
    """Regression (issue 35a): the cue is a stored spelling, and the expected case twin is an
    exact match too, ranked past the limit: the verdict is the limit, with the limit that
    reaches it — not `eclipsed_by_exact` (the eclipse check ran before the limit check)."""
    write(svc, user, context, ("Frame", "has", "frame"), ("frame", "is", "Frames"))
    got = svc.explain_resolve(user, context, "frame", "Frame", limit=1)
    assert (got.verdict, got.rank, got.limit_to_reach) == ("cut_by_limit", 2, 2)
    assert got.match == "exact" and got.eclipsed_by == ()
    served = svc.resolve(user, context, "frame", limit=got.limit_to_reach)
    assert [c.name for c in served.candidates] == ["frame", "Frame"]


@pytest.mark.slow
def test_a_semantic_cut_by_limit_carries_a_verified_limit(vsvc: Tabane, make_user, make_context):
    """Regression (issue 35c): a semantic candidate past the limit says which limit reaches it."""
    user = make_user()
    context = make_context(user)
    write(
        vsvc,
        user,
        context,
        ("杜氏", "役割", "酒造りの長"),
        ("新幹線", "種類", "高速鉄道"),
        ("蔵元", "所有", "酒蔵"),
    )
    vsvc.wait_for_jobs()
    everything = vsvc.resolve(user, context, "醸造責任者", semantic_floor=-1.0)
    last = everything.semantic[-1]
    assert last.rank >= 2
    got = vsvc.explain_resolve(user, context, "醸造責任者", last.name, limit=1, semantic_floor=-1.0)
    assert (got.verdict, got.tier, got.rank) == ("cut_by_limit", "semantic", last.rank)
    assert got.limit_to_reach == last.rank
    reached = vsvc.resolve(
        user, context, "醸造責任者", limit=got.limit_to_reach, semantic_floor=-1.0
    )
    assert reached.semantic[-1].name == last.name
