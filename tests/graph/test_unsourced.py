"""Taguru's drift audit at the service (decision 0027, "The drift audit"): the weight of each
world edge that no live claim with a named source accounts for, and the aliases whose canonical
no longer lives, over a made-up graph."""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane


def claim(s: str, lb: str, o: str, weight: float, source: str | None = None) -> dict[str, object]:
    return {"subject": s, "label": lb, "object": o, "weight": weight} | (
        {"source": source} if source else {}
    )


@pytest.fixture
def graph(svc: Tabane, user: Principal, context: str) -> str:
    svc.add_claims(
        user,
        context,
        parse_claims(
            [
                claim("蔵元", "種別", "会社", 1.0),  # no source at all
                claim("蔵元", "所在地", "灘", 2.0, "名簿"),  # sourced, and
                claim("蔵元", "所在地", "灘", -0.5),  # a sourceless doubt on the same edge
                claim("杜氏", "製造", "酒", 1.0, "名簿"),  # sourced only
                claim("麹", "原料", "米", 1.0),  # two sourceless claims that cancel
                claim("麹", "原料", "米", -1.0),
                claim("酵母", "増殖", "酒母", 3.0),  # sourceless, then retracted below
                claim("水", "使用", "仕込み", 1.0, "名簿"),
            ]
        ),
    )
    svc.add_alias(user, context, "とうじ", "杜氏")  # its concept's edge retracted below
    svc.add_alias(user, context, "くらもと", "蔵元")  # lives on
    svc.add_alias(user, context, "使う", "使用", kind="label")  # its label's edge retracted
    svc.add_alias(user, context, "作る", "製造", kind="label")  # retracted with 杜氏's edge
    svc.add_alias(user, context, "場所", "所在地", kind="label")  # lives on
    gone = [("酵母", "増殖", "酒母"), ("杜氏", "製造", "酒"), ("水", "使用", "仕込み")]
    svc.retract_associations(user, context, [(s, lb, o, None, None) for s, lb, o in gone])
    return context


def test_unsourced_weight_worst_first_and_dead_aliases(svc: Tabane, user: Principal, graph: str):
    got = svc.audit_unsourced(user, graph)
    rows = [
        (
            u.edge.subject,
            u.edge.label,
            u.unsourced,
            u.unsourced_claims,
            u.edge.weight,
            u.edge.claims,
        )
        for u in got.edges
    ]
    # the cancelled pair explains nothing and hides nothing; the retracted claim no longer counts
    assert rows == [("蔵元", "種別", 1.0, 1, 1.0, 1), ("蔵元", "所在地", -0.5, 1, 1.5, 2)]
    assert got.total == 2 and got.next_cursor is None
    sources = sorted(a.source or "" for a in got.edges[1].edge.attributions)
    assert sources == ["", "名簿"]  # the whole edge: its sourced claim beside the sourceless one
    assert got.dead_concept_aliases == {"とうじ": "杜氏"}
    assert got.dead_label_aliases == {"使う": "使用", "作る": "製造"}


def test_pages_and_the_floor(svc: Tabane, user: Principal, graph: str):
    first = svc.audit_unsourced(user, graph, limit=1)
    assert [u.edge.label for u in first.edges] == ["種別"] and first.next_cursor == 1
    second = svc.audit_unsourced(user, graph, limit=1, cursor=first.next_cursor or 0)
    assert [u.edge.label for u in second.edges] == ["所在地"] and second.next_cursor is None
    floored = svc.audit_unsourced(user, graph, floor=0.75)
    assert [u.edge.label for u in floored.edges] == ["種別"] and floored.total == 1
    for bad in ({"floor": -1.0}, {"limit": 0}, {"cursor": -1}):
        with pytest.raises(InvalidInput):
            svc.audit_unsourced(user, graph, **bad)  # type: ignore[arg-type]


def test_a_sourced_graph_is_clean(svc: Tabane, user: Principal, context: str):
    svc.add_claims(user, context, parse_claims([claim("蔵元", "種別", "会社", 1.0, "名簿")]))
    svc.add_alias(user, context, "くらもと", "蔵元")
    got = svc.audit_unsourced(user, context)
    assert (got.edges, got.total, got.dead_concept_aliases, got.dead_label_aliases) == (
        [],
        0,
        {},
        {},
    )
