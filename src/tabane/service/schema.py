"""The service's schema tools and audits: a context's declared schema (get, put with its
version, validate as a dry run), and the three audits — schema, consolidation, drift. Every
audit is a read, bounded by `limit` (1..MAX_PAGE) and paged by `cursor` (an offset)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from tabane.checks import MAX_INT4, parse_date
from tabane.contexts import contexts
from tabane.errors import InvalidInput, Issue
from tabane.graph import audit as audit_mod
from tabane.graph import consolidation as cons
from tabane.graph import drift as drift_mod
from tabane.graph import schema as schema_mod
from tabane.graph import unsourced as unsourced_mod
from tabane.graph.conformance import Conformance
from tabane.graph.conformance import check as conformance_check
from tabane.graph.schema import Schema
from tabane.models.registry import gloss_floor
from tabane.principal import Principal
from tabane.service.base import ServiceBase

MAX_PAGE = 1000
DRIFT_DAYS = 30  # the default window of audit_drift: the last 30 days


def _page(limit: object, cursor: object) -> tuple[int, int]:
    issues = []
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        issues.append(Issue("limit", f"{limit!r} not in 1..{MAX_PAGE}"))
    if isinstance(cursor, bool) or not isinstance(cursor, int) or not 0 <= cursor <= MAX_INT4:
        issues.append(Issue("cursor", f"{cursor!r} is not an offset in 0..{MAX_INT4}"))
    if issues:
        raise InvalidInput("invalid page", issues=issues)
    return limit, cursor  # type: ignore[return-value]


def _sections(asked: Sequence[str] | None, known: tuple[str, ...]) -> tuple[str, ...]:
    if asked is None:
        return known
    unknown = [s for s in asked if s not in known]
    if unknown or not asked:
        problem = f"unknown: {unknown}" if unknown else "empty"
        raise InvalidInput(
            "invalid sections", issues=[Issue("sections", f"{problem}; use some of {list(known)}")]
        )
    return tuple(s for s in known if s in asked)


class SchemaService(ServiceBase):
    def get_schema(self, user: Principal, context: str) -> Schema:
        """The context's declared schema; version 0 and empty when none is declared."""
        with self.store.session(user) as session:
            return schema_mod.load(session, contexts.resolve(session, context))

    def put_schema(
        self, user: Principal, context: str, draft: Schema, *, expected_version: int | None
    ) -> Schema:
        """Replace the schema if it is still at `expected_version` (0: none declared yet;
        None: whatever is stored — Taguru's unversioned `PUT`, decision 0027)."""
        version = expected_version
        if version is not None and (
            isinstance(version, bool)
            or not isinstance(version, int)
            or not 0 <= version <= MAX_INT4
        ):
            problem = f"{version!r} is not a version in 0..{MAX_INT4}"
            raise InvalidInput("invalid version", issues=[Issue("expected_version", problem)])
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            contexts.require_writable(user, ctx)
            return schema_mod.store(session, ctx, draft, expected_version)

    def validate_schema(
        self, user: Principal, context: str, draft: Schema, *, limit: int = 100, cursor: int = 0
    ) -> Conformance:
        """A dry run: what in the stored graph `draft` would flag, without storing it."""
        limit, cursor = _page(limit, cursor)
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            draft = schema_mod.checked(draft)
            base = schema_mod.load(session, ctx).version
            draft = replace(draft, context=ctx.name, version=base)
            return conformance_check(session, ctx, draft, draft=True, limit=limit, cursor=cursor)

    def audit_schema(
        self, user: Principal, context: str, *, limit: int = 100, cursor: int = 0
    ) -> Conformance:
        """The stored graph against the stored schema (every label undeclared when none is)."""
        limit, cursor = _page(limit, cursor)
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            stored = schema_mod.load(session, ctx)
            return conformance_check(session, ctx, stored, draft=False, limit=limit, cursor=cursor)

    def audit_consolidation(
        self,
        user: Principal,
        context: str,
        *,
        sections: Sequence[str] | None = None,
        limit: int = 100,
        cursor: int = 0,
    ) -> cons.Consolidation:
        """Merge candidates: twins with their shared structure, duplicate claims, aliases."""
        limit, cursor = _page(limit, cursor)
        chosen = _sections(sections, cons.SECTIONS)
        pages: dict[str, cons.Section] = {}
        twins: list[cons.MergeCandidate] = []
        dupes: list[cons.DuplicateClaims] = []
        overlaps: list[cons.AliasOverlap] = []
        reason: str | None = None
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            if "twins" in chosen:
                found, capped = audit_mod.lexical_twins(session, ctx, "concept")
                if self.embedder is None:
                    reason = "no_embedder"
                else:
                    floor = (
                        ctx.semantic_floor
                        if ctx.semantic_floor is not None
                        else gloss_floor(self.settings, self.embedder)
                    )
                    more, cut = audit_mod.semantic_twins(
                        session, ctx, self.embedder, floor, MAX_PAGE
                    )
                    found, capped = found + more, capped or cut
                every = cons.merge_candidates(session, ctx, found)
                twins = every[cursor : cursor + limit]
                pages["twins"] = cons.section(len(every), cursor, len(twins), capped)
            if "duplicates" in chosen:
                dupes, pages["duplicates"] = cons.duplicates(session, ctx, limit, cursor)
            if "aliases" in chosen:
                every_alias = cons.alias_overlaps(session, ctx)
                overlaps = every_alias[cursor : cursor + limit]
                pages["aliases"] = cons.section(len(every_alias), cursor, len(overlaps))
            return cons.Consolidation(
                context=ctx.name,
                twins=twins,
                duplicates=dupes,
                aliases=overlaps,
                sections=pages,
                semantic_reason=reason,
                cursor=cursor,
                limit=limit,
            )

    def audit_drift(
        self,
        user: Principal,
        context: str,
        *,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        sections: Sequence[str] | None = None,
        limit: int = 100,
        cursor: int = 0,
    ) -> drift_mod.Drift:
        """How the context moved in [since, until) (default: the last 30 days)."""
        limit, cursor = _page(limit, cursor)
        chosen = _sections(sections, drift_mod.SECTIONS)
        end = parse_date(until, "until") or datetime.now(UTC)
        start = parse_date(since, "since") or end - timedelta(days=DRIFT_DAYS)
        if start >= end:
            raise InvalidInput("empty window", issues=[Issue("since", "not before until")])
        pages: dict[str, drift_mod.Page] = {}
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            stored = schema_mod.load(session, ctx)
            labels: list[drift_mod.LabelDrift] = []
            moves: list[drift_mod.WeightMove] = []
            gone: list[drift_mod.Retraction] = []
            if "labels" in chosen:
                labels, pages["labels"] = drift_mod.labels(
                    session, ctx, stored, start, end, limit, cursor
                )
            if "weights" in chosen:
                moves, pages["weights"] = drift_mod.weights(session, ctx, start, end, limit, cursor)
            if "retracted" in chosen:
                gone, pages["retracted"] = drift_mod.retracted(
                    session, ctx, start, end, limit, cursor
                )
            return drift_mod.Drift(
                context=ctx.name,
                since=start,
                until=end,
                schema_version=stored.version,
                labels=labels,
                weights=moves,
                retracted=gone,
                pages=pages,
                cursor=cursor,
                limit=limit,
            )

    def audit_unsourced(
        self,
        user: Principal,
        context: str,
        *,
        floor: float = 0.0,
        limit: int = 100,
        cursor: int = 0,
    ) -> unsourced_mod.Unsourced:
        """Taguru's drift audit, the graph against its archive: world edges carrying weight no
        live claim with a named source accounts for (largest |unsourced| first, paged), and the
        aliases whose canonical no longer lives (whole)."""
        limit, cursor = _page(limit, cursor)
        if isinstance(floor, bool) or not isinstance(floor, int | float) or not floor >= 0:
            raise InvalidInput("invalid floor", issues=[Issue("floor", f"{floor!r} is not >= 0")])
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            found, total, after = unsourced_mod.edges(session, ctx, float(floor), limit, cursor)
            return unsourced_mod.Unsourced(
                context=ctx.name,
                edges=found,
                total=total,
                next_cursor=after,
                dead_concept_aliases=unsourced_mod.dead_aliases(session, ctx, "concept"),
                dead_label_aliases=unsourced_mod.dead_aliases(session, ctx, "label"),
            )
