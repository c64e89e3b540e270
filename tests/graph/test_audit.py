"""vocabulary/audit: lexical and semantic twins, distinct pairs flagged, aliases excluded."""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane


def write(svc: Tabane, user: Principal, context: str, *triples) -> None:
    claims = [{"subject": s, "label": lb, "object": o, "weight": 1.0} for s, lb, o in triples]
    svc.add_claims(user, context, parse_claims(claims))


def test_lexical_twins_distinct_pairs_and_aliases(svc, user, context) -> None:
    write(
        svc,
        user,
        context,
        ("青嶺酒造", "製造", "清酒"),
        ("青嶺酒蔵", "所在地", "新潟"),
        ("株式会社青嶺", "別物", "青嶺株式会社"),
        ("fetchBlock", "calls", "fetchBlocks"),
        ("a", "所在地", "b"),
        ("c", "所在地点", "d"),
    )
    svc.add_alias(user, context, "青嶺酒造所", "青嶺酒造")
    got = svc.audit_vocabulary(user, context)
    pairs = {(t.a, t.b): t for t in got.lexical}
    assert pairs[("青嶺酒蔵", "青嶺酒造")].score == pytest.approx(2 / 3)
    assert pairs[("fetchBlock", "fetchBlocks")].kind == "concept"
    flagged = pairs[("株式会社青嶺", "青嶺株式会社")]
    assert flagged.distinct and not pairs[("青嶺酒蔵", "青嶺酒造")].distinct
    assert all(t.a != t.b for t in got.lexical)  # an alias never pairs with its canonical
    assert all(t.score >= 0.6 for t in got.lexical)
    assert [t.score for t in got.lexical] == sorted((t.score for t in got.lexical), reverse=True)
    assert (got.semantic, got.semantic_reason, got.capped) == ([], "no_embedder", False)
    labels = svc.audit_vocabulary(user, context, kind="label")
    assert {(t.a, t.b) for t in labels.lexical} == {("所在地", "所在地点")}
    assert labels.semantic_reason == "no_embedder"
    one = svc.audit_vocabulary(user, context, limit=1)
    assert len(one.lexical) == 1 and one.capped
    with pytest.raises(InvalidInput):
        svc.audit_vocabulary(user, context, limit=0)


@pytest.mark.slow
def test_semantic_twins_over_gloss_vectors(vsvc: Tabane, make_user, make_context) -> None:
    user = make_user()
    context = make_context(user, semantic_floor=0.5)
    write(
        vsvc,
        user,
        context,
        ("自動車", "種類", "乗り物"),
        ("クルマ", "種類", "乗り物"),
        ("俳句", "形式", "五七五"),
    )
    vsvc.wait_for_jobs()
    got = vsvc.audit_vocabulary(user, context, kind="concept")
    assert got.semantic_reason is None and got.semantic_floor == 0.5
    assert got.semantic and all(t.score >= 0.5 and t.tier == "semantic" for t in got.semantic)
    assert ("クルマ", "自動車") in {(t.a, t.b) for t in got.semantic}


@pytest.mark.slow
def test_label_semantic_twins(vsvc: Tabane, make_user, make_context) -> None:
    """Labels are embedded like concepts (their gloss: the label's heaviest uses), so a synonym
    split of a label shows up as a semantic twin of kind `label` (issue 35)."""
    user = make_user()
    context = make_context(user, semantic_floor=0.3)
    write(
        vsvc,
        user,
        context,
        ("ストレス", "引き起こす", "不眠"),
        ("カフェイン", "原因となる", "不眠"),
        ("俳句", "形式", "五七五"),
    )
    vsvc.wait_for_jobs()
    got = vsvc.audit_vocabulary(user, context, kind="label")
    assert got.semantic_reason is None
    assert got.semantic and all(t.kind == "label" for t in got.semantic)
    top = got.semantic[0]
    assert {top.a, top.b} == {"原因となる", "引き起こす"}, got.semantic
    both = vsvc.audit_vocabulary(user, context)
    assert {t.kind for t in both.semantic} == {"concept", "label"}
