"""The service's resolve operations: resolve, resolve_label, their explain twins, the audit."""

from __future__ import annotations

from tabane.contexts import contexts
from tabane.errors import InvalidInput, Issue
from tabane.graph import audit as audit_mod
from tabane.graph.resolve import calibrate as resolve_calibrate
from tabane.graph.resolve import explain as resolve_explain
from tabane.graph.resolve import resolver as res
from tabane.graph.resolve.explain import ResolveExplanation
from tabane.graph.resolve.resolver import Request, Resolution
from tabane.graph.vocabulary import Kind, check_kind
from tabane.models.registry import gloss_floor
from tabane.principal import Principal
from tabane.service.base import ServiceBase

MAX_AUDIT = 1000


class ResolveService(ServiceBase):
    def resolve(
        self,
        user: Principal,
        context: str,
        cue: str,
        *,
        kind: Kind = "concept",
        limit: int = 10,
        dice_floor: float | None = None,
        semantic_floor: float | None = None,
        count_usage: bool = True,
    ) -> Resolution:
        """Stored spellings for `cue`: the lexical tier (exact, alias, containment, fuzzy) and,
        when that is weak, the semantic tier over the glosses of its kind — two lists, never
        merged."""
        request = Request(cue, kind, limit, dice_floor, semantic_floor)
        request.check()
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            result = res.resolve(
                session,
                ctx,
                request,
                embedder=self.embedder,
                default_semantic_floor=gloss_floor(self.settings, self.embedder),
            )
            if count_usage:
                found = bool(result.candidates or result.semantic)
                contexts.bump(session, ctx.id, reads=1, misses=0 if found else 1)
            return result

    def resolve_label(
        self,
        user: Principal,
        context: str,
        cue: str,
        *,
        limit: int = 10,
        dice_floor: float | None = None,
        semantic_floor: float | None = None,
    ) -> Resolution:
        """`resolve` over the label vocabulary (its glosses: the label's heaviest uses)."""
        return self.resolve(
            user,
            context,
            cue,
            kind="label",
            limit=limit,
            dice_floor=dice_floor,
            semantic_floor=semantic_floor,
        )

    def explain_resolve(
        self,
        user: Principal,
        context: str,
        cue: str,
        expected: str,
        *,
        kind: Kind = "concept",
        limit: int = 10,
        dice_floor: float | None = None,
        semantic_floor: float | None = None,
    ) -> ResolveExplanation:
        """Why `expected` is or is not among resolve's candidates for `cue`: the first verdict
        that applies, computed by resolve's own scoring code."""
        request = Request(cue, kind, limit, dice_floor, semantic_floor)
        request.check()

        def rerun(again: Request) -> Resolution:
            return self.resolve(
                user,
                context,
                again.cue,
                kind=again.kind,
                limit=again.limit,
                dice_floor=again.dice_floor,
                semantic_floor=again.semantic_floor,
                count_usage=False,
            )

        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return resolve_explain.explain(
                session,
                ctx,
                request,
                expected,
                embedder=self.embedder,
                default_semantic_floor=gloss_floor(self.settings, self.embedder),
                rerun=rerun,
            )

    def calibrate_resolve(self, user: Principal, context: str) -> resolve_calibrate.Calibration:
        """A semantic floor for resolve proposed from the context's own concepts (each described
        by its facts without its name): the two cosine bands, the verdict and the floor."""
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return resolve_calibrate.calibrate(session, ctx, self.embedder)

    def audit_vocabulary(
        self, user: Principal, context: str, *, kind: Kind | None = None, limit: int = 100
    ) -> audit_mod.Audit:
        """Lexical and semantic twin candidates of the context's vocabulary."""
        if kind is not None:
            check_kind(kind)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_AUDIT:
            raise InvalidInput(
                "invalid audit request", issues=[Issue("limit", f"{limit!r} not in 1..{MAX_AUDIT}")]
            )
        kinds: tuple[Kind, ...] = (kind,) if kind else ("concept", "label")
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            lexical: list[audit_mod.Twin] = []
            capped = False
            for k in kinds:
                twins, cut = audit_mod.lexical_twins(session, ctx, k)
                lexical += twins
                capped = capped or cut
            lexical.sort(key=lambda t: (-t.score, t.kind, t.a, t.b))
            floor = (
                ctx.semantic_floor
                if ctx.semantic_floor is not None
                else gloss_floor(self.settings, self.embedder)
            )
            semantic: list[audit_mod.Twin] = []
            reason: str | None = None
            if self.embedder is None:
                reason = "no_embedder"
            else:
                for k in kinds:
                    twins, cut = audit_mod.semantic_twins(
                        session, ctx, self.embedder, floor, limit, k
                    )
                    semantic += twins
                    capped = capped or cut
                semantic.sort(key=lambda t: (-t.score, t.kind, t.a, t.b))
                capped = capped or len(semantic) > limit
                semantic = semantic[:limit]
            return audit_mod.Audit(
                context=ctx.name,
                lexical=lexical[:limit],
                semantic=semantic,
                lexical_floor=audit_mod.LEXICAL_TWIN,
                semantic_floor=floor,
                semantic_reason=reason,
                capped=capped or len(lexical) > limit,
                limit=limit,
            )
