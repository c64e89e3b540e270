"""Contexts and groups on the facade: create, read, change and delete them, and expand a request's
contexts and groups to the contexts they reach; and the usage counts reads leave waiting."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from tabane.contexts import changes as changes_mod
from tabane.contexts import contexts, groups
from tabane.contexts.contexts import ContextInfo, ContextStats
from tabane.contexts.groups import GroupInfo
from tabane.principal import Principal
from tabane.service.base import ServiceBase

log = logging.getLogger(__name__)


class ContextsService(ServiceBase):
    def write_usage(self) -> None:
        """Write the usage counts searches left waiting (contexts/usage.py); `close` does."""
        for user in self.usage.users():
            try:
                with self.store.session(user) as session:
                    self.usage.write(session, user.user_id)
            except Exception:  # a count is not worth a failed close
                log.warning("usage counts of %s not written", user.name, exc_info=True)

    # -- contexts ------------------------------------------------------------------------------

    def create_context(self, /, user: Principal, name: str, **settings: Any) -> ContextInfo:
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

    def changes(
        self,
        user: Principal,
        context: str,
        *,
        since: str | None = None,
        limit: int = 100,
        tail: bool = False,
    ) -> changes_mod.ChangePage:
        """The context's write log after the cursor `since` that `user` may see (contexts/
        changes.py): sources stored and retracted, claims recorded and closed, aliases added."""
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return changes_mod.page(session, ctx.name, ctx.id, since, limit, tail)

    # -- groups --------------------------------------------------------------------------------

    def create_group(self, /, user: Principal, name: str, **fields: Any) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.create(session, user, name, structure=self._group_edges, **fields)

    def get_group(self, user: Principal, name: str) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.get(session, name)

    def list_groups(self, user: Principal) -> list[GroupInfo]:
        with self.store.session(user) as session:
            return groups.list_all(session)

    def change_group(self, /, user: Principal, name: str, **delta: Any) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.change(session, user, name, structure=self._group_edges, **delta)

    def rename_group(self, user: Principal, name: str, new_name: str) -> GroupInfo:
        with self.store.session(user) as session:
            return groups.rename(session, user, name, new_name)

    def delete_group(self, user: Principal, name: str) -> None:
        with self.store.session(user) as session:
            groups.delete_group(session, user, name)

    def expand(
        self, user: Principal, contexts_: Sequence[str], groups_: Sequence[str]
    ) -> list[str]:
        """The names of every context reached by `contexts` and `groups`."""
        with self.store.session(user) as session:
            return [c.name for c in groups.expand(session, contexts_, groups_)]
