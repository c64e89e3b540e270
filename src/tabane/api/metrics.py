"""Prometheus metrics at `/metrics`, one registry per app (docs/guide.md, "Metrics", names each).

Requests are counted and timed per method, route template and status by api/observe.py. The rest
is read when Prometheus scrapes: the pools (in use, waiting), the embedding tally of this
process's workers, and — from the database, within `TABANE_METRICS_SECONDS` — the job queue per
kind and state and the store's size. A store that does not answer in time never fails the
scrape: its gauges are left out and `tabane_scrape_store_success` reads 0.

`/metrics` is behind the same door as every route: with authentication on, the caller must read
the scope `ops:metrics` (403 otherwise); a server without authentication serves it to its local
user.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from tabane.api.deps import User
from tabane.errors import Forbidden, Issue
from tabane.jobs import meter
from tabane.service import Tabane
from tabane.storage import observed
from tabane.storage.store import POOL_OVERFLOW, POOL_SIZE

METRICS_SCOPE = "ops:metrics"  # the scope a caller reads to scrape, with authentication on
# Latency buckets in seconds: a search or recall answers in ~10-200 ms, an ingest in seconds,
# the request deadline is 60 s (TABANE_REQUEST_SECONDS).
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

router = APIRouter()
log = logging.getLogger(__name__)


class Metrics:
    """The app's registry: request metrics, and the collectors read at scrape time."""

    def __init__(self, svc: Tabane, *, store_seconds: float, open_to_all: bool) -> None:
        self.registry = CollectorRegistry()
        self.open_to_all = open_to_all  # no authentication: the local user may scrape
        labels = ("method", "route", "status")
        self.requests = Counter(
            "tabane_http_requests",
            "HTTP requests answered, by method, route template and status",
            labels,
            registry=self.registry,
        )
        self.latency = Histogram(
            "tabane_http_request_duration_seconds",
            "Seconds from a request's arrival to its answer's end",
            labels,
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.registry.register(Scraped(svc, store_seconds))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route, str(status)).observe(seconds)


class Scraped:
    """The gauges read at scrape time. The store's are read in a thread of their own, waited
    for at most `seconds` (PostgreSQL's statement timeout is the same), so a slow store or a
    full pool costs a scrape `seconds`, never the scrape itself."""

    def __init__(self, svc: Tabane, seconds: float) -> None:
        self.svc = svc
        self.seconds = seconds
        self.reader = ThreadPoolExecutor(1, "tabane-metrics")

    def collect(self) -> Iterator[Metric]:
        store = self.svc.store
        yield from _pools(observed.in_use(store), store.waiting.count)
        items, seconds = meter.EMBEDDED.read()
        yield CounterMetricFamily(
            "tabane_embedded_paragraphs",
            "Paragraphs embedded by this process's workers (rate() is the throughput)",
            value=items,
        )
        yield CounterMetricFamily(
            "tabane_embedding_seconds",
            "Seconds this process's workers spent embedding and writing vectors",
            value=seconds,
        )
        started = time.perf_counter()
        try:
            depths, size = self.reader.submit(self._read).result(timeout=self.seconds)
        except FutureTimeout:
            ok = False
        except Exception as exc:  # the store is away or refused: the scrape still answers
            log.warning("a scrape left the store's gauges out: %s", str(exc).splitlines()[0])
            ok = False
        else:
            ok = True
            yield from _jobs(depths)
            yield GaugeMetricFamily(
                "tabane_store_size_bytes", "The database's size on disk", value=size
            )
        success = GaugeMetricFamily(
            "tabane_scrape_store_success",
            "1 when the store answered this scrape within TABANE_METRICS_SECONDS, else 0",
            value=1 if ok else 0,
        )
        took = GaugeMetricFamily(
            "tabane_scrape_store_duration_seconds",
            "Seconds this scrape waited for the store",
            value=time.perf_counter() - started,
        )
        yield success
        yield took

    def _read(self) -> tuple[list[meter.Depth], int]:
        return meter.store_gauges(self.svc.store, self.seconds)


def _pools(in_use: dict[str, int], waiting: int) -> Iterator[Metric]:
    used = GaugeMetricFamily(
        "tabane_db_pool_connections_in_use",
        "Pooled database connections checked out now, per engine (app: callers; owner: "
        "workers and the reference tables)",
        labels=["engine"],
    )
    for name, count in in_use.items():
        used.add_metric([name], count)
    yield used
    yield GaugeMetricFamily(
        "tabane_db_pool_connections_max",
        "Connections one engine's pool may hold (pool size and overflow)",
        value=POOL_SIZE + POOL_OVERFLOW,
    )
    yield GaugeMetricFamily(
        "tabane_db_pool_waiting",
        "Callers' transactions waiting for a pooled connection now",
        value=waiting,
    )


def _jobs(depths: list[meter.Depth]) -> Iterator[Metric]:
    count = GaugeMetricFamily(
        "tabane_jobs", "Queued and running jobs, by kind and state", labels=["kind", "state"]
    )
    oldest = GaugeMetricFamily(
        "tabane_jobs_oldest_age_seconds",
        "Seconds since the oldest queued or running job of a kind was queued",
        labels=["kind", "state"],
    )
    for depth in depths:
        count.add_metric([depth.kind, depth.state], depth.count)
        oldest.add_metric([depth.kind, depth.state], depth.oldest_seconds)
    yield count
    yield oldest


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request, user: User) -> Response:
    """Prometheus's text format. With authentication on, the caller must read `ops:metrics`."""
    state: Metrics = request.app.state.metrics
    if not state.open_to_all and METRICS_SCOPE not in user.read:
        raise Forbidden(
            "reading /metrics needs the scope ops:metrics",
            issues=[Issue("scope", f"{METRICS_SCOPE} is not among the key's read scopes")],
        )
    return Response(generate_latest(state.registry), media_type=CONTENT_TYPE_LATEST)
