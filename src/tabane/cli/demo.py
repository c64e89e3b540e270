"""`tabane demo`: start the embedded store, ingest the sample corpus, show what was stored."""

from __future__ import annotations

import time
from collections.abc import Callable

from tabane.errors import NameTaken
from tabane.ingest.documents import DocumentInput
from tabane.samples import sample_files
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.types import Principal

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
    left = svc.wait_for_jobs(timeout=300)
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
    ctx = svc.get_context(user, DEMO_CONTEXT)
    say(f"usage of {DEMO_CONTEXT}: {ctx.usage.reads} reads, {ctx.usage.writes} writes")
