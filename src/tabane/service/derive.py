"""The service's derived-memory operations: build, read and search a context's communities."""

from __future__ import annotations

from tabane.contexts import contexts
from tabane.derive import communities as comm
from tabane.derive.communities import Communities, CommunityBuild, CommunitySearch
from tabane.errors import InvalidInput, Issue
from tabane.service.base import ServiceBase
from tabane.types import Principal

DERIVED_KINDS = ("communities",)  # profiles and raptor join when they are built


class DeriveService(ServiceBase):
    def build_communities(self, user: Principal, context: str) -> CommunityBuild:
        """Rebuild the context's communities now (Louvain over its shared association graph,
        with `edges-v1` summaries). Needs write access to the context's scopes."""
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.require_writable(user, ctx)
            return comm.build(session, ctx)

    def communities(self, user: Principal, context: str, level: int | None = None) -> Communities:
        """The context's communities (one level or all), flagged `stale` when the graph changed
        after the build."""
        with self.store.session(user) as session:
            return comm.read(session, contexts.resolve(session, context), level)

    def search_communities(
        self, user: Principal, context: str, query: str, limit: int = 10
    ) -> CommunitySearch:
        """Communities whose member names or summary share terms with `query`."""
        with self.store.session(user) as session:
            return comm.search(session, contexts.resolve(session, context), query, limit)

    def derive_targets(
        self, user: Principal, context: str | None = None, what: str = "communities"
    ) -> list[str]:
        """The contexts `derive` would build: `context`, or every context the user may write."""
        if what not in DERIVED_KINDS:
            raise InvalidInput(
                f"cannot derive {what!r}", issues=[Issue("what", f"one of {list(DERIVED_KINDS)}")]
            )
        with self.store.session(user) as session:
            if context is not None:
                return [contexts.resolve(session, context).name]
            return [c.name for c in contexts.list_all(session) if user.can_write(c.scopes)]

    def derive(
        self, user: Principal, context: str | None = None, what: str = "communities"
    ) -> list[CommunityBuild]:
        """Force a build of `what` for one context, or for every context the user may write
        (one transaction per context)."""
        return [self.build_communities(user, n) for n in self.derive_targets(user, context, what)]
