"""`tabane demo`: start the embedded store, ingest the sample corpus, show what was stored, and
end with a recall over it (the rendered, cited evidence bundle)."""

from __future__ import annotations

import time
from collections.abc import Callable

from tabane.errors import NameTaken
from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.samples import sample_files
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

DEMO_CONTEXT = "tabane-demo"


def run(svc: Tabane, user: Principal, say: Callable[[str], None], started: float) -> None:
    say(f"store ready in {time.monotonic() - started:.2f}s (home: {svc.settings.home})")
    try:
        svc.create_context(
            user, DEMO_CONTEXT, description="the sample corpus that ships with tabane"
        )
        say(f"created context {DEMO_CONTEXT!r}")
    except NameTaken:
        say(f"context {DEMO_CONTEXT!r} exists")
    for name, data in sample_files():
        result = svc.ingest(user, DEMO_CONTEXT, DocumentInput(source_id=name, data=data))
        verb = "skipped (unchanged)" if result.outcome == "unchanged" else result.outcome
        say(f"  {name}: {verb}, {result.paragraphs} paragraphs")
    say("")
    say("contexts:")
    for c in svc.list_contexts(user):
        say(
            f"  {c.name}: {c.stats.sources} sources, {c.stats.paragraphs} paragraphs, "
            f"{c.stats.sections} sections; scopes {list(c.scopes)}"
        )
    say("sources:")
    page = svc.list_sources(user, DEMO_CONTEXT)
    for s in page.sources:
        say(f"  {s.source_id} [{s.format}] {s.title!r}: {s.paragraphs} paragraphs")
    first = page.sources[0]
    citation = svc.cite(user, DEMO_CONTEXT, first.source_id, min(1, first.paragraphs - 1))
    say("citation:")
    say(f"  ({citation.source_id}, paragraph {citation.paragraph}) {citation.title!r}")
    say(f"  section: {' > '.join(citation.section) or '-'}; locator: {citation.locator}")
    say(f"  {citation.text[:200]}")
    left = svc.wait_for_jobs(timeout=300, contexts=(DEMO_CONTEXT,))  # its own, no other's
    say(f"embeddings: {'done' if not left else f'{left} jobs still queued'}")
    query = "A context keeps one meaning for each spelling."
    found = svc.search(user, SearchRequest(query, contexts=(DEMO_CONTEXT,), limit=3))
    say(f"search: {query!r}")
    for hit in found.hits:
        lanes = ", ".join(f"{n} #{lr.rank}" for n, lr in hit.lanes.items())
        say(f"  {hit.rank}. ({hit.source_id}, {hit.paragraph}) [{lanes}] {hit.text[:80]!r}")
    for plan in found.plan.contexts:
        for name, lane in plan.lanes.items():
            why = f"ran, {lane.hits} hits" if lane.ran else f"did not run: {lane.reason}"
            floor = f", floor {lane.floor}" if lane.floor is not None else ""
            say(f"  plan {plan.context} {name}: {why}{floor}")
    graph(svc, user, say)
    ctx = svc.get_context(user, DEMO_CONTEXT)
    say(f"usage of {DEMO_CONTEXT}: {ctx.usage.reads} reads, {ctx.usage.writes} writes")
    recall(svc, user, say)


RECALL_QUESTION = "How deep can groups nest?"


def recall(svc: Tabane, user: Principal, say: Callable[[str], None]) -> None:
    """The product's main read over the sample corpus: the rendered, cited evidence bundle."""
    result = svc.recall(user, RecallRequest(RECALL_QUESTION, contexts=(DEMO_CONTEXT,)))
    t = result.trace
    ran = [name for name, lane in t.lanes.items() if lane.ran]
    say("")
    say(
        f"recall {RECALL_QUESTION!r}: {len(result.items)} items, {t.used_tokens} of "
        f"{t.budget_tokens} tokens, lanes ran: {', '.join(ran) or '-'}; trace {t.id}"
    )
    say(result.rendered)


# The skeleton of contexts-and-scopes.md: (subject, label, object, words of the paragraph).
SKELETON = (
    ("context", "holds", "source", "A context holds sources"),
    ("group", "bundles", "context", "A group is a named bundle of contexts"),
    ("scope", "narrows", "visibility", "each extra scope narrows who can see it"),
    ("group", "contains", "group cycle", "but never in a cycle"),
)
GRAPH_SOURCE = "contexts-and-scopes.md"


def graph(svc: Tabane, user: Principal, say: Callable[[str], None]) -> None:
    """Write the sample's skeleton as claims attributed to their paragraphs (once), then resolve
    a misspelt cue, read the edges touching it and cite one of them."""
    _, paragraphs = svc.lookup(user, DEMO_CONTEXT, GRAPH_SOURCE)
    fresh = []
    for subject, label, obj, words in SKELETON:
        where = next(p.index for p in paragraphs if words in " ".join(p.text.split()))
        if not svc.query(user, contexts=[DEMO_CONTEXT], subject=subject, label=label,
                         object=obj).edges:  # fmt: skip
            weight = -1.0 if label == "contains" else 1.0  # a group never contains a cycle
            fresh.append({"subject": subject, "label": label, "object": obj, "weight": weight,
                          "source": GRAPH_SOURCE, "paragraph": where})  # fmt: skip
    if fresh:
        report = svc.add_claims(user, DEMO_CONTEXT, parse_claims(fresh))
        say(f"graph: wrote {len(report.claims)} claims, minted {list(report.minted_concepts)}")
    else:
        say("graph: claims already written")
    cue = "Contxt"
    resolved = svc.resolve(user, DEMO_CONTEXT, cue, limit=3)
    best = resolved.candidates[0] if resolved.candidates else None
    say(f"resolve {cue!r}: " + (f"{best.name} ({best.kind} {best.score:.2f})" if best else "-"))
    if best is None:
        return
    touching = svc.query(user, contexts=[DEMO_CONTEXT], any=best.name)
    for e in touching.edges:
        cited = e.attributions[0] if e.attributions else None
        cite = f" ({cited.source}, paragraph {cited.paragraph})" if cited else ""
        say(f"  {e.subject} -{e.label}-> {e.object} weight {e.weight:+.1f}{cite}")
