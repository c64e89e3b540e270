"""What every component of the service shares: the open store, the settings, the models, the
usage tally and the background worker (`Core`), and the base of each component (`ServiceBase`).

Each component (sources, search, recall, …) is one object per resource, built over one `Core`;
the facade (facade.py) holds them and only delegates. A setting or model changed on the core
(`Tabane.settings = …`, `Tabane.reranker = …`) is seen by every component at once."""

from __future__ import annotations

from tabane.config import Settings
from tabane.contexts import groups
from tabane.contexts.usage import Tally
from tabane.jobs.worker import Worker
from tabane.models import e5
from tabane.models.embedder import Embedder
from tabane.models.registry import build_summarizer
from tabane.models.reranker import Reranker
from tabane.models.summarizer import Summarizer
from tabane.storage import disk
from tabane.storage.store import Store


class Core:
    """An open store, the settings it was opened with, the models and the background worker."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        embedder: Embedder | None,
        reranker: Reranker | None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.embedder = embedder
        self.reranker = reranker
        self.usage = Tally(settings.usage_seconds)
        self.summarizer: Summarizer | None = None  # built from the settings on first use
        self.worker = Worker(
            store,
            embedder,
            summarizer=self.summarizer_model,
            disk_low_mb=settings.disk_low_mb,
            second=e5.for_jobs(settings.recall_second_opinion),
        )

    def summarizer_model(self) -> Summarizer:
        """The configured summarizer, built at its first use (checked at `Tabane.open`)."""
        if self.summarizer is None:
            self.summarizer = build_summarizer(self.settings)
        return self.summarizer


class OnCore:
    """What the core holds, as properties of the object over it: the facade and every component
    (a setting, the reranker or the tally set here is set on the core, so all of them see it)."""

    core: Core

    @property
    def store(self) -> Store:
        return self.core.store

    @property
    def settings(self) -> Settings:
        return self.core.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.core.settings = settings

    @property
    def embedder(self) -> Embedder | None:
        return self.core.embedder

    @property
    def reranker(self) -> Reranker | None:
        return self.core.reranker

    @reranker.setter
    def reranker(self, reranker: Reranker | None) -> None:
        self.core.reranker = reranker

    @property
    def worker(self) -> Worker:
        return self.core.worker

    @property
    def usage(self) -> Tally:
        return self.core.usage

    @usage.setter
    def usage(self, usage: Tally) -> None:
        self.core.usage = usage


class ServiceBase(OnCore):
    """A component of the service: its use cases over the shared `Core`."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def _writable(self) -> None:
        """`disk_low` when the embedded store's disk is nearly full (storage/disk.py): called
        first by every use case that writes in bulk; reads never are."""
        disk.check(self.store.embedded_home, self.settings.disk_low_mb)

    def _group_edges(self) -> list[tuple[int, int]]:
        """The whole group DAG, read as the owner: a cycle or a chain too tall through a group
        the caller cannot see is refused as well (its error names only the caller's groups)."""
        with self.store.admin() as session:
            return groups.all_edges(session)
