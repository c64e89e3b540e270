"""Every metric `/metrics` can serve is documented in docs/guide.md ("Metrics"), by the name a
scrape shows (a counter with its `_total`)."""

from __future__ import annotations

from pathlib import Path

from tabane.api.metrics import Metrics
from tabane.service import Tabane

GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()


def test_every_metric_is_documented(svc: Tabane) -> None:
    metrics = Metrics(svc, store_seconds=10.0, open_to_all=True)
    metrics.observe("GET", "/health", 200, 0.01)
    names = {
        f"{family.name}_total" if family.type == "counter" else family.name
        for family in metrics.registry.collect()
    }
    assert "tabane_store_size_bytes" in names and "tabane_jobs" in names  # the store answered
    assert sorted(n for n in names if f"`{n}`" not in GUIDE) == []
