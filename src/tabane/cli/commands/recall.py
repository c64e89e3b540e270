"""`tabane recall`: the evidence for a question, printed as the rendered bundle (with --trace a
table of what every lane did, with --json the whole result) or, with --explain/--explain-claim,
its explain twin."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from tabane.cli.common import JSON_OUTPUT, emit, handled, named_as, service, shown
from tabane.errors import InvalidInput, Issue

if TYPE_CHECKING:
    from tabane.recall.explain import Expected
    from tabane.recall.plan import RecallRequest
    from tabane.recall.result import RecallTrace

Opt = typer.Option


@handled
def recall(
    question: Annotated[str, typer.Argument(help="the question, as asked")],
    context: Annotated[
        list[str] | None, Opt("--context", "-c", help="context to read (repeat for more)")
    ] = None,
    group: Annotated[
        list[str] | None, Opt("--group", "-g", help="group to read (repeat for more)")
    ] = None,
    preset: Annotated[str | None, Opt(help="a preset of the presets file (TABANE_PRESETS)")] = None,
    speaker: Annotated[
        str | None, Opt("--as", help="who asks, as the conversation names them")
    ] = None,
    session: Annotated[
        str | None, Opt(help="your session whose recent turns are working memory")
    ] = None,
    budget: Annotated[int | None, Opt(help="token budget (default: the preset's)")] = None,
    floor: Annotated[float | None, Opt(help="cosine floor of the vector lanes, in [-1, 1]")] = None,
    force: Annotated[bool, Opt(help="answer even a turn the relevance gate calls trivial")] = False,
    trace: Annotated[bool, Opt(help="also print what every lane did, as a table")] = False,
    explain: Annotated[
        str | None, Opt(metavar="SOURCE_ID", help="explain why this source is (not) served")
    ] = None,
    paragraph: Annotated[
        int | None, Opt(help="with --explain: the expected paragraph (default: any)")
    ] = None,
    explain_context: Annotated[
        str | None, Opt(help="with --explain: its context (default: the only --context)")
    ] = None,
    explain_claim: Annotated[
        int | None, Opt(metavar="CLAIM_ID", help="explain why this claim is (not) served")
    ] = None,
) -> None:
    """Recall the evidence for a question you may see, cited and cut to the token budget;
    prints the rendered bundle. --explain SOURCE_ID (or --explain-claim ID) prints why that
    item is or is not served instead, as JSON.
    Example: tabane recall "how deep can groups nest?" -c tabane-demo --trace"""
    contexts = tuple(context or ())
    with named_as(OPTIONS):
        request = _request(
            question, contexts, group, budget, session, speaker, preset, force, floor
        )
        expected = _expected(contexts, group, explain, paragraph, explain_context, explain_claim)
        with service() as (svc, user):
            if expected is not None:
                emit(svc.explain_recall(user, request, expected))
                return
            result = svc.recall(user, request)
    emit(result)  # the bundle as the model reads it and a line of what the plan did
    if trace and not JSON_OUTPUT.get():
        typer.echo("")
        for line in trace_table(result.trace):
            typer.echo(shown(line))


def _request(
    question: str,
    contexts: tuple[str, ...],
    groups: list[str] | None,
    budget: int | None,
    session: str | None,
    speaker: str | None,
    preset: str | None,
    force: bool,
    floor: float | None,
) -> RecallRequest:
    """The options as the recall request HTTP and MCP build from the same wire model."""
    from tabane.wire.base import built
    from tabane.wire.recall import RecallIn

    return built(
        RecallIn,
        question=question,
        contexts=contexts,
        groups=groups,
        budget=budget,
        session=session,
        speaker=speaker,
        preset=preset,
        force=force,
        semantic_floor=floor,
    ).to_request()


# The request's fields as this command's options (an issue names what you typed).
OPTIONS = {
    "expected.claim": "--explain-claim",
    "expected.paragraph": "--paragraph",
    "expected.context": "--explain-context",
    "expected.source": "--explain",
    "expected": "--explain",
    "semantic_floor": "--floor",
    "contexts": "--context",
    "groups": "--group",
    "speaker": "--as",
    "budget": "--budget",
    "preset": "--preset",
    "session": "--session",
}


def _expected(
    contexts: tuple[str, ...],
    groups: list[str] | None,
    source: str | None,
    paragraph: int | None,
    context: str | None,
    claim: int | None,
) -> Expected | None:
    if source is None and claim is None:
        if paragraph is not None or context is not None:
            raise InvalidInput(
                "--paragraph and --explain-context go with --explain",
                issues=[Issue("--explain", "missing")],
            )
        return None
    if source is not None and claim is not None:
        raise InvalidInput(
            "explain a source or a claim, not both",
            issues=[Issue("--explain-claim", "given with --explain")],
        )
    from tabane.recall.explain import Expected

    return Expected(context=context, source=source, paragraph=paragraph, claim=claim)


def trace_table(t: RecallTrace) -> list[str]:
    """What a recall did, for a terminal: the lanes, then one row per candidate."""
    total = t.timings_ms.get("total")
    head = (
        f"trace {t.id if t.id is not None else '(not stored)'}: plan {t.plan}; contexts "
        f"{', '.join(t.contexts) or '-'}; reranker {t.reranker}; {t.used_tokens} of "
        f"{t.budget_tokens} tokens" + (f"; {total:.1f} ms" if total is not None else "")
    )
    lines = [head]
    if t.gate:
        lines.append(f"gate: answered with no evidence ({t.gate})")
    if t.seeds:
        lines.append(f"seeds: {', '.join(t.seeds)}")
    if t.navigation:
        nav = t.navigation
        facet = f", facet {nav.facet}" if nav.facet else ""
        lines.append(f'navigation: "{nav.cue}" → subject "{nav.subject}"{facet}')
    for name, lane in t.lanes.items():
        state = f"{lane.hits} hits" if lane.ran else f"did not run ({lane.reason})"
        lines.append(f"lane {name}: {state}")
    for name, f in t.floors.items():
        value = "none" if f.value is None else f"{f.value:g}"
        lines.append(f"floor in {name}: {value} ({f.source})")
    if t.caps:
        lines.append("caps: " + ", ".join(f"{k} {v}" for k, v in t.caps.items()))
    lines.extend(f"note: {note}" for note in t.notes)
    if t.candidates:
        lines.append(
            f"{'pos':>4}  {'key':<10} {'kind':<11} {'outcome':<14} {'fused':>7} "
            f"{'rerank':>7} {'tokens':>6}  lanes"
        )
    for c in t.candidates:
        rerank = f"{c.rerank:.3f}" if c.rerank is not None else "-"
        lanes = " ".join(f"{lr.lane}#{lr.rank}" for lr in c.lanes)
        direct = " (named)" if c.direct else ""
        lines.append(
            f"{c.position:>4}  {c.key:<10} {c.kind:<11} {c.outcome:<14} {c.fused:>7.4f} "
            f"{rerank:>7} {c.tokens:>6}  {lanes}{direct}"
        )
    return lines


@handled
def verify(
    recall_id: Annotated[int, typer.Argument(help="the recall the answer was written from")],
    answer: Annotated[
        typer.FileText, typer.Argument(help="a file holding the answer, or - for stdin")
    ],
) -> None:
    """Check an answer's citations (surfaced, unsurfaced_known, unknown) and quotes (quote,
    paraphrase, drifted) against one of your recalls.
    Example: tabane verify 42 answer.md"""
    from tabane.wire.base import built
    from tabane.wire.recall import VerifyIn

    body = built(VerifyIn, recall_id=recall_id, answer=answer.read())
    with service() as (svc, user):
        emit(svc.verify_citations(user, body.recall_id, body.answer))


@handled
def presets() -> None:
    """List the recall presets (TABANE_PRESETS) by name, each with the contexts and groups it
    reads that you can see.  Example: tabane presets"""
    with service() as (svc, user):
        emit({"presets": svc.presets(user)})
