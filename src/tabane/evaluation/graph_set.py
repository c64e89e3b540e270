"""The graph evaluation set (shared/eval/dev/graph.json): reading it and loading it into a store.

Each context's passages become sources (Markdown, split into paragraphs by the normal ingest),
each association a world claim attributed to its source and to the first paragraph that names both
ends (or one of their aliases), each alias an entry-only alias.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabane.errors import InvalidInput, Issue
from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.text.tokenize import normalize

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class GraphQuestion:
    id: str
    context: str
    question: str
    cues: tuple[str, ...]
    resolves_to: Mapping[str, str]
    needed: tuple[Triple, ...]
    distractors: tuple[Triple, ...]
    hops: int
    kind: str


@dataclass(frozen=True)
class GraphContext:
    name: str
    description: str
    associations: tuple[Mapping[str, Any], ...]
    aliases: Mapping[str, str]
    passages: Mapping[str, str]

    def weight(self, triple: Triple) -> float:
        for a in self.associations:
            if (a["subject"], a["label"], a["object"]) == triple:
                return float(a["weight"])
        raise KeyError(triple)


@dataclass(frozen=True)
class GraphSet:
    contexts: tuple[GraphContext, ...]
    questions: tuple[GraphQuestion, ...]

    def context(self, name: str) -> GraphContext:
        return next(c for c in self.contexts if c.name == name)


def load(path: Path) -> GraphSet:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        contexts = tuple(
            GraphContext(
                name=c["name"],
                description=c.get("description", ""),
                associations=tuple(c["associations"]),
                aliases=dict(c.get("aliases", {})),
                passages=dict(c["passages"]),
            )
            for c in raw["contexts"]
        )
        questions = tuple(
            GraphQuestion(
                id=q["id"],
                context=q["context"],
                question=q["question"],
                cues=tuple(q["cue_spellings"]),
                resolves_to=dict(q["resolves_to"]),
                needed=tuple(tuple(t) for t in q["needed"]),
                distractors=tuple(tuple(t) for t in q.get("distractors", ())),
                hops=int(q["hops"]),
                kind=q["kind"],
            )
            for q in raw["questions"]
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(
            f"{path} is not a graph evaluation set", issues=[Issue("set", str(exc))]
        ) from None
    if not questions:
        raise InvalidInput(f"{path} holds no questions", issues=[Issue("questions", "empty")])
    issues = [*_bad_associations(contexts), *_bad_questions(contexts, questions)]
    if issues:
        raise InvalidInput(f"{path} is not a consistent graph evaluation set", issues=issues)
    return GraphSet(contexts, questions)


def _bad_associations(contexts: Sequence[GraphContext]) -> list[Issue]:
    """Each association needs its three names and source as text and a finite weight."""
    issues: list[Issue] = []
    for k, gc in enumerate(contexts):
        for m, a in enumerate(gc.associations):
            where = f"contexts[{k}].associations[{m}]"
            if not isinstance(a, Mapping):
                issues.append(Issue(where, "not an object"))
                continue
            for key in ("subject", "label", "object", "source"):
                if not isinstance(a.get(key), str):
                    issues.append(Issue(f"{where}.{key}", "missing or not a string"))
            weight = a.get("weight")
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                issues.append(Issue(f"{where}.weight", f"{weight!r} is not a number"))
            elif not math.isfinite(weight):
                issues.append(Issue(f"{where}.weight", f"{weight!r} is not finite"))
    return issues


def _bad_questions(
    contexts: Sequence[GraphContext], questions: Sequence[GraphQuestion]
) -> list[Issue]:
    """A question must name a context of the set, a target for each cue, and needed triples
    that its context asserts: else it could only be scored as a miss, or not at all."""
    asserted = {
        gc.name: {
            (a.get("subject"), a.get("label"), a.get("object"))
            for a in gc.associations
            if isinstance(a, Mapping)
        }
        for gc in contexts
    }
    issues: list[Issue] = []
    for i, q in enumerate(questions):
        where = f"questions[{i}]"
        for cue in q.cues:
            if cue not in q.resolves_to:
                issues.append(Issue(f"{where}.resolves_to", f"{q.id}: no target for cue {cue!r}"))
        if q.context not in asserted:
            known = ", ".join(sorted(asserted))
            issues.append(
                Issue(f"{where}.context", f"{q.id}: no context {q.context!r}; known: {known}")
            )
            continue
        for j, t in enumerate(q.needed):
            if t not in asserted[q.context]:
                issues.append(
                    Issue(
                        f"{where}.needed[{j}]",
                        f"{q.id}: {list(t)} is not an association of {q.context!r}",
                    )
                )
    return issues


def install(svc: Tabane, user: Principal, gc: GraphContext, name: str) -> dict[str, int]:
    """Load one context of the set into the context `name` (created empty; an existing one is
    replaced, so a rerun never doubles weights). Returns counts."""
    if name in {c.name for c in svc.list_contexts(user)}:
        svc.delete_context(user, name)
    svc.create_context(user, name, description=gc.description)
    paragraphs: dict[str, list[str]] = {}
    for source_id, text in sorted(gc.passages.items()):
        svc.ingest(
            user,
            name,
            DocumentInput(source_id=source_id, data=text.encode(), format="markdown"),
        )
        _, views = svc.lookup(user, name, source_id)
        paragraphs[source_id] = [v.text for v in views]
    spellings = _spellings(gc.aliases)
    claims = []
    for a in gc.associations:
        where = attribute(paragraphs.get(a["source"], []), a["subject"], a["object"], spellings)
        claims.append(
            {
                "subject": a["subject"],
                "label": a["label"],
                "object": a["object"],
                "weight": a["weight"],
                "source": a["source"],
                **({"paragraph": where} if where is not None else {}),
            }
        )
    svc.add_claims(user, name, parse_claims(claims))
    for alias, target in sorted(gc.aliases.items()):
        svc.add_alias(user, name, alias, target)
    return {
        "sources": len(gc.passages),
        "associations": len(gc.associations),
        "aliases": len(gc.aliases),
    }


def _spellings(aliases: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for alias, target in aliases.items():
        out.setdefault(target, []).append(alias)
    return out


def attribute(
    paragraphs: Sequence[str], subject: str, obj: str, spellings: Mapping[str, list[str]]
) -> int | None:
    """The first paragraph naming both ends (by any spelling), else the first naming one."""

    def names(text: str, concept: str) -> bool:
        folded = normalize(text)
        return any(normalize(s) in folded for s in (concept, *spellings.get(concept, ())))

    for i, text in enumerate(paragraphs):
        if names(text, subject) and names(text, obj):
            return i
    for i, text in enumerate(paragraphs):
        if names(text, subject) or names(text, obj):
            return i
    return None
