"""Context stats for the graph: concepts, labels, live associations, top concepts, label samples."""

from __future__ import annotations

import pytest

from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane


@pytest.mark.slow
def test_stats_count_the_live_graph(svc: Tabane, user: Principal, context: str) -> None:
    empty = svc.get_context(user, context).stats
    assert (empty.concepts, empty.labels, empty.associations) == (0, 0, 0)
    assert empty.top_concepts == () and empty.label_samples == ()
    claims = [
        *({"subject": "sake", "label": "step", "object": f"s{i}", "weight": 1} for i in range(6)),
        *(
            {"subject": f"s{i}", "label": "next", "object": f"s{i + 1}", "weight": 1}
            for i in range(5)
        ),
        {"subject": "s0", "label": "uses", "object": "rice", "weight": 1},
        {"subject": "s0", "label": "uses", "object": "rice", "weight": 2},  # same edge
        {"subject": "rice", "label": "is", "object": "grain", "weight": 1, "kind": "opinion"},
    ]
    svc.add_claims(user, context, parse_claims(claims))
    svc.add_alias(user, context, "酒", "sake")
    stats = svc.get_context(user, context).stats
    assert (stats.concepts, stats.labels) == (9, 4)  # aliases are not concepts
    assert stats.associations == 13
    assert stats.top_concepts == ("sake", "s0", "s1", "s2", "s3")  # 6, 3, 3, 3, 3 edges
    assert stats.label_samples == ("step", "next", "is", "uses")
    svc.retract_associations(user, context, [("sake", "step", "s5", None, None)])
    after = svc.get_context(user, context).stats
    assert after.associations == 12 and after.concepts == 9  # concepts outlive their edges
    listed = {c.name: c for c in svc.list_contexts(user)}
    assert listed[context].stats == after
