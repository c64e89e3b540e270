"""How recall's order and budget treat documentation passages (issue 29, decision 0043): the
budget serves every kept item that still fits, in order, so one long paragraph no longer cuts
every shorter one after it; and RAPTOR overviews can be read after the direct evidence."""

from __future__ import annotations

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.order import arrange, read_after
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence


def _item(key: str, kind: str, text: str) -> Evidence:
    return Evidence(key, kind, text, "source excerpt", Citation(), ())


SHORT = [_item(f"p:{n}", "paragraph", f"short passage number {n}.") for n in range(1, 4)]
LONG = _item("p:9", "paragraph", "a long reference table row " * 60)
OVERVIEW = _item("r:1", "raptor", "An overview of a region that none of the passages repeats.")


def _outcomes(items: list[Evidence], **kw: object) -> list[tuple[str, str]]:
    placed = arrange("which passage?", items, None, max_items=10, budget=60,
                     chars_per_token=4.0, **kw)  # fmt: skip
    return [(p.item.key, p.outcome) for p in placed]


def test_a_prefix_stops_at_the_first_item_that_does_not_fit() -> None:
    assert _outcomes([SHORT[0], LONG, SHORT[1], SHORT[2]], fill=False) == [
        ("p:1", "served"),
        ("p:9", "cut_by_budget"),
        ("p:2", "cut_by_budget"),
        ("p:3", "cut_by_budget"),
    ]


def test_fill_serves_the_later_items_that_still_fit() -> None:
    assert _outcomes([SHORT[0], LONG, SHORT[1], SHORT[2]], fill=True) == [
        ("p:1", "served"),
        ("p:9", "cut_by_budget"),  # too long for what is left
        ("p:2", "served"),  # still in order, and within the budget
        ("p:3", "served"),
    ]


def test_fill_stays_within_the_budget() -> None:
    many = [_item(f"p:{n}", "paragraph", f"passage {n} " + "word " * 8) for n in range(10)]
    placed = arrange("q", many, None, max_items=10, budget=60, chars_per_token=4.0, fill=True)
    served = [p for p in placed if p.outcome == "served"]
    assert 0 < len(served) < 10 and sum(p.item.tokens for p in served) <= 60
    # nothing later fits once the first one does not: every item after it is cut too
    first_cut = next(n for n, p in enumerate(placed) if p.outcome == "cut_by_budget")
    assert all(p.outcome == "cut_by_budget" for p in placed[first_cut:])


def test_overviews_after_moves_raptor_behind_the_passages() -> None:
    items = [SHORT[0], OVERVIEW, SHORT[1]]
    before = _outcomes(items, after=read_after(summaries=True, overviews=False))
    assert [k for k, _ in before] == ["p:1", "r:1", "p:2"]
    after = _outcomes(items, after=read_after(summaries=True, overviews=True))
    assert [k for k, _ in after] == ["p:1", "p:2", "r:1"]
    assert read_after(summaries=False, overviews=False) == ()


@pytest.mark.slow
def test_the_bm25_lane_gathers_its_own_deeper_pool(svc, user, context) -> None:
    """Score shares order recall's paragraphs as search's only over pools as deep as search's:
    the BM25 lane reads `bm25_pool` rows a context, the other lanes `pool`."""
    texts = [f"Kettle note {n}: the kettle keeps water warm for {n} minutes." for n in range(70)]
    svc.ingest(
        user, context, DocumentInput("notes", title="Notes", paragraphs=[block(t) for t in texts])
    )
    ask = RecallRequest("kettle water", (context,), force=True)
    deep = svc.recall(user, ask)
    assert Tunables().bm25_pool > Tunables().pool
    assert deep.trace.lanes["bm25"].hits == 70 and deep.trace.caps["bm25_pool"] == 200
    shallow = svc.recall(user, ask, tunables=Tunables(bm25_pool=50))
    assert shallow.trace.lanes["bm25"].hits == 50
