"""The service facade: one method per use case, each taking the acting user explicitly.

Surfaces (CLI, HTTP, MCP) are thin shells over this class and hold no logic of their own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from tabane.access import users
from tabane.config import Settings
from tabane.contexts import contexts, groups
from tabane.contexts.contexts import ContextInfo, ContextStats
from tabane.contexts.groups import GroupInfo
from tabane.contexts.usage import Tally
from tabane.jobs.worker import Worker
from tabane.models.embedder import Embedder
from tabane.models.registry import build_embedder, build_reranker, check_summarizer
from tabane.recall.presets import load_presets
from tabane.service.archive import ArchiveService
from tabane.service.derive import DeriveService
from tabane.service.graph import GraphWriteService
from tabane.service.graph_read import GraphReadService
from tabane.service.keys import KeysService
from tabane.service.memory import MemoryService
from tabane.service.recall import RecallService, templates
from tabane.service.resolve import ResolveService
from tabane.service.search import SearchService
from tabane.service.sources import SourcesService
from tabane.service.users import UsersService
from tabane.storage import migrate
from tabane.storage.opening import open_store
from tabane.storage.store import Store
from tabane.types import Principal

_UNSET: object = object()
log = logging.getLogger(__name__)


class Tabane(
    SourcesService,
    SearchService,
    GraphWriteService,
    ResolveService,
    GraphReadService,
    MemoryService,
    RecallService,
    DeriveService,
    KeysService,
    UsersService,
    ArchiveService,
):
    """An open store, the settings it was opened with, the embedder and the background worker."""

    def __init__(
        self, store: Store, settings: Settings, embedder: Embedder | object | None = _UNSET
    ) -> None:
        self.store = store
        self.settings = settings
        self.embedder = build_embedder(settings) if embedder is _UNSET else embedder  # type: ignore[assignment]
        self.reranker = build_reranker(settings)
        self.usage = Tally(settings.usage_seconds)
        self.worker = Worker(
            store, self.embedder, summarizer=self._summarizer, disk_low_mb=settings.disk_low_mb
        )
        if settings.worker == "thread":
            self.worker.start()

    @classmethod
    def open(
        cls, settings: Settings | None = None, *, embedder: Embedder | object | None = _UNSET
    ) -> Tabane:
        settings = settings or Settings.from_env()
        check_summarizer(settings)  # built at the first derive, checked now
        # The recall template and presets files are settings too: a broken one stops the start
        # (naming the file and each problem), not every recall after it.
        presets = load_presets(settings.presets)
        texts = templates(settings.recall_template, presets)
        svc = cls(open_store(settings), settings, embedder)
        # read once: a recall never reads these files again
        vars(svc).update(recall_presets=presets, recall_templates=texts)
        return svc

    def close(self) -> None:
        self.worker.stop()
        self.write_usage()
        closer = getattr(self.embedder, "close", None)
        if callable(closer):
            closer()
        self.store.close()

    def write_usage(self) -> None:
        """Write the usage counts searches left waiting (contexts/usage.py); `close` does."""
        for user in self.usage.users():
            try:
                with self.store.session(user) as session:
                    self.usage.write(session, user.user_id)
            except Exception:  # a count is not worth a failed close
                log.warning("usage counts of %s not written", user.name, exc_info=True)

    def revision(self) -> str | None:
        """The schema's migration revision (`store_unavailable` while the database is away,
        which starts an embedded one again, as any call does)."""
        with self.store.admin() as session:
            return migrate.revision(session.connection())

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

    def add_user(self, name: str, *, public_write: bool = True) -> Principal:
        """A new user with their personal scope and `public` (writable unless told not)."""
        with self.store.admin() as session:
            users.add_user(session, name, public_write=public_write)
            return users.principal(session, name)

    def list_users(self) -> list[users.UserInfo]:
        with self.store.admin() as session:
            return users.list_users(session)

    def add_scope(self, name: str, description: str | None = None) -> bool:
        """Create a scope (True), or keep an existing one (False), giving it `description` when
        one is given."""
        with self.store.admin() as session:
            return users.add_scope(session, name, description)

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
            self.usage.write(session, user.user_id)  # your own reads, counted at once
            return contexts.get(session, name)

    def list_contexts(self, user: Principal) -> list[ContextInfo]:
        with self.store.session(user) as session:
            self.usage.write(session, user.user_id)
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
        def foreign(context_id: int) -> int:
            with self.store.admin() as admin:
                return contexts.foreign_rows(admin, context_id, user.write)

        with self.store.session(user) as session:
            return contexts.delete(session, user, name, foreign)

    # -- groups --------------------------------------------------------------------------------

    def create_group(self, user: Principal, name: str, **fields: Any) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.create(session, user, name, structure=self._group_edges, **fields)

    def get_group(self, user: Principal, name: str) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.get(session, name)

    def list_groups(self, user: Principal) -> list[GroupInfo]:
        with self.store.session(user) as session:
            return groups.list_all(session)

    def change_group(self, user: Principal, name: str, **delta: Any) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.change(session, user, name, structure=self._group_edges, **delta)

    def _group_edges(self) -> list[tuple[int, int]]:
        """The whole group DAG, read as the owner: a cycle or a chain too tall through a group
        the caller cannot see is refused as well (its error names only the caller's groups)."""
        with self.store.admin() as session:
            return groups.all_edges(session)

    def delete_group(self, user: Principal, name: str) -> None:
        with self.store.session(user) as session:
            groups.delete_group(session, user, name)

    def expand(
        self, user: Principal, contexts_: Sequence[str], groups_: Sequence[str]
    ) -> list[str]:
        """The names of every context reached by `contexts` and `groups`."""
        with self.store.session(user) as session:
            return [c.name for c in groups.expand(session, contexts_, groups_)]
