"""The service's recall: the product's main read, and its explain twin.

The asker is the surface's authenticated user, never a field. A preset (or the request) names
the contexts; the relevance gate answers trivial turns with no evidence unless forced; the
question is embedded once, alone (the asking speaker's label is named in the bundle, never
embedded, and never widens what row-level security shows); one statement ranks every lane;
the result is rendered, its trace persisted, and the selected claims' access counters bumped in
a separate short transaction."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tabane.contexts import groups
from tabane.errors import InvalidInput, Issue, NotFound
from tabane.memory import sessions
from tabane.models.registry import default_floor
from tabane.recall import current, kernel, order, overview, render, trace
from tabane.recall import explain as explain_mod
from tabane.recall.gate import gate
from tabane.recall.kernel import TurnWindow
from tabane.recall.plan import RecallRequest, Tunables, caps
from tabane.recall.presets import (
    DEFAULT_PRESET,
    Preset,
    PresetView,
    load_presets,
    no_visible,
    preset_named,
    usable,
    view,
)
from tabane.recall.recall import Outcome, run
from tabane.recall.result import Evidence, Floor, RecallResult, RecallTrace
from tabane.search.search import QueryVector, embed_query
from tabane.service.base import ServiceBase
from tabane.storage.schema import Claim, Context, Group
from tabane.types import Principal, only_context


@dataclass(frozen=True)
class _Prepared:
    preset: Preset
    budget: int
    contexts: tuple[str, ...]
    groups: tuple[str, ...]
    gated: str | None
    qv: QueryVector
    embed_ms: float
    by_preset: frozenset[str] = frozenset()  # "contexts", "groups": the preset's, not the request's

    def reach(self, session: Session) -> list[Context]:
        """The contexts read (groups expanded). Of the preset's names, those the caller can see
        (`presets.usable`: none at all is `no_preset`, naming none of them); one the preset
        names that is gone meanwhile is the preset's fault, and named so, not the request's
        `contexts[0]`."""
        names = {"contexts": self.contexts, "groups": self.groups}
        if self.by_preset:
            shown = view(self.preset, *_visible(session, self.preset))
            if len(self.by_preset) == 2 and not usable(self.preset, shown):
                raise no_visible(self.preset)
            names |= {field: getattr(shown, field) for field in self.by_preset}
        try:
            return groups.expand(session, names["contexts"], names["groups"])
        except NotFound as exc:
            exc.issues = tuple(
                Issue("preset", f"{self.preset.name}: {i.path} {i.problem}")
                if i.path.split("[")[0] in self.by_preset
                else i
                for i in exc.issues
            )
            raise


def _visible(session: Session, preset: Preset) -> tuple[frozenset[str], frozenset[str]]:
    """The contexts and groups `preset` names that the session's caller can see."""
    contexts = select(Context.name).where(Context.name.in_(preset.contexts))
    named = select(Group.name).where(Group.name.in_(preset.groups))
    return frozenset(session.scalars(contexts)), frozenset(session.scalars(named))


def _ages(items: Sequence[Evidence]) -> tuple[str, ...]:
    """How old each served derived summary is: recall serves the last build and never waits."""
    now = datetime.now(UTC)
    return tuple(
        f"{it.key} built {max(0, round((now - it.when).total_seconds()))} s ago"
        for it in items
        if it.kind in ("community", "profile", "raptor") and it.when is not None
    )


def _newest(question: str, outcome: Outcome | None) -> str | None:
    """The word by which the question asks about the present, when that reordered the items it
    serves (current.py `newest_first`): the bundle says so."""
    moved = outcome is not None and any(
        p.newest_first and p.outcome == "served" for p in outcome.placed
    )
    return current.asks_now(question) if moved else None


def _moved(question: str, outcome: Outcome | None, t: Tunables) -> tuple[str, ...]:
    """The trace's note on the newest-first order, when it moved anything."""
    cue = _newest(question, outcome)
    if cue is None or outcome is None:
        return ()
    n = sum(p.newest_first for p in outcome.placed)
    return (
        f'newest first: the question asks about the present ("{cue}"); each holder\'s '
        f"statements among the first {t.now_span} items were ordered newest first ({n} moved)",
    )


def templates(setting: Path | None, presets: Mapping[str, Preset]) -> dict[Path | None, str]:
    """Each template a recall may render with — the setting's, and each preset's — read and
    compiled (a broken one raises `template_error`, naming the file and line)."""
    paths = {setting, *(p.template for p in presets.values() if p.template is not None)}
    return {path: render.load_template(path) for path in paths}


class RecallService(ServiceBase):
    @cached_property
    def recall_presets(self) -> dict[str, Preset]:
        """The presets file's presets: `Tabane.open` loads them at start-up (a bad file stops the
        start); a service built otherwise loads them on first use."""
        return load_presets(self.settings.presets)

    @cached_property
    def recall_templates(self) -> dict[Path | None, str]:
        """The template texts recall renders with, by file (None: the default), read once:
        `Tabane.open` reads them at start-up with the presets."""
        return templates(self.settings.recall_template, self.recall_presets)

    def presets(self, user: Principal) -> list[PresetView]:
        """The presets by name, each naming only the contexts and groups `user` can see."""
        with self.store.session(user) as session:
            seen = frozenset(session.scalars(select(Context.name)))
            groups = frozenset(session.scalars(select(Group.name)))
        shown = [(p, view(p, seen, groups)) for _, p in sorted(self.recall_presets.items())]
        return [v for p, v in shown if usable(p, v)]

    def _preset(self, request: RecallRequest) -> Preset:
        return preset_named(self.recall_presets, request.preset or DEFAULT_PRESET)

    def _query_vector(self, request: RecallRequest) -> QueryVector:
        # The question alone: prefixing the asker's label ("Ravi: …") pulled short turns that
        # carry that name above the evidence (memory dev set recall@10 0.642 → 0.698 without
        # it, docs/journal/eval.md); the speaker is named to the reader in the bundle instead.
        return embed_query(self.embedder, request.question)

    def _prepare(self, request: RecallRequest) -> _Prepared:
        """What recall and its explain twin share before the read: the preset, the budget, the
        contexts named, the gate's verdict and the question's embedding (once)."""
        request.check()
        preset = self._preset(request)
        names = (request.contexts or preset.contexts, request.groups or preset.groups)
        if not names[0] and not names[1]:
            raise InvalidInput(
                "name at least one context or group (or a preset that does)",
                issues=[Issue("contexts", "empty, and the preset names none")],
            )
        gated = gate(request.question) if preset.gate and not request.force else None
        started = time.perf_counter()
        qv = (
            self._query_vector(request) if gated is None else QueryVector(None, None, None, "gated")
        )
        return _Prepared(
            preset=preset,
            budget=request.budget or preset.budget or self.settings.recall_budget,
            contexts=names[0],
            groups=names[1],
            gated=gated,
            qv=qv,
            embed_ms=round((time.perf_counter() - started) * 1000, 3),
            by_preset=frozenset(
                name
                for name, given in (("contexts", request.contexts), ("groups", request.groups))
                if not given
            ),
        )

    def recall(
        self, user: Principal, request: RecallRequest, *, tunables: Tunables | None = None
    ) -> RecallResult:
        """The evidence for `request.question` that `user` may see, budgeted, cited, rendered."""
        started = time.perf_counter()
        ready = self._prepare(request)
        # recall's settings in the transaction's first round trip (none for a gated turn)
        settings = kernel.SETTINGS if ready.gated is None else None
        with self.store.session(user, settings=settings) as session:
            reached = ready.reach(session)
            window = self._window(session, user, request)
            floors = [self._floor(request, ctx.semantic_floor) for ctx in reached]
            outcome: Outcome | None = None
            if ready.gated is None:
                outcome = run(
                    session,
                    request.question,
                    reached,
                    [f.value for f in floors],
                    ready.qv,
                    window,
                    reranker=self.reranker,
                    budget=ready.budget,
                    chars_per_token=self.settings.chars_per_token,
                    plan=request.plan,
                    tunables=tunables,
                    beside=self.store.beside(user),
                )
            block = (
                overview.corpus_map(session, [c.id for c in reached], ready.preset.overview_chars)
                if ready.preset.overview and ready.gated is None  # a trivial turn: no evidence
                else None
            )
        items = order.served(outcome.placed) if outcome else []
        rendered = self._render(request, ready, items, outcome, block)
        timings = {"embed": ready.embed_ms, **(outcome.timings_ms if outcome else {})}
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        result_trace = RecallTrace(
            plan=request.plan,
            contexts=tuple(c.name for c in reached),
            lanes=outcome.gathered.lanes if outcome else {},
            seeds=outcome.gathered.seeds if outcome else (),
            gate=ready.gated,
            reranker=getattr(self.reranker, "name", "none"),
            budget_tokens=ready.budget,
            used_tokens=outcome.used_tokens if outcome else 0,
            chars_per_token=self.settings.chars_per_token,
            timings_ms=timings,
            candidates=order.traces(outcome.placed, outcome.found) if outcome else (),
            notes=(outcome.gathered.notes + outcome.notes if outcome else ())
            + _moved(request.question, outcome, tunables or Tunables())
            + _ages(items),
            floors={c.name: f for c, f in zip(reached, floors, strict=True)},
            caps=caps(tunables or Tunables()),
        )
        result_trace = replace(result_trace, id=self._record(user, request, result_trace, items))
        return RecallResult(request.question, tuple(items), rendered, result_trace, block)

    def _render(
        self,
        request: RecallRequest,
        ready: _Prepared,
        items: Sequence[Evidence],
        outcome: Outcome | None,
        block: str | None = None,
    ) -> str:
        """The bundle as the request's template writes it (recall's, and explain's check)."""
        template_file = ready.preset.template or self.settings.recall_template
        return render.render(
            request.question,
            items,
            overview=block,
            asker=request.speaker,
            template=self.recall_templates[template_file],
            cut=sum(p.outcome == "cut_by_budget" for p in outcome.placed) if outcome else 0,
            budget=ready.budget,
            name=template_file.name if template_file else None,
            gated=ready.gated,
            newest_first=_newest(request.question, outcome),
        )

    def _floor(self, request: RecallRequest, context_floor: float | None) -> Floor:
        if request.semantic_floor is not None:
            return Floor(request.semantic_floor, "request")
        if context_floor is not None:
            return Floor(context_floor, "context")
        return Floor(default_floor(self.settings, self.embedder), "default")

    def _window(
        self, session: Session, user: Principal, request: RecallRequest
    ) -> TurnWindow | None:
        if request.session is None:
            return None
        chat = sessions.find(session, user, sessions.check_session_name(request.session))
        return TurnWindow(
            chat.id, chat.name, self.settings.session_turns, self.settings.session_hours
        )

    def _record(
        self, user: Principal, request: RecallRequest, t: RecallTrace, items: Sequence[Evidence]
    ) -> int | None:
        """Persist the trace and bump the served claims' access counters (a short transaction
        of its own: a read's by-products never hold the read's snapshot open)."""
        claim_ids = [int(it.key[2:]) for it in items if it.kind == "claim"]
        with self.store.session(user) as session:
            trace_id = trace.save_trace(session, user, request.question, t)
            if claim_ids:
                session.execute(
                    update(Claim)
                    .where(Claim.id.in_(claim_ids))
                    .values(access_count=Claim.access_count + 1, last_access=func.now())
                )
        return trace_id

    def recall_traces(self, user: Principal, limit: int = 20) -> list[dict[str, object]]:
        """Your newest recall traces, without their bodies (id, question, plan, when)."""
        with self.store.session(user) as session:
            return trace.recent_traces(session, limit, user_id=user.user_id)

    def recall_trace(self, user: Principal, trace_id: int) -> dict[str, object]:
        """One of your own recall traces (another user's is `no_trace`, whatever you can read)."""
        with self.store.session(user) as session:
            return trace.load_trace(session, trace_id, asker=user.user_id)

    def explain_recall(
        self,
        user: Principal,
        request: RecallRequest,
        expected: explain_mod.Expected,
        *,
        tunables: Tunables | None = None,
    ) -> explain_mod.Explanation:
        """Why `expected` is or is not in the evidence of `request`: the first verdict that
        applies, from the same statement, ordering and budget as `recall` (with the same
        `tunables`)."""
        ready = self._prepare(request)
        if expected.source is not None and expected.context is None:  # the one context read,
            one = only_context(ready.contexts, ready.groups)  # a preset's included
            expected = replace(expected, context=one)
        expected.check()  # before the store is read: a bad item is the input's fault

        def rendered(outcome: Outcome) -> str:  # as recall writes it (a broken template raises)
            return self._render(request, ready, order.served(outcome.placed), outcome)

        with self.store.session(user) as session:
            reached = ready.reach(session)
            window = self._window(session, user, request)
            floors = [self._floor(request, ctx.semantic_floor).value for ctx in reached]
            return explain_mod.explain(
                session,
                request.question,
                reached,
                floors,
                ready.qv,
                window,
                expected,
                gated=ready.gated,
                reranker=self.reranker,
                budget=ready.budget,
                chars_per_token=self.settings.chars_per_token,
                plan=request.plan,
                tunables=tunables,
                rendered=rendered,
            )
