"""The service facade: one method per use case, each taking the acting user explicitly.

Surfaces (CLI, HTTP, MCP) are thin shells over this class and hold no logic of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tabane.access import users
from tabane.config import Settings
from tabane.contexts import contexts, groups
from tabane.contexts.contexts import ContextInfo, ContextStats
from tabane.contexts.groups import GroupInfo
from tabane.errors import BodyTooLarge, Issue, NoContext, NotFound
from tabane.ingest import files
from tabane.ingest.documents import DocumentInput, ingest_parsed, parse
from tabane.ingest.files import IngestReport, Progress
from tabane.sources import read
from tabane.sources.read import Citation, ParagraphView, SourceInfo, SourcePage
from tabane.sources.write import RetractResult, WriteResult, retract
from tabane.storage import migrate
from tabane.storage.store import Store, open_store
from tabane.types import Principal


class Tabane:
    """An open store plus the settings it was opened with."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    @classmethod
    def open(cls, settings: Settings | None = None) -> Tabane:
        settings = settings or Settings.from_env()
        return cls(open_store(settings), settings)

    def close(self) -> None:
        self.store.close()

    def revision(self) -> str | None:
        """The schema's migration revision."""
        return migrate.current(self.store.owner)

    def __enter__(self) -> Tabane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- users and scopes (owner operations) -------------------------------------------------

    def local_user(self) -> Principal:
        """The implicit user of a local install, created on first use with a personal scope."""
        return self.ensure_user(self.settings.local_user)

    def ensure_user(self, name: str) -> Principal:
        with self.store.admin() as session:
            users.add_user(session, name, exist_ok=True)
            return users.principal(session, name)

    def principal(self, name: str) -> Principal:
        with self.store.admin() as session:
            return users.principal(session, name)

    def add_user(self, name: str) -> Principal:
        with self.store.admin() as session:
            users.add_user(session, name)
            return users.principal(session, name)

    def list_users(self) -> list[users.UserInfo]:
        with self.store.admin() as session:
            return users.list_users(session)

    def add_scope(self, name: str, description: str = "") -> None:
        with self.store.admin() as session:
            users.ensure_scope(session, name, description)

    def list_scopes(self) -> list[users.ScopeInfo]:
        with self.store.admin() as session:
            return users.list_scopes(session)

    def remove_scope(self, name: str) -> None:
        with self.store.admin() as session:
            users.remove_scope(session, name)

    def grant(self, user: str, scope: str, *, write: bool = False) -> None:
        with self.store.admin() as session:
            users.grant(session, user, scope, write=write)

    def revoke(self, user: str, scope: str) -> bool:
        with self.store.admin() as session:
            return users.revoke(session, user, scope)

    # -- contexts ------------------------------------------------------------------------------

    def create_context(self, user: Principal, name: str, **settings: Any) -> ContextInfo:
        with self.store.session(user) as session:
            return contexts.create(session, user, name, **settings)

    def get_context(self, user: Principal, name: str) -> ContextInfo:
        with self.store.session(user) as session:
            return contexts.get(session, name)

    def list_contexts(self, user: Principal) -> list[ContextInfo]:
        with self.store.session(user) as session:
            return contexts.list_all(session)

    def update_context(
        self, user: Principal, name: str, changes: Mapping[str, object]
    ) -> ContextInfo:
        with self.store.session(user) as session:
            return contexts.update(session, user, name, changes)

    def rename_context(self, user: Principal, name: str, new_name: str) -> ContextInfo:
        with self.store.session(user) as session:
            return contexts.rename(session, user, name, new_name)

    def delete_context(self, user: Principal, name: str) -> ContextStats:
        with self.store.session(user) as session:
            return contexts.delete(session, user, name)

    # -- groups --------------------------------------------------------------------------------

    def create_group(self, user: Principal, name: str, **fields: Any) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.create(session, user, name, **fields)

    def get_group(self, user: Principal, name: str) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.get(session, name)

    def list_groups(self, user: Principal) -> list[GroupInfo]:
        with self.store.session(user) as session:
            return groups.list_all(session)

    def change_group(self, user: Principal, name: str, **delta: Any) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.change(session, user, name, **delta)

    def delete_group(self, user: Principal, name: str) -> None:
        with self.store.session(user) as session:
            groups.delete_group(session, user, name)

    def expand(
        self, user: Principal, contexts_: Sequence[str], groups_: Sequence[str]
    ) -> list[str]:
        """The names of every context reached by `contexts` and `groups`."""
        with self.store.session(user) as session:
            return [c.name for c in groups.expand(session, contexts_, groups_)]

    # -- sources -------------------------------------------------------------------------------

    def ingest(self, user: Principal, context: str, doc: DocumentInput) -> WriteResult:
        """Store one document (parsed from bytes, or given as paragraphs)."""
        if doc.data is not None and len(doc.data) > self.settings.max_body_bytes:
            raise BodyTooLarge(
                "document is too large",
                issues=[Issue("text", f"{len(doc.data)} bytes > {self.settings.max_body_bytes}")],
            )
        return ingest_parsed(self.store, user, context, doc, parse(doc))

    def ingest_paths(
        self,
        user: Principal,
        context: str,
        paths: Sequence[Path],
        *,
        scopes: Sequence[str] | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        return files.ingest_paths(
            self.store,
            user,
            context,
            paths,
            scopes=scopes,
            max_bytes=self.settings.max_body_bytes,
            progress=progress,
        )

    def sync(
        self,
        user: Principal,
        context: str,
        folder: Path,
        *,
        blocklist: Sequence[str] = files.DEFAULT_BLOCKLIST,
        scopes: Sequence[str] | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        return files.sync(
            self.store,
            user,
            context,
            folder,
            blocklist=blocklist,
            scopes=scopes,
            max_bytes=self.settings.max_body_bytes,
            progress=progress,
        )

    def list_sources(self, user: Principal, context: str, **page: Any) -> SourcePage:
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
            return retract(session, user, ctx, source_id, dry_run=dry_run)

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

    def _miss(self, user: Principal, context: str, exc: NotFound) -> None:
        """Count a read that found nothing (in its own transaction: the read's rolled back)."""
        if isinstance(exc, NoContext):
            return
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.bump(session, ctx.id, reads=1, misses=1)
