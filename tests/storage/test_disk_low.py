"""Below the disk's low watermark, writes are refused before PostgreSQL meets a full disk
(`disk_low`, 507, nothing written) while reads go on, and the worker claims no job; over HTTP
the refusal is the same error body."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from tabane.api.app import create_app
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.errors import DiskLow
from tabane.ingest.documents import DocumentInput, block
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage import disk

from helpers import serve


def _nearly_full(svc: Tabane) -> Tabane:
    """The same store, with a watermark above the disk's free space: as if it were full."""
    free = disk.free_mb(svc.settings.home / "pg")
    low = dataclasses.replace(svc.settings, disk_low_mb=free + 1024)
    return Tabane.build(svc.store, low, None)


def test_writes_are_refused_below_the_watermark_and_reads_go_on(svc: Tabane, user, context):
    svc.ingest(user, context, DocumentInput("a", paragraphs=[block("kettles boil water")]))
    full = _nearly_full(svc)  # shares the test store: never closed here
    for write in (
        lambda: full.ingest(user, context, DocumentInput("b", paragraphs=[block("more")])),
        lambda: full.remember(user, context, {"text": "the kettle is new"}),
        lambda: full.add_turn(user, "s1", "hello"),
    ):
        with pytest.raises(DiskLow) as caught:
            write()
        assert (caught.value.code, caught.value.status) == ("disk_low", 507)
        assert [i.path for i in caught.value.issues] == ["TABANE_DISK_LOW_MB"]
    assert [s.source_id for s in full.list_sources(user, context).sources] == ["a"]
    hits = full.search(user, SearchRequest("kettles", contexts=(context,))).hits
    assert [h.source_id for h in hits] == ["a"]
    assert full.worker.run_once() is False  # no job is claimed: jobs write


def test_http_answers_507_disk_low(svc: Tabane, user, context) -> None:
    full = _nearly_full(svc)
    app = create_app(full, lambda request: user, limiter=RateLimiter(RateLimits()))
    with serve(app) as url:
        refused = httpx.post(
            f"{url}/contexts/{context}/sources", json={"source_id": "c", "text": "more text"}
        )
        assert refused.status_code == 507
        assert refused.json()["error"]["code"] == "disk_low"
        assert httpx.get(f"{url}/contexts/{context}/sources").status_code == 200
