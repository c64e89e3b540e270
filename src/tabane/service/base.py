"""What every part of the service facade shares."""

from __future__ import annotations

from tabane.config import Settings
from tabane.contexts.usage import Tally
from tabane.jobs.worker import Worker
from tabane.models.embedder import Embedder
from tabane.models.reranker import Reranker
from tabane.storage import disk
from tabane.storage.store import Store


class ServiceBase:
    store: Store
    settings: Settings
    embedder: Embedder | None
    reranker: Reranker | None
    worker: Worker
    usage: Tally

    def _writable(self) -> None:
        """`disk_low` when the embedded store's disk is nearly full (storage/disk.py): called
        first by every use case that writes in bulk; reads never are."""
        disk.check(self.store.embedded_home, self.settings.disk_low_mb)
