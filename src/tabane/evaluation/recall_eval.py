"""The docs and graph sets through `recall` under its plans (the plan study).

Docs: a corpus already stored in its context (as `tabane eval docs` leaves it) is asked every
question through recall; the served paragraphs, in served order, map to documents by first
occurrence and score document-level nDCG@10, recall@5/@10 and MRR@10 (metrics.py). Recall serves
at most `max_items` items within a token budget, so the ranking is short by design: the figures
measure what a model would read, not a 100-deep list.

Graph: graph.json is loaded as `tabane eval graph` loads it (graph_set.install); each question is
asked through recall in its context and the served association items are its evidence. An
association is read back from the candidate's walk lane (its key "a:<id>") joined to the stored
edge, never parsed from the rendered text; its sign is the walk lane's signed weight.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tabane.evaluation import questions as qs
from tabane.evaluation.graph_eval import Coverage
from tabane.evaluation.graph_set import GraphContext, GraphQuestion, Triple, install
from tabane.evaluation.graph_set import load as load_graph
from tabane.evaluation.metrics import Scores, documents, mean_of, section_key, section_ndcg
from tabane.evaluation.options import choices, count, refuse
from tabane.graph import edges
from tabane.principal import Principal
from tabane.recall.plan import MAX_BUDGET, PLANS, RecallRequest, Tunables
from tabane.recall.result import RecallResult
from tabane.service import Tabane

Progress = Callable[[str], None]


@dataclass(frozen=True)
class DocsRow:
    id: str
    plan: str
    scores: Scores
    top10: list[str]
    items: int
    section_ndcg10: float | None = None  # for a question that names its section


@dataclass
class DocsRun:
    plan: str
    questions: int = 0
    scores: Scores = field(default_factory=lambda: Scores(0.0, 0.0, 0.0, 0.0))
    mean_items: float = 0.0
    mean_tokens: float = 0.0
    seconds: float = 0.0
    rows: list[DocsRow] = field(default_factory=list)
    section_ndcg10: float | None = None  # over the questions that name their section


@dataclass
class DocsRecallReport:
    set: str
    context: str
    budget: int
    runs: list[DocsRun] = field(default_factory=list)


def check(plans: Sequence[str], budget: int | None) -> None:
    """Refuse unknown recall plans and a budget out of range by name, before any work (the CLI
    calls it before the search evaluation that precedes recall's)."""
    refuse(
        [
            *choices("plans", "plan", plans, sorted(PLANS)),
            *count("budget", "budget", budget, 1, MAX_BUDGET),
        ]
    )


def run_docs_recall(
    svc: Tabane,
    user: Principal,
    set_path: Path,
    context: str,
    *,
    plans: Sequence[str] = ("maximal", "sources_only"),
    budget: int | None = None,
    progress: Progress | None = None,
    tunables: Tunables | None = None,
) -> DocsRecallReport:
    """Every question of a docs set through recall over an already stored corpus."""
    say = progress or (lambda _msg: None)
    check(plans, budget)
    questions, _problems = qs.load(set_path)
    chosen = svc.settings.recall_budget if budget is None else budget
    report = DocsRecallReport(set_path.name, context, chosen)
    for plan in plans:
        started = time.monotonic()
        run = DocsRun(plan)
        tokens = 0
        for q in questions:
            ask = RecallRequest(q.question, (context,), plan=plan, budget=chosen, force=True)
            result = svc.recall(user, ask, tunables=tunables)
            cited = [
                it.citation for it in result.items if it.kind == "paragraph" and it.citation.source
            ]
            docs = documents(c.source for c in cited if c.source)
            sections = documents(section_key(c.source or "", c.locator) for c in cited)
            section = section_ndcg(sections, q.section) if q.section else None
            run.rows.append(
                DocsRow(
                    q.id, plan, Scores.of(docs, q.relevant), docs[:10], len(result.items), section
                )
            )
            tokens += result.trace.used_tokens
        run.questions = len(run.rows)
        run.scores = Scores.mean([r.scores for r in run.rows])
        run.section_ndcg10 = mean_of(r.section_ndcg10 for r in run.rows)
        run.mean_items = sum(r.items for r in run.rows) / max(1, run.questions)
        run.mean_tokens = tokens / max(1, run.questions)
        run.seconds = round(time.monotonic() - started, 1)
        say(f"{set_path.name} {plan}: nDCG@10 {run.scores.ndcg10:.3f}")
        report.runs.append(run)
    return report


@dataclass(frozen=True)
class GraphRow:
    id: str
    plan: str
    kind: str
    hops: int
    needed: int
    present: int
    missing: list[Triple]
    associations: int
    distractor_within: bool


@dataclass
class GraphRun:
    plan: str
    overall: Coverage = field(default_factory=Coverage)
    by_kind: dict[str, Coverage] = field(default_factory=dict)
    by_hops: dict[str, Coverage] = field(default_factory=dict)
    with_distractors: int = 0
    distractor_within: int = 0
    rows: list[GraphRow] = field(default_factory=list)


@dataclass
class GraphRecallReport:
    set: str
    budget: int
    runs: list[GraphRun] = field(default_factory=list)


def served_associations(
    svc: Tabane, user: Principal, result: RecallResult
) -> list[tuple[Triple, bool]]:
    """The served association items as ((subject, label, object), positive), in served order:
    the triple from the stored edge its key names, the sign from the walk lane's net weight."""
    weights = {
        c.key: next((lr.score for lr in c.lanes if lr.lane == "walk"), 0.0)
        for c in result.trace.candidates
    }
    ids = [int(it.key[2:]) for it in result.items if it.kind == "association"]
    if not ids:
        return []
    with svc.store.session(user) as session:
        rows = edges.triples(session, ids)
    return [(rows[i], weights[f"a:{i}"] > 0) for i in ids if i in rows]


def run_graph_recall(
    svc: Tabane,
    user: Principal,
    set_path: Path,
    *,
    plans: Sequence[str] = ("maximal", "no_graph", "sources_only"),
    prefix: str = "eval-",
    budget: int | None = None,
    load: bool = True,
    progress: Progress | None = None,
    tunables: Tunables | None = None,
) -> GraphRecallReport:
    """Every graph question through recall under each plan (`load=False`: the contexts are
    already loaded, e.g. by `run_graph_eval` in the same run)."""
    say = progress or (lambda _msg: None)
    check(plans, budget)
    data = load_graph(set_path)
    chosen = svc.settings.recall_budget if budget is None else budget
    if load:
        for gc in data.contexts:
            say(f"loading {gc.name}")
            install(svc, user, gc, prefix + gc.name)
        if svc.embedder is not None:
            svc.wait_for_jobs(timeout=3600.0)
    report = GraphRecallReport(set_path.name, chosen)
    for plan in plans:
        run = GraphRun(plan)
        for q in data.questions:
            gc = data.context(q.context)
            ask = RecallRequest(
                q.question, (prefix + q.context,), plan=plan, budget=chosen, force=True
            )
            got = served_associations(svc, user, svc.recall(user, ask, tunables=tunables))
            _tally(run, q, _graph_row(q, gc, plan, got))
        say(f"graph {plan}: all-needed {run.overall.all_rate:.3f}")
        report.runs.append(run)
    return report


def _graph_row(
    q: GraphQuestion, gc: GraphContext, plan: str, got: list[tuple[Triple, bool]]
) -> GraphRow:
    """One question's score under one plan: the needed triples served with their sign, and
    whether a distractor was served at all."""
    signed = set(got)
    present = [t for t in q.needed if (t, gc.weight(t) > 0) in signed]
    unsigned = {t for t, _ in got}
    return GraphRow(
        q.id,
        plan,
        q.kind,
        q.hops,
        len(q.needed),
        len(present),
        [t for t in q.needed if t not in present],
        len(got),
        any(t in unsigned for t in q.distractors),
    )


def _tally(run: GraphRun, q: GraphQuestion, row: GraphRow) -> None:
    """A row counted in its run: overall, by kind, by hops, and among distractor questions."""
    run.rows.append(row)
    for bucket in (
        run.overall,
        run.by_kind.setdefault(q.kind, Coverage()),
        run.by_hops.setdefault(str(q.hops), Coverage()),
    ):
        bucket.add(row.present, row.needed)
    if q.distractors:
        run.with_distractors += 1
        run.distractor_within += int(row.distractor_within)


def render_docs(report: DocsRecallReport) -> str:
    lines = [
        f"**{report.set}** through recall in `{report.context}` — served paragraphs in served "
        f"order (at most the kernel's max_items, budget {report.budget} tokens)",
        "",
        "| plan | questions | nDCG@10 | recall@5 | recall@10 | MRR@10 | section nDCG@10 | items "
        "| tokens | s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report.runs:
        s = r.scores
        section = "-" if r.section_ndcg10 is None else f"{r.section_ndcg10:.3f}"
        lines.append(
            f"| {r.plan} | {r.questions} | {s.ndcg10:.3f} | {s.recall5:.3f} | {s.recall10:.3f} "
            f"| {s.mrr10:.3f} | {section} | {r.mean_items:.1f} | {r.mean_tokens:.0f} "
            f"| {r.seconds} |"
        )
    return "\n".join(lines)


def render_graph(report: GraphRecallReport) -> str:
    lines = [
        f"**{report.set}** through recall — evidence: the served association items (budget "
        f"{report.budget} tokens), read back by key, signed by the walk lane's net weight",
        "",
        "| plan | slice | questions | micro | macro | all-needed |",
        "|---|---|---|---|---|---|",
    ]
    for r in report.runs:
        rows = [("all", r.overall)]
        rows += [(f"kind={k}", v) for k, v in sorted(r.by_kind.items())]
        rows += [(f"hops={k}", v) for k, v in sorted(r.by_hops.items())]
        for name, c in rows:
            lines.append(
                f"| {r.plan} | {name} | {c.questions} | {c.micro:.3f} | {c.macro:.3f} | "
                f"{c.all_rate:.3f} |"
            )
    for r in report.runs:
        lines.append(
            f"- {r.plan}: a distractor triple served in {r.distractor_within}/"
            f"{r.with_distractors} questions with distractors"
        )
        for row in r.rows:
            if row.missing:
                lines.append(
                    f"  - missed {row.id} ({row.kind}, {row.associations} associations served):"
                    f" {row.missing}"
                )
    return "\n".join(lines)
