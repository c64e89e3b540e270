"""The service's graph writes: claims in batches, retraction, aliases.

A write that changes a context's shared graph also queues the debounced rebuilds of the derived
builds it made stale (jobs/rebuilds.py), in the writer's transaction, with or without an
embedder: a worker runs them either way (jobs/worker.py), embedding their summaries only where
it has one.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabane.contexts import contexts
from tabane.errors import InvalidInput, Issue
from tabane.graph import aliases, vocabulary
from tabane.graph.aliases import AliasInfo
from tabane.graph.claims import promote as promote_mod
from tabane.graph.claims import write as claims_mod
from tabane.graph.claims.parse import ClaimInput
from tabane.graph.claims.promote import Promotion
from tabane.graph.claims.write import CloseReport, WriteReport
from tabane.graph.vocabulary import Kind
from tabane.jobs import queue, rebuilds
from tabane.principal import Principal
from tabane.service.base import ServiceBase


class GraphWriteService(ServiceBase):
    def add_claims(
        self,
        user: Principal,
        context: str,
        claims: Sequence[ClaimInput],
        *,
        scopes: Sequence[str] | None = None,
    ) -> WriteReport:
        """Write a batch of claims (all or nothing). Default scopes: the context's own."""
        self._writable()
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            chosen = (
                tuple(ctx.scopes)
                if scopes is None
                else tuple(contexts.writable_scopes(user, scopes))
            )
            report = claims_mod.write_batch(session, user, ctx, claims, chosen)
            queue.enqueue_gram_merge(session, context_id=ctx.id, scopes=chosen)  # when due
            if self.embedder is not None:  # glosses changed, claims are new: embed them later
                queue.enqueue_glosses(session, context_id=ctx.id, scopes=chosen)
                queue.enqueue_claims(session, context_id=ctx.id, scopes=chosen)
            if report.associations or report.closed:  # the graph changed: rebuild later
                rebuilds.derived_changed(
                    session, user, ctx, graph=True, leaves=bool(report.closed), written=chosen
                )
            return report

    def retract_associations(
        self,
        user: Principal,
        context: str,
        edges: Sequence[tuple[str, str, str, str | None, str | None]],
        *,
        dry_run: bool = False,
    ) -> CloseReport:
        """Close the claims of each (subject, label, object, perspective?, source?) edge."""
        _check_edges(edges)
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            report = claims_mod.retract_edges(session, user, ctx, edges, dry_run=dry_run)
            if report.associations and not report.dry_run:  # closed notes are the tree's leaves
                embed = self.embedder is not None
                rebuilds.claims_closed(session, user, ctx, claims=report.claims, embed=embed)
            return report

    def promote(
        self,
        user: Principal,
        context: str,
        claim: int,
        *,
        scopes: Sequence[str] | None = None,
    ) -> Promotion:
        """A personal claim made the world's (graph/claims/promote.py): a new world claim that
        closes it as superseded, its history kept."""
        self._writable()
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            chosen = None if scopes is None else tuple(contexts.writable_scopes(user, scopes))
            done = promote_mod.promote(session, user, ctx, claim, chosen)
            queue.enqueue_gram_merge(session, context_id=ctx.id, scopes=done.scopes)
            if self.embedder is not None:  # a new claim and changed glosses: embed them later
                queue.enqueue_glosses(session, context_id=ctx.id, scopes=done.scopes)
                queue.enqueue_claims(session, context_id=ctx.id, scopes=done.scopes)
            rebuilds.derived_changed(
                session, user, ctx, graph=True, leaves=True, written=done.scopes
            )
            return done

    def add_alias(
        self,
        user: Principal,
        context: str,
        alias: str,
        target: str,
        *,
        kind: Kind = "concept",
        scopes: Sequence[str] | None = None,
    ) -> tuple[AliasInfo, bool]:
        alias, target = vocabulary.spelling(alias, "alias"), vocabulary.spelling(target, "target")
        kind = vocabulary.check_kind(kind)
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            chosen = None if scopes is None else tuple(contexts.writable_scopes(user, scopes))
            return aliases.add_alias(session, user, ctx, kind, alias, target, chosen)

    def remove_alias(
        self, user: Principal, context: str, alias: str, *, kind: Kind = "concept"
    ) -> int:
        alias = vocabulary.spelling(alias, "alias")  # as adding it stored it
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return aliases.remove_alias(session, user, ctx, kind, alias)

    def list_aliases(
        self, user: Principal, context: str, *, kind: Kind | None = None
    ) -> list[AliasInfo]:
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return aliases.list_aliases(session, ctx.id, kind)


def _check_edges(edges: Sequence[tuple[str, str, str, str | None, str | None]]) -> None:
    """Every edge to retract names a subject, label and object (issues say which one is bad)."""
    if not edges:
        raise InvalidInput("no associations to retract", issues=[Issue("associations", "empty")])
    issues: list[Issue] = []
    for i, edge in enumerate(edges):
        for name, value in zip(("subject", "label", "object"), edge[:3], strict=True):
            vocabulary.check_spelling(value, f"associations[{i}].{name}", issues)
    if issues:
        problems = f"{len(issues)} problem(s) in associations; nothing closed"
        raise InvalidInput(problems, issues=issues)
