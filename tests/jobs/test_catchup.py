"""A worker with an embedder queues, when it starts, the embedding of the notes and turns that
were written while no embedder was configured: recall's claims lane finds them afterwards."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import delete, func, select

from tabane.jobs import queue
from tabane.principal import Principal
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane
from tabane.storage.schema import ClaimVector, Context, Job, TurnVector

from helpers import unique


def _claim_vectors(svc: Tabane, context: str) -> int:
    with svc.store.admin() as session:
        cid = session.scalar(select(Context.id).where(Context.name == context))
        n = session.scalar(
            select(func.count()).select_from(ClaimVector).where(ClaimVector.context_id == cid)
        )
    return int(n or 0)


@pytest.mark.slow
def test_notes_written_without_an_embedder_are_embedded_when_a_worker_with_one_starts(
    svc: Tabane, vsvc: Tabane, make_user: Callable[..., Principal]
) -> None:
    u = make_user("h")
    ctx = unique("family")
    svc.create_context(u, ctx)
    note = svc.remember(u, ctx, {"text": "Hannah moved to Oregon last spring."}, speaker="Hannah")
    turn = svc.add_turn(u, "chat", "Where did Hannah move?")
    vsvc.wait_for_jobs()  # what was queued before: nothing embeds the note (no job was queued)
    assert _claim_vectors(vsvc, ctx) == 0
    asked = RecallRequest("Where does Hannah live now?", (ctx,), force=True)
    blind = svc.explain_recall(u, asked, Expected(claim=note))  # no embedder at all
    unembedded = vsvc.explain_recall(u, asked, Expected(claim=note))
    assert blind.verdict == unembedded.verdict == "not_found"
    assert "the claims lane did not run (no_embedder)" in blind.detail
    assert "it has no vector of use-multilingual-v3 yet" in unembedded.detail
    with vsvc.store.admin() as session:
        before = set(session.scalars(select(Job.id)))
    assert vsvc.worker.catch_up() >= 2  # the note's set and the session
    with vsvc.store.admin() as session:
        cid = session.scalar(select(Context.id).where(Context.name == ctx))
        new = session.execute(select(Job.id, Job.kind, Job.context_id).where(Job.id.not_in(before)))
        ours = {j.id: j.kind for j in new if j.context_id == cid or j.kind == queue.EMBED_TURNS}
        assert queue.EMBED_CLAIMS in ours.values() and queue.EMBED_TURNS in ours.values()
        # the sweep found other tests' rows too; leave the queue as it was for them
        session.execute(delete(Job).where(Job.id.not_in(before | set(ours))))
    vsvc.wait_for_jobs()
    assert _claim_vectors(vsvc, ctx) == 1
    with vsvc.store.admin() as session:
        embedded_turns = session.scalar(select(func.count()).select_from(TurnVector))
    assert embedded_turns and turn.seq == 1
    result = vsvc.recall(u, asked)
    assert result.trace.lanes["claims"].hits >= 1
    assert f"c:{note}" in [item.key for item in result.items]
