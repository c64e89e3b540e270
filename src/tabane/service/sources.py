"""The service's source operations: ingest, sync, list, look up, retract, cite."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tabane.contexts import contexts
from tabane.errors import (
    BodyTooLarge,
    Conflict,
    DocumentError,
    EmptyDocument,
    Issue,
    NoContext,
    NotFound,
    TabaneError,
)
from tabane.ingest import files
from tabane.ingest.documents import (
    DocumentInput,
    ingest_parsed,
    parse,
    retract_source,
    stored_unchanged,
)
from tabane.ingest.files import IngestReport, Planned, Progress
from tabane.ingest.watch import Watcher, WatchRules
from tabane.jobs import embed_source
from tabane.jobs.embed_source import EmbeddingRefresh
from tabane.principal import Principal
from tabane.search import vectors
from tabane.service.base import ServiceBase
from tabane.sources import read
from tabane.sources.read import Citation, ParagraphView, SourceInfo, SourcePage
from tabane.sources.write import RetractResult, WriteResult


class SourcesService(ServiceBase):
    def ingest(self, user: Principal, context: str, doc: DocumentInput) -> WriteResult:
        """Store one document (parsed from bytes, or given as paragraphs)."""
        self._writable()
        if doc.data is not None and len(doc.data) > self.settings.max_body_bytes:
            raise BodyTooLarge(
                "document is too large",
                issues=[Issue("text", f"{len(doc.data)} bytes > {self.settings.max_body_bytes}")],
            )
        same = stored_unchanged(self.store, user, context, doc)
        if same is not None:
            return same
        try:
            parsed = parse(doc, self.settings.max_paragraphs)
        except DocumentError as exc:  # the reader names the document; here it is the `text`
            exc.issues = tuple(
                Issue("text", i.problem) if i.path == doc.source_id else i for i in exc.issues
            )
            raise
        if not parsed.blocks:
            # Storing it would empty the source without saying so; a file sync that finds an
            # emptied file retracts instead (ingest/files.py), and retract does that here.
            where = "paragraphs" if doc.data is None else "text"
            raise EmptyDocument(
                "the document has no paragraphs: nothing was stored (to remove a source, "
                "retract it)",
                issues=[Issue(where, "empty, or only whitespace and markup")],
            )
        return ingest_parsed(
            self.store, user, context, doc, parsed, embed=self.embedder is not None
        )

    def ingest_paths(
        self,
        user: Principal,
        context: str,
        paths: Sequence[Path],
        *,
        scopes: Sequence[str] | None = None,
        labels: files.Labels = files.Labels(),
        progress: Progress | None = None,
        planned: Planned | None = None,
    ) -> IngestReport:
        self._writable()
        return files.ingest_paths(
            self.store,
            user,
            context,
            paths,
            scopes=scopes,
            labels=labels,
            max_bytes=self.settings.max_body_bytes,
            max_paragraphs=self.settings.max_paragraphs,
            progress=progress,
            planned=planned,
            embed=self.embedder is not None,
        )

    def sync(
        self,
        user: Principal,
        context: str,
        folder: Path,
        *,
        blocklist: Sequence[str] = files.DEFAULT_BLOCKLIST,
        scopes: Sequence[str] | None = None,
        labels: files.Labels = files.Labels(),
        progress: Progress | None = None,
        planned: Planned | None = None,
    ) -> IngestReport:
        self._writable()
        return files.sync(
            self.store,
            user,
            context,
            folder,
            blocklist=blocklist,
            scopes=scopes,
            labels=labels,
            max_bytes=self.settings.max_body_bytes,
            max_paragraphs=self.settings.max_paragraphs,
            progress=progress,
            planned=planned,
            embed=self.embedder is not None,
        )

    def watch(
        self,
        user: Principal,
        context: str,
        folder: Path,
        *,
        stop: threading.Event,
        rules: WatchRules = WatchRules(),
        blocklist: Sequence[str] = files.DEFAULT_BLOCKLIST,
        scopes: Sequence[str] | None = None,
        labels: files.Labels = files.Labels(),
        on_round: Callable[[IngestReport], None] = lambda _report: None,
        on_error: Callable[[TabaneError], None] | None = None,
    ) -> int:
        """`sync` now and after each change of the folder until `stop` is set (ingest/watch.py);
        the number of syncs run."""
        labels.check()

        def once() -> IngestReport:
            return self.sync(
                user, context, folder, blocklist=blocklist, scopes=scopes, labels=labels
            )

        watcher = Watcher(
            folder,
            once,
            stop=stop,
            rules=rules,
            blocklist=blocklist,
            on_round=on_round,
            on_error=on_error,
        )
        return watcher.run()

    def list_sources(self, /, user: Principal, context: str, **page: Any) -> SourcePage:
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return read.list_sources(session, ctx, **page)

    def lookup(
        self, user: Principal, context: str, source_id: str, *, offset: int = 0, limit: int = 500
    ) -> tuple[SourceInfo, list[ParagraphView]]:
        try:
            with self.store.session(user) as session:
                ctx = contexts.resolve(session, context)
                found = read.lookup(session, ctx, source_id, offset=offset, limit=limit)
                contexts.bump(session, ctx.id, reads=1)
                return found
        except NotFound as exc:
            self._miss(user, context, exc)
            raise

    def retract(
        self, user: Principal, context: str, source_id: str, *, dry_run: bool = False
    ) -> RetractResult:
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            embed = self.embedder is not None
            return retract_source(session, user, ctx, source_id, dry_run=dry_run, embed=embed)

    def cite(self, user: Principal, context: str, source_id: str, paragraph: int) -> Citation:
        try:
            with self.store.session(user) as session:
                ctx = contexts.resolve(session, context)
                citation = read.cite(session, ctx, source_id, paragraph)
                contexts.bump(session, ctx.id, reads=1)
                return citation
        except NotFound as exc:
            self._miss(user, context, exc)
            raise

    def refresh_embeddings(self, user: Principal, context: str) -> EmbeddingRefresh:
        """Queue the embedding of the context's live sources you may write: each job embeds the
        paragraphs that lack a vector of the configured model (after a model change, or sources
        stored with no embedder); vectors that model already made stay, as its text did."""
        if self.embedder is None:
            raise Conflict(  # not a failing service to retry: a server without an embedder
                "no embedder is configured (TABANE_EMBEDDER=none): nothing to embed with",
                issues=[Issue("context", "no embedder")],
            )
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.require_writable(user, ctx)
            queued = embed_source.queue_again(session, user, ctx)
        return EmbeddingRefresh(ctx.name, self.embedder.name, queued)

    def embeddings(self, user: Principal, context: str) -> vectors.EmbeddingStatus:
        """The embedder configured now beside the models the context's vectors were made with
        (a refresh is due where they differ)."""
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            held = vectors.held(session, ctx.id)
        model = self.embedder.name if self.embedder is not None else None
        return vectors.EmbeddingStatus(ctx.name, model, held)

    def _miss(self, user: Principal, context: str, exc: NotFound) -> None:
        """Count a read that found nothing (in its own transaction: the read's rolled back)."""
        if isinstance(exc, NoContext):
            return
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.bump(session, ctx.id, reads=1, misses=1)
