"""The service's derived-memory operations: build, read and search a context's communities;
build a context's entity profiles and read one; build a context's RAPTOR tree, read it and
follow a node down to its members."""

from __future__ import annotations

from tabane.contexts import contexts
from tabane.derive import profiles as prof
from tabane.derive.communities import communities as comm
from tabane.derive.communities.communities import Communities, CommunityBuild, CommunitySearch
from tabane.derive.profiles import ProfileBuild, ProfileInfo
from tabane.derive.raptor import tree as raptor
from tabane.derive.raptor.read import RaptorMemberView, RaptorTree
from tabane.derive.raptor.tree import RaptorBuild
from tabane.errors import InvalidInput, Issue, NoConcept
from tabane.graph import vocabulary
from tabane.principal import Principal
from tabane.service.base import ServiceBase

DERIVED_KINDS = ("communities", "profiles", "raptor")
Build = CommunityBuild | ProfileBuild | RaptorBuild


class DeriveService(ServiceBase):
    def build_communities(self, user: Principal, context: str) -> CommunityBuild:
        """Rebuild the context's communities now (Louvain over its shared association graph,
        with `edges-v2` summaries). Needs write access to the context's scopes."""
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

    def build_profiles(
        self, user: Principal, context: str, top: int | None = prof.DEFAULT_TOP
    ) -> ProfileBuild:
        """Rebuild the context's entity profiles now: per concept among the `top` heaviest (None:
        all), a summary of its heaviest open claims by the configured summarizer, world claims
        first and each holder's labelled, with a summary embedding when an embedder is
        configured. Needs write access to the context's scopes."""
        prof.check_top(top)
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.require_writable(user, ctx)
            return prof.build(session, ctx, self.core.summarizer_model(), self.embedder, top=top)

    def profile(self, user: Principal, context: str, concept: str) -> ProfileInfo:
        """The profile of `concept` (an alias reads its canonical concept), flagged `stale`
        when the concept's claims changed after the build."""
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            name = vocabulary.spelling(concept, "concept")
            name = vocabulary.canonical(session, ctx.id, "concept", [name]).get(name, name)
            if not vocabulary.exists(session, ctx.id, "concept", name):
                raise NoConcept(
                    f"no concept {concept!r} in context {ctx.name!r}",
                    issues=[Issue("concept", f"{concept!r} is not a concept of {ctx.name!r}")],
                )
            return prof.read(session, ctx, name)

    def build_raptor(self, user: Principal, context: str) -> RaptorBuild:
        """Rebuild the context's RAPTOR tree now: its paragraphs and notes clustered by their
        vectors, each cluster summarized by the configured summarizer and embedded, level by
        level until a few roots remain. Needs an embedder (else the report says `skipped`) and
        write access to the context's scopes."""
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.require_writable(user, ctx)
            return raptor.build(session, ctx, self.core.summarizer_model(), self.embedder)

    def raptor_tree(self, user: Principal, context: str, level: int | None = None) -> RaptorTree:
        """The context's RAPTOR tree (one level or all, top level first), flagged `stale` when
        its paragraphs or notes changed after the build."""
        with self.store.session(user) as session:
            return raptor.read(session, contexts.resolve(session, context), level)

    def raptor_members(
        self, user: Principal, context: str, level: int, ordinal: int
    ) -> tuple[RaptorMemberView, ...]:
        """Every member of RAPTOR node `level`.`ordinal`, resolved (paragraph, note or child
        node), so a summary's citation can be followed down."""
        with self.store.session(user) as session:
            return raptor.members(session, contexts.resolve(session, context), level, ordinal)

    def build_derived(self, user: Principal, context: str, what: str = "communities") -> Build:
        """Build one derived kind (`derive_targets` checks `what`) for one context."""
        if what == "profiles":
            return self.build_profiles(user, context)
        if what == "raptor":
            return self.build_raptor(user, context)
        return self.build_communities(user, context)

    def derive(
        self, user: Principal, context: str | None = None, what: str = "communities"
    ) -> list[Build]:
        """Force a build of `what` for one context, or for every context the user may write
        (one transaction per context)."""
        return [self.build_derived(user, n, what) for n in self.derive_targets(user, context, what)]
