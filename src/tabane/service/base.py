"""What every part of the service facade shares."""

from __future__ import annotations

from tabane.config import Settings
from tabane.jobs.worker import Worker
from tabane.models.embedder import Embedder
from tabane.models.reranker import Reranker
from tabane.storage.store import Store


class ServiceBase:
    store: Store
    settings: Settings
    embedder: Embedder | None
    reranker: Reranker | None
    worker: Worker
