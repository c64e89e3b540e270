"""`tabane eval …`: retrieval evaluation on a dev set (shared/eval/README.md)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tabane.cli.common import handled, service
from tabane.errors import InvalidInput, Issue, TabaneError

if TYPE_CHECKING:
    from tabane.evaluation.docs_eval import EvalReport

eval_app = typer.Typer(
    help="Evaluate retrieval on graded question sets. Every command checks its options and reads "
    "its set before it writes anything: an unknown plan or loading, a value out of range or a set "
    "it could not score is invalid_input at that option or place in the set (docs/quality.md).",
    short_help="Evaluate retrieval on graded question sets.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Opt = typer.Option
OPTIONS = {
    "plans": "--plan",
    "loadings": "--loading",
    "budget": "--budget",
    "limit": "--limit",
    "corpus_root": "--corpus-root",
    "semantic_floor": "--semantic-floor",
}


@contextmanager
def _named_as_options() -> Iterator[None]:
    """The library's issues at this command's options: `--loading`, not `loadings`."""
    try:
        yield
    except TabaneError as exc:
        exc.issues = tuple(Issue(OPTIONS.get(i.path, i.path), i.problem) for i in exc.issues)
        raise


def _check_out(path: Path | None) -> None:
    """Refuse a --json path the report could not be written to, before any work."""
    if path is None:
        return
    folder = path.parent
    if path.is_dir():
        problem = "a folder"
    elif not folder.is_dir():
        problem = f"no folder {folder}"
    elif not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        problem = "not writable"
    else:
        return
    raise InvalidInput(f"cannot write the report to {path}", issues=[Issue("--json", problem)])


def _write(path: Path, report: Any, written: str) -> None:
    """Write the --json report; a failure says what the run had written (not the report)."""
    try:
        from tabane.plain import to_plain

        path.write_text(json.dumps(to_plain(report), ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        raise InvalidInput(
            f"cannot write the report to {path}: {exc.strerror}",
            issues=[Issue("--json", str(path))],
            written=f"{written}; not the report",
        ) from None


class _Clock:
    """A command's progress lines on stderr, each with the seconds since it started."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def seconds(self) -> float:
        return time.monotonic() - self.started

    def say(self, msg: str) -> None:
        typer.echo(f"[{self.seconds():7.0f}s] {msg}", err=True)


@eval_app.command("docs")
@handled
def docs(
    set_path: Annotated[Path, typer.Argument(metavar="SET", help="questions, one JSON a line")],
    corpus_root: Annotated[Path, Opt("--corpus-root", help="folder the corpus lives in")],
    context: Annotated[
        str | None, Opt("--context", "-c", help="context to use (default: the corpus name)")
    ] = None,
    json_out: Annotated[
        Path | None, Opt("--json", help="also write the full report (every question) here")
    ] = None,
    per_question: Annotated[
        bool, Opt("--per-question", help="also print one row per question and plan")
    ] = False,
    plan: Annotated[
        list[str] | None,
        Opt("--plan", help="also ask every question through recall under this plan (repeat)"),
    ] = None,
    budget: Annotated[
        int | None,
        Opt("--budget", help="recall's token budget (1-200000; default TABANE_RECALL_BUDGET)"),
    ] = None,
    select: Annotated[
        list[str] | None,
        Opt(
            "--select",
            help="files of a corpus tabane does not know: a glob relative to the root (repeat)",
        ),
    ] = None,
) -> None:
    """Score document-level nDCG@10, recall@5/@10 and MRR@10 of fused search beside BM25 alone
    and the dense lane alone, after ingesting the corpus (unchanged files are skipped) and
    embedding it. With --plan, every question is also asked through recall under each plan
    (served paragraph order, document level).
    Example: tabane eval docs pydocs.jsonl --corpus-root /usr/share/doc/python3.11/html"""
    from tabane.evaluation.recall_eval import render_docs as render_docs_recall

    clock = _Clock()
    with _named_as_options():
        report, recalled = _run_docs(
            set_path, corpus_root, context, select or [], plan, budget, json_out, clock.say
        )
    report.seconds["total"] = round(clock.seconds(), 1)
    if json_out is not None:
        full = report if recalled is None else {"search": report, "recall": recalled}
        _write(json_out, full, f"the corpus in context {report.context!r}")
    typer.echo(render(report, per_question=per_question))
    if recalled is not None:
        typer.echo("\n" + render_docs_recall(recalled))


def _run_docs(
    set_path: Path,
    corpus_root: Path,
    context: str | None,
    select: list[str],
    plan: list[str] | None,
    budget: int | None,
    json_out: Path | None,
    say: Callable[[str], None],
) -> tuple[EvalReport, Any]:
    """The options checked, then the search evaluation and, with plans, the recall one."""
    from tabane.evaluation.docs_eval import run_docs_eval
    from tabane.evaluation.recall_eval import check as check_recall
    from tabane.evaluation.recall_eval import run_docs_recall

    recalled = None
    check_recall(plan or ["maximal"], budget)
    _check_out(json_out)
    with service() as (svc, user):
        report = run_docs_eval(
            svc, user, set_path, corpus_root, context=context, progress=say, select=select
        )
        if plan:
            recalled = run_docs_recall(
                svc, user, set_path, report.context, plans=plan, budget=budget, progress=say
            )
    return report, recalled


def render(report: EvalReport, *, per_question: bool = False) -> str:
    """The report as Markdown: one row per plan, then its problems (and optionally questions)."""
    expected = report.files_expected if report.files_expected is not None else "?"
    lines = [
        f"**{report.set}** — corpus `{report.corpus}` in context `{report.context}`: "
        f"{report.files_ingested}/{expected} files ingested/expected ({report.ingest}); "
        f"{report.questions} questions; seconds {report.seconds}",
        "",
        "| plan | questions | nDCG@10 | recall@5 | recall@10 | MRR@10 | section nDCG@10 |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in report.plans:
        s = p.scores
        lines.append(
            f"| {p.plan} | {p.questions} | {s.ndcg10:.3f} | {s.recall5:.3f} | "
            f"{s.recall10:.3f} | {s.mrr10:.3f} | {_maybe(p.section_ndcg10)} |"
        )
    notes = [
        f"{p.plan}: {n} in {k} questions" for p in report.plans for n, k in p.lanes_not_run.items()
    ]
    if report.embeddings_pending:
        notes.append(f"{report.embeddings_pending} embedding jobs still pending")
    for problem in [*report.problems, *notes]:
        lines.append(f"- {problem}")
    if per_question:
        lines += [
            "",
            "| question | plan | nDCG@10 | recall@5 | recall@10 | MRR@10 | first relevant "
            "| section nDCG@10 |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in report.rows:
            s = r.scores
            lines.append(
                f"| {r.id} | {r.plan} | {s.ndcg10:.3f} | {s.recall5:.3f} | {s.recall10:.3f} | "
                f"{s.mrr10:.3f} | {r.first_relevant or '-'} | {_maybe(r.section_ndcg10)} |"
            )
    return "\n".join(lines)


def _maybe(value: float | None) -> str:
    """A score, or '-' for a set whose questions name no section."""
    return "-" if value is None else f"{value:.3f}"


@eval_app.command("graph")
@handled
def graph(
    set_path: Annotated[Path, typer.Argument(metavar="SET", help="graph.json of the eval set")],
    prefix: Annotated[
        str, Opt("--prefix", help="contexts are named PREFIX + the set's context name")
    ] = "eval-",
    limit: Annotated[
        int, Opt("--limit", help="associations of evidence per question (1-1000)")
    ] = 20,
    json_out: Annotated[Path | None, Opt("--json", help="also write the full report here")] = None,
    plan: Annotated[
        list[str] | None,
        Opt("--plan", help="also ask every question through recall under this plan (repeat)"),
    ] = None,
    budget: Annotated[
        int | None,
        Opt("--budget", help="recall's token budget (1-200000; default TABANE_RECALL_BUDGET)"),
    ] = None,
    semantic_floor: Annotated[
        float | None,
        Opt("--semantic-floor", help="resolve's semantic floor for every cue (default: default)"),
    ] = None,
) -> None:
    """Load the graph set (passages as sources, associations attributed to their paragraphs,
    aliases) into fresh contexts — an existing PREFIX+name context is replaced — then score the
    resolve → query/activate pipeline: needed-triple coverage (the golden floor is 100%), cue
    resolution@1/@5 by cue class, disambiguation confusion and text support.
    With --plan, every question is also asked through recall under each plan and scored on the
    served association items.
    Example: tabane eval graph shared/eval/dev/graph.json --json graph.json --plan maximal"""
    from tabane.evaluation.graph_eval import render as render_graph
    from tabane.evaluation.recall_eval import render_graph as render_graph_recall

    with _named_as_options():
        report, recalled = _run_graph(
            set_path, prefix, limit, semantic_floor, plan, budget, json_out, _Clock().say
        )
    if json_out is not None:
        full = report if recalled is None else {"pipeline": report, "recall": recalled}
        _write(json_out, full, f"contexts {', '.join(prefix + n for n in report.loaded)}")
    typer.echo(render_graph(report))
    if recalled is not None:
        typer.echo("\n" + render_graph_recall(recalled))


def _run_graph(
    set_path: Path,
    prefix: str,
    limit: int,
    semantic_floor: float | None,
    plan: list[str] | None,
    budget: int | None,
    json_out: Path | None,
    say: Callable[[str], None],
) -> tuple[Any, Any]:
    """The options checked, then the pipeline evaluation and, with plans, the recall one (on the
    contexts the first loaded)."""
    from tabane.evaluation.graph_eval import check as check_graph
    from tabane.evaluation.graph_eval import run_graph_eval
    from tabane.evaluation.recall_eval import check as check_recall
    from tabane.evaluation.recall_eval import run_graph_recall

    recalled = None
    check_graph(limit, semantic_floor)
    check_recall(plan or ["maximal"], budget)
    _check_out(json_out)
    with service() as (svc, user):
        report = run_graph_eval(
            svc, user, set_path, prefix=prefix, limit=limit, progress=say,
            semantic_floor=semantic_floor,
        )  # fmt: skip
        if plan:
            recalled = run_graph_recall(
                svc, user, set_path, plans=plan, prefix=prefix, budget=budget, load=False,
                progress=say,
            )  # fmt: skip
    return report, recalled


@eval_app.command("memory")
@handled
def memory(
    set_path: Annotated[Path, typer.Argument(metavar="SET", help="memory.json of the eval set")],
    plan: Annotated[
        list[str] | None, Opt("--plan", help="recall plan (repeat for several; default maximal)")
    ] = None,
    loading: Annotated[
        list[str] | None,
        Opt("--loading", help="turns | notes | documents | both (repeat; default notes)"),
    ] = None,
    budget: Annotated[
        int | None,
        Opt("--budget", help="tokens per bundle (1-200000; default TABANE_RECALL_BUDGET)"),
    ] = None,
    prefix: Annotated[
        str, Opt("--prefix", help="contexts and sessions are PREFIX+loading-conversation")
    ] = "mem-",
    json_out: Annotated[Path | None, Opt("--json", help="also write the full report here")] = None,
) -> None:
    """Load each conversation into its own context and session (turns, plus the chosen
    loading), then ask every question through recall (asker as speaker, the conversation's
    session) under each plan: evidence recall@5/@10, partial coverage, update latest-first,
    perspective attributed hit, adversarial abstention and traps, latency and bundle size.
    Example: tabane eval memory shared/eval/dev/memory.json --plan maximal --plan no_session"""
    started = time.monotonic()
    loadings, plans = loading or ["notes"], plan or ["maximal"]
    from tabane.evaluation.memory_eval import check as check_memory
    from tabane.evaluation.memory_eval import render as render_memory
    from tabane.evaluation.memory_eval import run_memory_eval

    with _named_as_options():
        check_memory(loadings, plans, budget)
        _check_out(json_out)
        with service() as (svc, user):
            report = run_memory_eval(
                svc,
                user,
                set_path,
                loadings=loadings,
                plans=plans,
                budget=budget,
                prefix=prefix,
                progress=lambda msg: typer.echo(
                    f"[{time.monotonic() - started:7.0f}s] {msg}", err=True
                ),
            )
    if json_out is not None:
        made = f"a context and a session {prefix}LOADING-CONVERSATION per conversation"
        _write(json_out, report, f"{made} and loading ({', '.join(loadings)})")
    typer.echo(render_memory(report))
