"""`POST /contexts/{c}/compact` and `/flush` over real HTTP: a compaction folds the fresh BM25
packs into the merged rows with search unchanged, a flush runs the context's queued embedding
until its deadline, and both stay inside what the caller may touch."""

from __future__ import annotations

import httpx
import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # a served app


def _ingest(svc: Tabane, user: Principal, context: str) -> None:
    for i in range(3):
        text = [f"Kettle model {i} boils water quickly.", f"Descale model {i} with vinegar."]
        svc.ingest(user, context, DocumentInput(f"k{i}", paragraphs=[block(t) for t in text]))


def _hits(svc: Tabane, user: Principal, context: str) -> list[tuple[str, int]]:
    found = svc.search(user, SearchRequest(query="descale vinegar", contexts=(context,)))
    return [(h.source_id, h.paragraph) for h in found.hits]


def test_compact_merges_the_packs_and_search_stays(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    _ingest(svc, user, context)
    before = _hits(svc, user, context)
    got = http["me"].post(f"/contexts/{context}/compact")
    assert got.status_code == 200, got.text
    done = got.json()
    assert done["sets"] == 1 and done["fresh_before"] > 0 and done["terms"] > 0, done
    assert done["fresh_after"] == 0 and done["dead_after"] == 0
    assert _hits(svc, user, context) == before
    again = http["me"].post(f"/contexts/{context}/compact").json()
    assert (again["fresh_before"], again["terms"]) == (0, 0)
    hidden = http["other"].post(f"/contexts/{context}/compact")
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "no_context"


def test_flush_runs_the_queued_embedding_until_its_deadline(
    vsvc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    _ingest(vsvc, user, context)
    done = vsvc.flush(user, context, timeout=120)
    assert done.pending > 0 and done.left == 0, done
    assert vsvc.flush(user, context, timeout=1).pending == 0
    bad = http["me"].post(f"/contexts/{context}/flush", json={"timeout": 0})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_input"
