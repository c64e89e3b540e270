"""One fact is served once: an edge and a claim that only states the edge's triple say the same
thing, so the edge (which nets every claim of it) takes the better of their places and the claim
is a duplicate; a claim with a statement of its own says more and stays."""

from __future__ import annotations

from dataclasses import replace

from tabane.recall.order import arrange
from tabane.recall.result import Citation, Evidence, Fact

WATCHES = Fact("ctx", "", "FailsafeMonitor", "watches", "BatteryMonitor", negated=False)


def _item(key: str, kind: str, text: str, fact: Fact | None) -> Evidence:
    return Evidence(key, kind, text, "derived memory", Citation(), (), fact=fact)


CLAIM = _item("c:1", "claim", "FailsafeMonitor watches BatteryMonitor", WATCHES)
EDGE = _item(
    "a:1", "association", "FailsafeMonitor —watches→ BatteryMonitor [weight +1.00]", WATCHES
)
NOTE = _item("c:2", "claim", "FailsafeMonitor watches BatteryMonitor every 100 ms.", None)
OTHER = _item(
    "a:2",
    "association",
    "BatteryMonitor —threshold→ BATT_LOW_VOLTS",
    Fact("ctx", "", "BatteryMonitor", "threshold", "BATT_LOW_VOLTS", negated=False),
)


def _placed(items: list[Evidence], **kw: bool) -> list[tuple[str, str, int]]:
    placed = arrange("what does it watch?", items, None, max_items=10, budget=1000,
                     chars_per_token=4.0, **kw)  # fmt: skip
    return [(p.item.key, p.outcome, p.position) for p in placed]


def test_the_edge_takes_the_place_of_the_claim_that_states_its_triple() -> None:
    assert _placed([CLAIM, OTHER, EDGE, NOTE]) == [
        ("a:1", "served", 1),
        ("c:1", "duplicate", 0),
        ("a:2", "served", 2),
        ("c:2", "served", 3),  # its own statement says more than the triple
    ]
    assert _placed([EDGE, CLAIM]) == [("a:1", "served", 1), ("c:1", "duplicate", 0)]


def test_a_negated_fact_or_another_perspective_is_another_fact() -> None:
    denied = _item("c:3", "claim", "NOT (FailsafeMonitor watches BatteryMonitor)",
                   replace(WATCHES, negated=True))  # fmt: skip
    hannahs = _item("c:4", "claim", "FailsafeMonitor watches BatteryMonitor",
                    replace(WATCHES, perspective="Hannah"))  # fmt: skip
    assert [o for _, o, _ in _placed([EDGE, denied, hannahs])] == ["served"] * 3


def test_facts_once_off_serves_both() -> None:
    assert _placed([CLAIM, EDGE], facts_once=False) == [
        ("c:1", "served", 1),
        ("a:1", "served", 2),
    ]


def test_a_repeat_of_an_item_that_was_cut_is_cut_too_not_a_duplicate() -> None:
    filler = [_item(f"p:{n}", "paragraph", f"filler paragraph {n}", None) for n in range(2)]
    placed = arrange("what does it watch?", [*filler, EDGE, CLAIM], None, max_items=2,
                     budget=1000, chars_per_token=4.0)  # fmt: skip
    assert [(p.item.key, p.outcome) for p in placed][2:] == [
        ("a:1", "cut_by_max_items"),  # no reranker ordered them: the item cap cut them
        ("c:1", "cut_by_max_items"),  # the edge was not served, so the claim is not its duplicate
    ]
