"""The service's recall: the product's main read, and its explain twin.

The asker is the surface's authenticated user, never a field. The steps are recall's pipeline
(recall/pipeline.py: prepare, read, finish, record); this component opens the transactions —
the read under the asker's row-level security with recall's settings in its first round trip,
then a short one for the trace and the claims' access counters — and calls them."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from tabane.errors import InvalidInput, Issue, LimitExceeded
from tabane.principal import Principal
from tabane.recall import explain as explain_mod
from tabane.recall import followup, package, pipeline, trace, verify
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.prepare import Setup, prepare, shown_presets, templates
from tabane.recall.presets import Preset, PresetView, load_presets
from tabane.recall.result import RecallResult
from tabane.service.base import Core, ServiceBase
from tabane.service.resolve import ResolveService


class RecallService(ServiceBase):
    def __init__(
        self,
        core: Core,
        presets: dict[str, Preset] | None = None,
        texts: dict[Path | None, str] | None = None,
    ) -> None:
        """`presets` and `texts` (the templates by file) as `Tabane.open` read them at start-up
        (a bad file stops the start); when not given, read at the first recall."""
        super().__init__(core)
        self._presets = presets
        self._texts = texts

    def _setup(self) -> Setup:
        if self._presets is None:
            self._presets = load_presets(self.settings.presets)
        if self._texts is None:
            self._texts = templates(self.settings.recall_template, self._presets)
        return Setup(self.settings, self.embedder, self.reranker, self._presets, self._texts)

    def _before(self, user: Principal, request: RecallRequest) -> str | None:
        """The turn a follow-up question continues (recall/followup.py; None for any other)."""
        if request.session is None or not followup.follows(request.question):
            return None  # no transaction for a question that names its own topic
        request.check()
        with self.store.session(user) as session:
            return followup.before(session, user, request, self.settings.session_hours)

    def _tunables(self) -> Tunables:
        """Recall's defaults with the settings that tune it: the second opinion's weight
        (`TABANE_RECALL_SECOND_OPINION`, recall/second_opinion.py)."""
        return Tunables(second_opinion=self.settings.recall_second_opinion)

    def presets(self, user: Principal) -> list[PresetView]:
        """The presets by name, each naming only the contexts and groups `user` can see."""
        setup = self._setup()
        with self.store.session(user) as session:
            return shown_presets(session, setup.presets)

    def recall(
        self, user: Principal, request: RecallRequest, *, tunables: Tunables | None = None
    ) -> RecallResult:
        """The evidence for `request.question` that `user` may see, budgeted, cited, rendered."""
        started = time.perf_counter()
        setup, tunables = self._setup(), tunables or self._tunables()
        ready = prepare(setup, request, self._before(user, request))
        with self.store.session(user, settings=pipeline.settings(ready)) as session:
            found = pipeline.read(
                session,
                setup,
                user,
                request,
                ready,
                tunables=tunables,
                beside=self.store.beside(user),
            )
        result = pipeline.finish(setup, request, ready, found, tunables=tunables, started=started)
        with self.store.session(user, settings=pipeline.RECORD_SETTINGS) as session:
            return pipeline.record(session, user, result)

    def assemble_evidence(self, user: Principal, request: RecallRequest) -> package.EvidencePackage:
        """One recall's bundle as data (Taguru's `assemble_evidence`): each served item in the
        rendered order with the lanes that found it, the budget and what it cut."""
        return package.package(self.recall(user, request))

    def retrieve(
        self,
        user: Principal,
        context: str,
        origins: list[str],
        request: RecallRequest,
        *,
        auto_pick: bool = True,
        resolve_limit: int = 5,
    ) -> package.Retrieval:
        """Taguru's `retrieve` over recall: each origin resolved in `context` (its best
        candidate is its anchor), then one recall of `context` whose question is the anchors
        (the walk starts there) and `request.question` when given; its items by kind."""
        _check_origins(origins)
        resolver = ResolveService(self.core)
        resolved = {
            origin: resolver.resolve(user, context, origin, limit=resolve_limit)
            for origin in dict.fromkeys(origins)
        }
        anchors = tuple(package.anchor(o, r, auto_pick) for o, r in resolved.items())
        asked = replace(
            request,
            question=package.retrieval_question(anchors, request.question or None),
            contexts=(context,),
            groups=(),
        )
        return package.split(context, anchors, resolved, self.assemble_evidence(user, asked))

    def recall_traces(self, user: Principal, limit: int = 20) -> list[dict[str, object]]:
        """Your newest recall traces, without their bodies (id, question, plan, when)."""
        with self.store.session(user) as session:
            return trace.recent_traces(session, limit, user_id=user.user_id)

    def recall_trace(self, user: Principal, trace_id: int) -> dict[str, object]:
        """One of your own recall traces (another user's is `no_trace`, whatever you can read)."""
        with self.store.session(user) as session:
            return trace.load_trace(session, trace_id, asker=user.user_id)

    def verify_citations(self, user: Principal, recall_id: int, answer: str) -> verify.Verification:
        """An answer's citations and quotes checked against one of your recalls (recall/verify.py);
        another user's recall is `no_trace`, as an unknown one."""
        with self.store.session(user) as session:
            stored = trace.load_trace(session, recall_id, asker=user.user_id)
            return verify.verify(session, stored, answer)

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
        setup, tunables = self._setup(), tunables or self._tunables()
        ready = prepare(setup, request, self._before(user, request))
        expected = explain_mod.expected_item(ready, expected)
        with self.store.session(user) as session:
            return explain_mod.explain_request(
                session, setup, user, request, ready, expected, tunables=tunables
            )


def _check_origins(origins: list[str]) -> None:
    if not origins:
        raise InvalidInput("no origins", issues=[Issue("origins", "empty: name at least one")])
    if len(origins) > package.MAX_ORIGINS:
        raise LimitExceeded(
            f"{len(origins)} origins", issues=[Issue("origins", f"at most {package.MAX_ORIGINS}")]
        )
    for i, origin in enumerate(origins):
        if not isinstance(origin, str) or not origin.strip():
            raise InvalidInput("an empty origin", issues=[Issue(f"origins[{i}]", "empty")])
