"""`/metrics`: request counts and latency per route template and status, the pools, the job queue
and the store's size read at scrape time (and left out, not failed, when the store is slow), and
the one door in front of it."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.api.metrics import METRICS_SCOPE
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: TestClient, **headers: str) -> Samples:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def test_requests_are_counted_per_route_template_and_status(svc: Tabane) -> None:
    client = TestClient(create_app(svc))  # no authentication: the local user scrapes
    client.get("/health")
    missing = unique("nosuch")
    assert client.get(f"/contexts/{missing}").status_code == 404
    samples = scrape(client)
    route = {"method": "GET", "route": "/contexts/{context}", "status": "404"}
    assert value(samples, "tabane_http_requests_total", **route) == 1
    assert value(samples, "tabane_http_request_duration_seconds_count", **route) == 1
    assert value(samples, "tabane_http_requests_total", method="GET", route="/health", status="200")
    assert not any(missing in str(key) for key in samples)  # the path's value never becomes a label
    assert value(samples, "tabane_scrape_store_success") == 1
    assert (value(samples, "tabane_store_size_bytes") or 0) > 1_000_000
    assert value(samples, "tabane_db_pool_connections_in_use", engine="app") is not None
    assert value(samples, "tabane_db_pool_waiting") == 0


@pytest.mark.slow  # embeds a corpus through the worker
def test_job_queue_depth_and_embedding_throughput(
    vsvc: Tabane, user: Principal, context: str, tmp_path: Path
) -> None:
    vsvc.wait_for_jobs()  # what other tests left queued
    local = TestClient(create_app(vsvc))
    start = value(scrape(local), "tabane_embedded_paragraphs_total") or 0.0
    doc = tmp_path / "notes.md"
    doc.write_text("\n\n".join(f"Paragraph {i} about lighthouses and tides." for i in range(7)))
    vsvc.ingest_paths(user, context, [doc])
    queued = scrape(local)
    assert (value(queued, "tabane_jobs", kind="embed_source", state="queued") or 0) >= 1
    assert (value(queued, "tabane_jobs_oldest_age_seconds", kind="embed_source", state="queued")
            or -1) >= 0  # fmt: skip
    vsvc.wait_for_jobs()
    done = scrape(local)
    assert value(done, "tabane_jobs", kind="embed_source", state="queued") is None
    assert value(done, "tabane_embedded_paragraphs_total") == start + 7
    assert (value(done, "tabane_embedding_seconds_total") or 0) > 0


def test_a_slow_store_leaves_its_gauges_out_and_the_scrape_answers(svc: Tabane) -> None:
    quick = Tabane.build(svc.store, dataclasses.replace(svc.settings, metrics_seconds=0.3), None)
    client = TestClient(create_app(quick))
    locked, release = threading.Event(), threading.Event()

    def hold_jobs() -> None:  # a migration or a VACUUM FULL would hold it so
        with svc.store.owner.begin() as conn:
            conn.execute(text("LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE"))
            locked.set()
            release.wait(30)

    holder = threading.Thread(target=hold_jobs)
    holder.start()
    try:
        assert locked.wait(10)
        started = time.monotonic()
        samples = scrape(client)
        took = time.monotonic() - started
    finally:
        release.set()
        holder.join()
    assert took < 3
    assert value(samples, "tabane_scrape_store_success") == 0
    assert value(samples, "tabane_store_size_bytes") is None
    assert not any(name == "tabane_jobs" for name, _ in samples)
    assert value(samples, "tabane_db_pool_waiting") is not None  # the rest is still there
    assert value(scrape(client), "tabane_scrape_store_success") == 1  # and back once it answers


def test_metrics_sit_behind_the_door(svc: Tabane, make_user) -> None:
    client = TestClient(create_app(svc, key_resolver(svc)))
    refused = client.get("/metrics")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthorized"
    plain = make_user()
    token = svc.create_key(plain.name).token
    forbidden = client.get("/metrics", headers={"authorization": f"Bearer {token}"})
    assert forbidden.status_code == 403
    assert forbidden.json()["error"]["code"] == "forbidden"
    ops = make_user(extra_read=(METRICS_SCOPE,))
    ops_token = svc.create_key(ops.name, read=[METRICS_SCOPE]).token
    samples = scrape(client, authorization=f"Bearer {ops_token}")
    assert value(samples, "tabane_http_requests_total", method="GET", route="/metrics",
                 status="403") == 1  # fmt: skip
