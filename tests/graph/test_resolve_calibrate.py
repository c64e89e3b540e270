"""resolve calibrate: a semantic floor proposed from the context's own concepts."""

from __future__ import annotations

import numpy as np
import pytest

from tabane.graph.claims.parse import parse_claims
from tabane.graph.resolve.calibrate import propose
from tabane.principal import Principal
from tabane.service import Tabane

FACTS = [
    ("杜氏", "役割", "酒造りの長"),
    ("杜氏", "働く場所", "酒蔵"),
    ("新幹線", "種類", "高速鉄道"),
    ("新幹線", "運行", "JR"),
    ("俳句", "形式", "五七五"),
    ("俳句", "季語", "必要"),
    ("味噌", "原料", "大豆"),
    ("味噌", "発酵", "麹"),
    ("富士山", "高さ", "3776メートル"),
    ("富士山", "所在地", "静岡県"),
]


def write(svc: Tabane, user: Principal, context: str) -> None:
    claims = [{"subject": s, "label": lb, "object": o, "weight": 1.0} for s, lb, o in FACTS]
    svc.add_claims(user, context, parse_claims(claims))


def test_propose_separated_bands_take_the_midpoint_and_overlap_keeps_the_matches() -> None:
    verdict, floor, gap = propose(np.array([0.6, 0.7, 0.8]), np.array([0.2, 0.4]))
    assert (verdict, round(floor, 6), round(gap, 6)) == ("separated", 0.5, 0.2)
    upper = np.linspace(0.3, 0.9, 100)
    verdict, floor, gap = propose(upper, np.array([0.2, 0.4, 0.5]))
    # overlapping: the floor keeps 95 of the 100 matches, whatever noise it admits
    assert verdict == "overlap" and gap < 0 and int((upper >= floor).sum()) == 96


@pytest.mark.slow
def test_calibrate_proposes_a_floor_from_the_context_s_concepts(
    vsvc: Tabane, make_user, make_context
) -> None:
    user = make_user()
    context = make_context(user)
    write(vsvc, user, context)
    assert vsvc.calibrate_resolve(user, context).reason == "no_gloss_vectors"
    vsvc.wait_for_jobs()
    got = vsvc.calibrate_resolve(user, context)
    assert got.verdict in ("separated", "overlap") and got.reason is None
    assert got.probes == len({s for s, _, _ in FACTS}) + len({o for _, _, o in FACTS})
    assert got.model == "use-multilingual-v3"
    assert got.upper is not None and got.lower is not None and got.suggested_floor is not None
    assert got.upper.median > got.lower.median  # a concept's facts point at its own gloss
    assert got.lower.min <= got.suggested_floor <= got.upper.max
    assert got.kept is not None and got.kept >= 0.5
    weakest = got.examples[0]
    assert weakest.cosine == got.upper.min
    # the lower band never counts a neighbour: 杜氏's facts name 酒造りの長 and 酒蔵
    toji = next((p for p in got.examples if p.concept == "杜氏"), None)
    assert toji is None or toji.best_other not in ("酒造りの長", "酒蔵")
    again = vsvc.calibrate_resolve(user, context)
    assert again == got  # deterministic


def test_calibrate_says_why_it_cannot(svc: Tabane, user: Principal, context: str) -> None:
    write(svc, user, context)
    got = svc.calibrate_resolve(user, context)
    assert (got.verdict, got.reason, got.suggested_floor) == ("impossible", "no_embedder", None)
