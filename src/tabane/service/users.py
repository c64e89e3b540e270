"""Users and scopes on the facade (the owner's operations: add, grant, revoke) and the schema's
revision; erasing and exporting a user (access/erasure.py has the rules).

Export first, then erase, is the documented flow: `export_user` yields every row erasure would
delete, `erase_user` deletes them in one transaction and re-nets the associations the user's
claims fed, so no stale weight remains."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tabane.access import erasure, users
from tabane.access import erasure_repair as repair
from tabane.graph import forget, netting, vocabulary_stats
from tabane.jobs import queue
from tabane.principal import Principal
from tabane.service.base import ServiceBase
from tabane.storage import guard, migrate

# The job that rebuilds each derived table (debounced; one queued job per context and scopes).
REBUILDS = {
    "communities": queue.enqueue_communities,
    "profiles": queue.enqueue_profiles,
    "raptor_nodes": queue.enqueue_raptor,
}


@dataclass(frozen=True)
class Erasure:
    """What erasing `user` deleted: rows per table (every table the walk covers, zeros
    included; exactly the rows `export_user` lists), then, among the associations of other
    scope sets that the user's claims fed, how many were re-netted from the claims left and how
    many were deleted because no claim names them any more, and how many derived builds
    (communities, profiles, RAPTOR trees of contexts that stay) were queued to run again over
    the rows left."""

    user: str
    deleted: dict[str, int]
    total: int
    renetted: int
    pruned: int
    rebuilds: int = 0
    reopened: int = 0  # others' claims the user's erased corrections had closed
    forgotten: int = 0  # spellings (concepts, labels) only the erased claims named
    keys_narrowed: int = 0  # other users' API keys that lost the erased personal scope
    vacuumed: tuple[str, ...] = ()  # tables vacuumed after the commit (none: VACUUM failed)


class UsersService(ServiceBase):
    def revision(self) -> str | None:
        """The schema's migration revision (`store_unavailable` while the database is away,
        which starts an embedded one again, as any call does)."""
        with self.store.admin() as session:
            return migrate.revision(session.connection())

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

    def export_user(self, name: str, *, actor: Principal | None = None) -> Iterator[dict[str, Any]]:
        """Every row erasing `name` would delete, as `{"table", "row"}` objects (parents first).
        `actor` must be the user themself or an admin (None: the store owner, as the CLI is).
        The authority check runs now; the rows are read as the iterator is consumed."""
        with self.store.admin() as session:
            walk = erasure.settle(session, erasure.plan(erasure.find(session, name)))
            erasure.authorize(session, walk, actor, erase=False)
        return self._export(walk)

    def _export(self, walk: erasure.Walk) -> Iterator[dict[str, Any]]:
        with self.store.admin() as session:
            yield from erasure.export_rows(session, walk)

    def erase_user(
        self, name: str, *, actor: Principal | None = None, vacuum: bool = True
    ) -> Erasure:
        """Delete `name` and every row of theirs in one transaction (see access/erasure.py),
        then VACUUM the tables it touched (`vacuum=False` leaves that to the caller, e.g. after
        erasing many users). The transaction also queues that VACUUM as a job, finished here
        once it ran: a process that dies first, or a VACUUM PostgreSQL refuses, leaves it to a
        worker."""
        with self.store.admin() as session:
            walk = erasure.settle(session, erasure.plan(erasure.find(session, name)))
            erasure.authorize(session, walk, actor, erase=True)
            # the user's transactions in flight end first; later ones are refused (guard.py)
            guard.take(session, walk.target.user_id)
            walk = erasure.settle(session, walk)  # with what those wrote
            edges = repair.touched_edges(session, walk)
            derived = repair.touched_derived(session, walk)
            closed = forget.closed_by(session, walk.rows["claims"])
            vocabulary_stats.unbump_entries(session, repair.shared_spellings(session, walk))
            deleted = erasure.delete_rows(session, walk)
            for where, keys in forget.reopen(session, closed).items():
                edges.setdefault(where, set()).update(keys)
            for (context_id, scopes), keys in edges.items():
                netting.renet(session, context_id, scopes, keys)
            # glosses quote the erased claims: gone now, written again by a worker
            for context_id, scopes in sorted(set(edges) | forget.forget_glosses(session, edges)):
                queue.enqueue_glosses(session, context_id=context_id, scopes=scopes)
            pruned = repair.prune_edges(session, edges)
            forgotten = forget.forget_spellings(session, edges)
            repair.scrub_traces(session, forgotten)
            renetted = sum(len(keys) for keys in edges.values()) - pruned
            narrowed = repair.strip_scope(session, walk.target)
            repair.clear_writer(session, walk.target)
            rebuilds = 0
            for table, enqueue in REBUILDS.items():
                for context_id, scopes in sorted(derived.get(table, ())):
                    enqueue(session, context_id=context_id, scopes=list(scopes))
                    rebuilds += 1
            total = sum(deleted.values())
            tables = repair.vacuumed(deleted) if vacuum else []
            # committed with the deletion: a worker VACUUMs if this process cannot (jobs/vacuum.py)
            pending = queue.enqueue_vacuum(session, [t.name for t in tables]) if tables else None
        done = bool(tables) and self.store.vacuum(tables)
        if done and pending is not None:
            with self.store.admin() as session:
                queue.finish(session, pending)
        vacuumed = tuple(t.name for t in tables) if done else ()
        return Erasure(
            name,
            deleted,
            total,
            renetted,
            pruned,
            rebuilds,
            len(closed),
            len(forgotten),
            narrowed,
            vacuumed,
        )
