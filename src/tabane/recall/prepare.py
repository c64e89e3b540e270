"""What a recall and its explain twin settle before and at the start of the read: the preset, the
budget, the contexts named, the relevance gate's verdict and the question's embedding (`prepare`,
once, before any transaction), then in the read transaction the contexts reached, each one's
semantic floor and the session window (`Prepared.reach`, `floor`, `window`).

`Setup` is what every recall of one service runs with (settings, models, presets, templates);
the service builds it and opens the transactions (pipeline.py runs the steps)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.config import Settings
from tabane.contexts import groups
from tabane.errors import InvalidInput, Issue, NotFound, TabaneError
from tabane.memory import sessions
from tabane.models.embedder import Embedder, Vectors, checked
from tabane.models.registry import default_floor
from tabane.models.reranker import Reranker
from tabane.principal import Principal
from tabane.recall import followup, render
from tabane.recall.gate import gate
from tabane.recall.gather import TurnWindow
from tabane.recall.plan import RecallRequest
from tabane.recall.presets import (
    DEFAULT_PRESET,
    Preset,
    PresetView,
    no_visible,
    preset_named,
    usable,
    view,
)
from tabane.recall.result import Floor
from tabane.search.search import QueryVector, embed_query
from tabane.storage.schema import Context, Group


@dataclass(frozen=True)
class Setup:
    """What every recall of a service runs with: its settings, models, presets and templates
    (by file; None: the default template), each read once."""

    settings: Settings
    embedder: Embedder | None
    reranker: Reranker | None
    presets: Mapping[str, Preset]
    templates: Mapping[Path | None, str]

    def floor(self, request: RecallRequest, context_floor: float | None) -> Floor:
        """A context's semantic floor: the request's, else the context's, else the model's."""
        if request.semantic_floor is not None:
            return Floor(request.semantic_floor, "request")
        if context_floor is not None:
            return Floor(context_floor, "context")
        return Floor(default_floor(self.settings, self.embedder), "default")

    def embed(self, text: str) -> Vectors | None:
        """`text` embedded as a query, or None (no embedder, or one that failed: the caller
        goes on without the vector, as recall does without the question's)."""
        return embed_query(self.embedder, text).vector

    def embed_texts(self, texts: Sequence[str]) -> Vectors | None:
        """`texts` embedded as documents in one call, unit rows, or None (no embedder, or one
        that failed: the caller goes on without them)."""
        if self.embedder is None:
            return None
        try:
            return checked(
                self.embedder.embed_documents(list(texts)), len(texts), self.embedder.dim
            )
        except TabaneError:
            return None

    def window(
        self, session: Session, user: Principal, request: RecallRequest
    ) -> TurnWindow | None:
        """The asker's session whose recent turns recall reads (None: no session named)."""
        if request.session is None:
            return None
        chat = sessions.find(session, user, sessions.check_session_name(request.session))
        return TurnWindow(
            chat.id, chat.name, self.settings.session_turns, self.settings.session_hours
        )


def templates(setting: Path | None, presets: Mapping[str, Preset]) -> dict[Path | None, str]:
    """Each template a recall may render with — the setting's, and each preset's — read and
    compiled (a broken one raises `template_error`, naming the file and line)."""
    paths = {setting, *(p.template for p in presets.values() if p.template is not None)}
    return {path: render.load_template(path) for path in paths}


@dataclass(frozen=True)
class Prepared:
    preset: Preset
    budget: int
    contexts: tuple[str, ...]
    groups: tuple[str, ...]
    gated: str | None
    qv: QueryVector
    embed_ms: float
    by_preset: frozenset[str] = frozenset()  # "contexts", "groups": the preset's, not the request's
    followed: str | None = None  # the turn a follow-up was embedded after (recall/followup.py)

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


def prepare(setup: Setup, request: RecallRequest, before: str | None = None) -> Prepared:
    """What recall and its explain twin share before the read: the preset, the budget, the
    contexts named, the gate's verdict and the question's embedding (once) — a follow-up's after
    the turn `before` it (recall/followup.py)."""
    request.check()
    preset = preset_named(setup.presets, request.preset or DEFAULT_PRESET)
    names = (request.contexts or preset.contexts, request.groups or preset.groups)
    if not names[0] and not names[1]:
        raise InvalidInput(
            "name at least one context or group (or a preset that does)",
            issues=[Issue("contexts", "empty, and the preset names none")],
        )
    gated = gate(request.question) if preset.gate and not request.force else None
    started = time.perf_counter()
    # The question alone: prefixing the asker's label ("Ravi: …") pulled short turns that carry
    # that name above the evidence (memory dev set recall@10 0.642 → 0.698 without it,
    # docs/journal/eval.md); the speaker is named to the reader in the rendered bundle instead.
    qv = (
        embed_query(setup.embedder, followup.read_as(request.question, before))
        if gated is None
        else QueryVector(None, None, None, "gated")
    )
    return Prepared(
        preset=preset,
        budget=request.budget or preset.budget or setup.settings.recall_budget,
        contexts=names[0],
        groups=names[1],
        gated=gated,
        qv=qv,
        embed_ms=round((time.perf_counter() - started) * 1000, 3),
        followed=before if gated is None and followup.follows(request.question) else None,
        by_preset=frozenset(
            name
            for name, given in (("contexts", request.contexts), ("groups", request.groups))
            if not given
        ),
    )


def shown_presets(session: Session, presets: Mapping[str, Preset]) -> list[PresetView]:
    """The presets by name, each naming only the contexts and groups the session's caller can
    see (a preset naming none of them is left out)."""
    seen = frozenset(session.scalars(select(Context.name)))
    named = frozenset(session.scalars(select(Group.name)))
    shown = [(p, view(p, seen, named)) for _, p in sorted(presets.items())]
    return [v for p, v in shown if usable(p, v)]


def _visible(session: Session, preset: Preset) -> tuple[frozenset[str], frozenset[str]]:
    """The contexts and groups `preset` names that the session's caller can see (a list the
    preset leaves empty is not looked up: no round trip for it on every recall)."""
    contexts = select(Context.name).where(Context.name.in_(preset.contexts))
    named = select(Group.name).where(Group.name.in_(preset.groups))
    return (
        frozenset(session.scalars(contexts)) if preset.contexts else frozenset(),
        frozenset(session.scalars(named)) if preset.groups else frozenset(),
    )
