"""A context's change feed, embeddings and compaction in Taguru's form, and the server-wide
maintenance sweep (decision 0027)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.contexts.changes import Change
from tabane.errors import InvalidInput, Issue
from tabane.search.upkeep import Compaction
from tabane.wire.taguru import Ok
from tabane.wire.taguru.upkeep import (
    ChangeEvent,
    ChangesOut,
    EmbeddingsOut,
    RefreshOut,
    Sweep,
    TaguruCompaction,
)

router = APIRouter()

# tabane's per-row events as Taguru's per-write ones: rows of one kind and one instant (one
# transaction) are one event
_COUNTED = {"claim_recorded": "associations_added", "alias_added": "aliases_added"}


def events(changes: Sequence[Change]) -> list[ChangeEvent]:
    out: list[dict[str, Any]] = []
    for c in changes:
        seq = int(c.at.timestamp() * 1_000_000)
        if c.kind in _COUNTED:
            kind = _COUNTED[c.kind]
            if out and out[-1]["kind"] == kind and out[-1]["seq"] == seq:
                out[-1]["count"] += 1
            else:
                out.append({"seq": seq, "kind": kind, "count": 1})
        elif c.kind == "claim_closed":
            triple = {"subject": c.subject, "label": c.label, "object": c.object}
            out.append({"seq": seq, "kind": "association_retracted", **triple})
        else:  # source_stored, source_retracted: Taguru's names already
            out.append({"seq": seq, "kind": c.kind, "source": c.source})
    return [ChangeEvent.model_validate(e) for e in out]


@router.get("/contexts/{context}/changes", response_model_exclude_none=True)
def changes(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    since: Annotated[str | None, Query(description="`next` of the previous page")] = None,
    limit: Annotated[int, Query(ge=1, le=1000, description="tabane's rows per page")] = 100,
) -> Ok[ChangesOut]:
    """The polling feed: events after the cursor `since`; without it, an empty page whose
    `next` is the current position. tabane's log is kept in the store, so a cursor never goes
    stale (no 410 `stale_cursor`)."""
    found = svc.changes(user, context, since=since, limit=limit, tail=since is None)
    page = ChangesOut(events=events(found.changes), next=found.next, more=found.more)
    return Ok[ChangesOut].model_validate(ok(page, started))


@router.get("/contexts/{context}/embeddings")
def embeddings(context: str, svc: Svc, user: User, started: Started) -> Ok[EmbeddingsOut]:
    """The embedder configured now beside the model the context's vectors were made with
    (`passages`: the configured model's if it holds any, else the first); no gloss vectors
    (tabane's resolve embeds the cue, not stored glosses)."""
    found = svc.embeddings(user, context)
    mine = [h for h in found.held if h.model == found.configured] or list(found.held)
    passages = vars(mine[0]) if mine else None
    done = EmbeddingsOut(provider_model=found.configured, passages=passages)
    return Ok[EmbeddingsOut].model_validate(ok(done, started))


@router.post("/contexts/{context}/embeddings/refresh")
def refresh_embeddings(context: str, svc: Svc, user: User, started: Started) -> Ok[RefreshOut]:
    """Queue the embedding of every source lacking the configured model's vectors; the worker
    embeds them in the background (`embedded: 0`; `POST /flush` waits for them). 409
    `conflict` when no embedder is configured."""
    found = svc.refresh_embeddings(user, context)
    done = RefreshOut(embedded=0, total=found.sources, model=found.model)
    return Ok[RefreshOut].model_validate(ok(done, started))


def compaction(found: Compaction) -> TaguruCompaction:
    return TaguruCompaction(
        name=found.context, dead_edges=found.dead_before, passages_compacted=found.terms
    )


@router.post("/contexts/{context}/compact")
def compact(context: str, svc: Svc, user: User, started: Started) -> Ok[TaguruCompaction]:
    """Fold the context's fresh BM25 packs and masked ids now, under Taguru's names: no file
    image here, so `bytes_*` are null; a retracted source's text is already gone."""
    return Ok[TaguruCompaction].model_validate(ok(compaction(svc.compact(user, context)), started))


@router.post("/maintenance/compact")
def maintenance_compact(
    svc: Svc,
    user: User,
    started: Started,
    min_dead_ratio: Annotated[float, Query(description="only 0: tabane keeps no dead ratio")] = 0.0,
) -> Ok[Sweep]:
    """Compact every context you may write that has anything to fold, one at a time; the
    server stays open (no 503 `maintenance`)."""
    if min_dead_ratio != 0.0:
        raise InvalidInput(
            f"min_dead_ratio {min_dead_ratio!r}",
            issues=[Issue("min_dead_ratio", "only 0: tabane compacts what has anything to fold")],
        )
    sweep = Sweep(contexts=[compaction(c) for c in svc.compact_all(user)], skipped=[])
    return Ok[Sweep].model_validate(ok(sweep, started))
