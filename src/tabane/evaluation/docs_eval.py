"""`tabane eval docs`: ingest a dev corpus, run every question under each plan (both lanes fused,
BM25 alone, the dense lane alone — same paragraphs, same run) and score the document rankings.

Plans narrower than both lanes exist for this comparison only; a normal search always asks both.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tabane.errors import EmptyDocument, InvalidInput, Issue, TabaneError
from tabane.evaluation import questions as qs
from tabane.evaluation.corpora import Corpus, corpus, select_files
from tabane.evaluation.metrics import Scores, documents, mean_of, section_key, section_ndcg
from tabane.evaluation.options import choices, refuse
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.search.plan import MAX_LIMIT, SearchRequest
from tabane.service import Tabane

PLANS: dict[str, tuple[str, ...]] = {
    "fused": ("bm25", "vector"),
    "bm25": ("bm25",),
    "vector": ("vector",),
}
DEPTH = 100  # paragraphs collected per question (README: at least 100)
EMBED_TIMEOUT = 24 * 3600.0

Progress = Callable[[str], None]


@dataclass(frozen=True)
class QuestionRow:
    id: str
    plan: str
    scores: Scores
    top10: list[str]  # document ids, best first
    first_relevant: int | None  # document rank of the first graded page within the depth
    paragraphs: int
    section_ndcg10: float | None = None  # for a question that names its section


@dataclass(frozen=True)
class PlanSummary:
    plan: str
    questions: int
    scores: Scores
    seconds: float
    lanes_not_run: dict[str, int]  # "vector: no_vectors" -> questions where that happened
    section_ndcg10: float | None = None  # over the questions that name their section


@dataclass
class EvalReport:
    set: str
    corpus: str
    context: str
    questions: int
    files_selected: int
    files_expected: int | None
    files_ingested: int
    ingest: dict[str, int]  # outcome -> files
    problems: list[str]
    plans: list[PlanSummary] = field(default_factory=list)
    rows: list[QuestionRow] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    embeddings_pending: int = 0


def run_docs_eval(
    svc: Tabane,
    user: Principal,
    set_path: Path,
    corpus_root: Path,
    *,
    context: str | None = None,
    plans: Sequence[str] = ("fused", "bm25", "vector"),
    progress: Progress | None = None,
    depth: int = DEPTH,
    select: Sequence[str] = (),
) -> EvalReport:
    """Ingest the corpus (unchanged files are skipped), wait for its embeddings, check the
    harness invariants, then score every question under every plan. The corpus's files are those
    its rules select (corpora.py), or those the `select` globs match; an unknown corpus without
    `select` is refused."""
    say = progress or (lambda _msg: None)
    refuse(choices("plans", "plan", plans, PLANS))
    questions, problems, spec, files = _selected(set_path, corpus_root, select)
    name = context or spec.name
    report = EvalReport(
        set=set_path.name,
        corpus=spec.name,
        context=name,
        questions=len(questions),
        files_selected=len(files),
        files_expected=spec.expected_files,
        files_ingested=0,
        ingest={},
        problems=problems,
    )
    started = time.monotonic()
    created = _ensure_context(svc, user, name)
    _ingest(svc, user, name, corpus_root, files, report, say)
    report.seconds["ingest"] = round(time.monotonic() - started, 1)

    started = time.monotonic()
    if svc.embedder is not None and any("vector" in PLANS[p] for p in plans):
        report.embeddings_pending = _embed(svc, say)
    report.seconds["embed"] = round(time.monotonic() - started, 1)

    _check_stored(svc, user, report, files, spec, questions, created)
    for plan in plans:
        summary, rows = _run_plan(svc, user, name, plan, questions, depth, say)
        report.plans.append(summary)
        report.rows.extend(rows)
    return report


def _selected(
    set_path: Path, corpus_root: Path, select: Sequence[str]
) -> tuple[list[qs.Question], list[str], Corpus, list[str]]:
    """The set's questions and problems, its corpus and the corpus's files; refused where the
    root is no folder or a relevant page is not among the files (a harness bug)."""
    if not corpus_root.is_dir():
        raise InvalidInput(
            f"{corpus_root} is not a folder", issues=[Issue("corpus_root", "not a folder")]
        )
    questions, problems = qs.load(set_path)
    spec = corpus(questions[0].corpus, select)
    files = select_files(corpus_root, spec)
    missing = qs.missing_relevant(questions, corpus_root, set(files))
    if missing:
        raise InvalidInput(
            f"{len(missing)} relevant pages are not in the corpus (a harness bug, not a "
            "retrieval miss)",
            issues=[Issue("relevant", m) for m in missing],
        )
    return questions, problems, spec, files


def _check_stored(
    svc: Tabane,
    user: Principal,
    report: EvalReport,
    files: list[str],
    spec: Corpus,
    questions: list[qs.Question],
    created: bool,
) -> None:
    """What the ingest stored, against the corpus: files ingested, sources outside it and an
    unexpected count are problems of the report; a relevant page not stored is refused."""
    name = report.context
    stored = _stored(svc, user, name)
    report.files_ingested = len(stored & set(files))
    outside = len(stored - set(files))
    if outside:
        report.problems.append(f"context {name!r} also holds {outside} sources outside the corpus")
    if spec.expected_files is not None and report.files_ingested != spec.expected_files:
        report.problems.append(
            f"{report.files_ingested} files ingested; corpora.md expects {spec.expected_files}"
        )
    lost = qs.not_stored(questions, stored)
    if lost:
        raise InvalidInput(
            f"{len(lost)} relevant pages were not stored by the ingest (a harness bug, not a "
            "retrieval miss)",
            issues=[Issue("relevant", m) for m in lost],
            written=_written(svc, name, created, report),
        )


def _ensure_context(svc: Tabane, user: Principal, name: str) -> bool:
    """Create the context unless it exists; whether it was created."""
    if name in {c.name for c in svc.list_contexts(user)}:
        return False
    svc.create_context(user, name)
    return True


def _written(svc: Tabane, name: str, created: bool, report: EvalReport) -> str:
    """What a run refused after its ingest left in the store."""
    made = f"context {name!r} created; " if created else ""
    outcomes = ", ".join(f"{n} {outcome}" for outcome, n in sorted(report.ingest.items()))
    vectors = " (with their embedding jobs)" if svc.embedder is not None else ""
    return (
        f"{made}the corpus ingested into context {name!r}{vectors}: {outcomes} "
        f"of {report.files_selected} files"
    )


def _ingest(
    svc: Tabane,
    user: Principal,
    context: str,
    root: Path,
    files: list[str],
    report: EvalReport,
    say: Progress,
) -> None:
    for i, rel in enumerate(files, start=1):
        outcome: str
        try:
            doc = DocumentInput(source_id=rel, data=(root / rel).read_bytes())
            outcome = svc.ingest(user, context, doc).outcome
        except EmptyDocument:
            outcome = "empty"  # as a file ingest reports it: nothing to store
        except TabaneError as exc:
            outcome = "error"
            report.problems.append(f"{rel}: could not ingest: [{exc.code}] {exc.message}")
        except OSError as exc:
            outcome = "error"
            report.problems.append(f"{rel}: unreadable: {exc}")
        report.ingest[outcome] = report.ingest.get(outcome, 0) + 1
        if i % 50 == 0 or i == len(files):
            say(f"ingest {i}/{len(files)} {report.ingest}")


def _embed(svc: Tabane, say: Progress) -> int:
    """Run the embedding jobs to the end; report the queue about every 30 s."""
    last = [0.0]

    def tick(left: int) -> None:
        if left and time.monotonic() - last[0] >= 30:
            last[0] = time.monotonic()
            say(f"embedding: {left} jobs left")

    return svc.wait_for_jobs(timeout=EMBED_TIMEOUT, progress=tick)


def _stored(svc: Tabane, user: Principal, context: str) -> set[str]:
    out: set[str] = set()
    after: str | None = None
    while True:
        page = svc.list_sources(user, context, limit=500, after=after)
        out.update(s.source_id for s in page.sources)
        if page.next_after is None:
            return out
        after = page.next_after


def _run_plan(
    svc: Tabane,
    user: Principal,
    context: str,
    plan: str,
    questions: list[qs.Question],
    depth: int,
    say: Progress,
) -> tuple[PlanSummary, list[QuestionRow]]:
    started = time.monotonic()
    rows: list[QuestionRow] = []
    not_run: dict[str, int] = {}
    for q in questions:
        ranked = ranked_paragraphs(svc, user, context, q.question, plan, depth)
        for reason in ranked.reasons:
            not_run[reason] = not_run.get(reason, 0) + 1
        docs = documents(ranked.sources)
        scores = Scores.of(docs, q.relevant)
        first = next((i for i, d in enumerate(docs, start=1) if q.relevant.get(d, 0) >= 1), None)
        section = section_ndcg(documents(ranked.sections), q.section) if q.section else None
        rows.append(QuestionRow(q.id, plan, scores, docs[:10], first, len(ranked.sources), section))
    seconds = round(time.monotonic() - started, 1)
    say(f"{plan}: {len(questions)} questions in {seconds} s")
    summary = PlanSummary(
        plan,
        len(rows),
        Scores.mean([r.scores for r in rows]),
        seconds,
        not_run,
        mean_of(r.section_ndcg10 for r in rows),
    )
    return summary, rows


@dataclass(frozen=True)
class RankedParagraphs:
    sources: list[str]  # each paragraph's source id, best first
    sections: list[str]  # each paragraph's section key (metrics.section_key), best first
    reasons: list[str]  # the lanes that did not run (`lane: reason`)


def ranked_paragraphs(
    svc: Tabane, user: Principal, context: str, query: str, plan: str, depth: int = DEPTH
) -> RankedParagraphs:
    """The paragraphs one question finds under one plan: at least `depth`, or all there are."""
    source_ids: list[str] = []
    sections: list[str] = []
    reasons: list[str] = []
    after: str | None = None
    while len(source_ids) < depth:
        request = SearchRequest(
            query=query, contexts=(context,), limit=MAX_LIMIT, after=after, lanes=PLANS[plan]
        )
        result = svc.search(user, request)
        if after is None:
            for cplan in result.plan.contexts:
                reasons += [f"{n}: {lp.reason}" for n, lp in cplan.lanes.items() if not lp.ran]
        source_ids.extend(h.source_id for h in result.hits)
        sections.extend(section_key(h.source_id, h.locator) for h in result.hits)
        after = result.next_after
        if after is None:
            break
    return RankedParagraphs(source_ids, sections, reasons)
