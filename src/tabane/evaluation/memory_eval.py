"""`tabane eval memory`: the memory set through recall (shared/eval/README-memory-graph.md §2).

Each conversation is loaded under each requested loading (memory_set.py), the embedding jobs run
to the end, then every question is asked with `recall` — the asker as speaker, the conversation's
session as working memory, its context only — under each requested plan. Items count in served
order (after the reranker and the token budget). Reported per loading and plan: evidence
recall@5/@10 and mean partial coverage@10 per category and language, update latest-first,
perspective attributed hit@10 and distractor-first rate, adversarial abstention (nothing served,
or the bundle's line that nothing served says it: recall/support.py) and trap rate,
latency p50/p95 and the mean bundle size in tokens.
"""

from __future__ import annotations

import statistics
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tabane.evaluation.memory_set import LOADINGS, Loaded, MemQuestion, install, load
from tabane.evaluation.options import choices, count, refuse
from tabane.principal import Principal
from tabane.recall.plan import MAX_BUDGET, PLANS, RecallRequest, Tunables
from tabane.recall.result import Evidence
from tabane.service import Tabane

Progress = Callable[[str], None]
KS = (5, 10)
DERIVED = ("claim", "association")


@dataclass
class Bucket:
    questions: int = 0
    at5: int = 0
    at10: int = 0
    partial: float = 0.0  # sum of per-question covered fractions within the top 10

    def add(self, row: QuestionRow) -> None:
        self.questions += 1
        self.at5 += int(row.all_at[5])
        self.at10 += int(row.all_at[10])
        self.partial += row.partial10

    def rate(self, k: int) -> float:
        n = self.at5 if k == 5 else self.at10
        return n / self.questions if self.questions else 0.0

    @property
    def mean_partial(self) -> float:
        return self.partial / self.questions if self.questions else 0.0


@dataclass(frozen=True)
class QuestionRow:
    id: str
    category: str
    lang: str
    all_at: dict[int, bool]
    partial10: float
    first_evidence: int | None  # 1-based rank of the first item covering an evidence turn
    items: int
    tokens: int
    ms: float
    latest_first: bool | None = None  # update questions
    attributed10: bool | None = None  # perspective questions
    distractor_first: bool | None = None  # perspective questions
    abstained: bool | None = None  # adversarial-absent questions
    trap: bool | None = None  # adversarial: a derived, untraceable item asserts a trap string
    trap_exposed: bool | None = None  # adversarial: any top-10 item contains a trap string
    covered: list[list[str]] = field(default_factory=list)  # turn ids per served item


@dataclass
class RunSummary:
    loading: str
    plan: str
    overall: Bucket = field(default_factory=Bucket)
    by_category: dict[str, Bucket] = field(default_factory=dict)
    by_lang: dict[str, Bucket] = field(default_factory=dict)
    rows: list[QuestionRow] = field(default_factory=list)

    def _of(self, category: str) -> list[QuestionRow]:
        return [r for r in self.rows if r.category == category]

    def share(self, category: str, attr: str) -> tuple[int, int]:
        rows = self._of(category)
        return sum(1 for r in rows if getattr(r, attr)), len(rows)

    @property
    def latency_ms(self) -> tuple[float, float]:
        ms = sorted(r.ms for r in self.rows)
        if not ms:
            return 0.0, 0.0
        return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]

    @property
    def mean_tokens(self) -> float:
        return statistics.fmean(r.tokens for r in self.rows) if self.rows else 0.0

    @property
    def mean_items(self) -> float:
        return statistics.fmean(r.items for r in self.rows) if self.rows else 0.0


@dataclass
class MemoryEvalReport:
    set: str
    budget: int
    questions: int
    loaded: dict[str, int] = field(default_factory=dict)  # loading -> turns written
    seconds: dict[str, float] = field(default_factory=dict)
    runs: list[RunSummary] = field(default_factory=list)
    embeddings_pending: int = 0


def lang_of(text: str) -> str:
    """ "ja" when the text holds kana or kanji, else "en" (the set's two languages)."""
    for ch in text:
        name = unicodedata.name(ch, "")
        if name.startswith(("HIRAGANA", "KATAKANA", "CJK UNIFIED")):
            return "ja"
    return "en"


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def check(loadings: Sequence[str], plans: Sequence[str], budget: int | None) -> None:
    """Refuse unknown loadings and plans and a budget out of range by name, before any work."""
    refuse(
        [
            *choices("loadings", "loading", loadings, LOADINGS),
            *choices("plans", "plan", plans, sorted(PLANS)),
            *count("budget", "budget", budget, 1, MAX_BUDGET),
        ]
    )


def run_memory_eval(
    svc: Tabane,
    user: Principal,
    set_path: Path,
    *,
    loadings: Sequence[str] = ("notes",),
    plans: Sequence[str] = ("maximal",),
    budget: int | None = None,
    prefix: str = "mem-",
    progress: Progress | None = None,
    tunables: Tunables | None = None,
) -> MemoryEvalReport:
    say = progress or (lambda _msg: None)
    check(loadings, plans, budget)
    data = load(set_path)
    chosen = svc.settings.recall_budget if budget is None else budget
    report = MemoryEvalReport(set=set_path.name, budget=chosen, questions=len(data.questions))
    started = time.monotonic()
    loaded: dict[tuple[str, str], Loaded] = {}
    for loading in loadings:
        for conv in data.conversations:
            say(f"loading {conv.id} as {loading}")
            loaded[(loading, conv.id)] = install(svc, user, conv, loading=loading, prefix=prefix)
        report.loaded[loading] = sum(len(s.turns) for c in data.conversations for s in c.sessions)
    report.seconds["load"] = round(time.monotonic() - started, 1)
    started = time.monotonic()
    if svc.embedder is not None:
        say("embedding")
        report.embeddings_pending = svc.wait_for_jobs(timeout=3600.0)
    report.seconds["embed"] = round(time.monotonic() - started, 1)
    for loading in loadings:
        for plan in plans:
            started = time.monotonic()
            run = RunSummary(loading, plan)
            for q in data.questions:
                where = loaded[(loading, q.conversation)]
                row = ask(svc, user, where, q, plan=plan, budget=chosen, tunables=tunables)
                run.rows.append(row)
                if q.category != "adversarial-absent":
                    for bucket in (
                        run.overall,
                        run.by_category.setdefault(q.category, Bucket()),
                        run.by_lang.setdefault(row.lang, Bucket()),
                    ):
                        bucket.add(row)
            report.seconds[f"{loading}/{plan}"] = round(time.monotonic() - started, 1)
            say(f"{loading}/{plan}: recall@10 {run.overall.rate(10):.3f}")
            report.runs.append(run)
    return report


def ask(
    svc: Tabane,
    user: Principal,
    where: Loaded,
    q: MemQuestion,
    *,
    plan: str,
    budget: int,
    tunables: Tunables | None = None,
) -> QuestionRow:
    """One question under one plan, scored on the served items in order."""
    request = RecallRequest(
        q.question,
        contexts=(where.context,),
        session=where.session,
        speaker=q.asker,
        plan=plan,
        budget=budget,
    )
    started = time.perf_counter()
    result = svc.recall(user, request, tunables=tunables)
    ms = (time.perf_counter() - started) * 1000
    items = list(result.items)
    covers = [where.covers(it) for it in items]
    wanted = set(q.evidence)

    def covered(k: int) -> set[str]:
        return set().union(*covers[:k]) & wanted if covers[:k] else set()

    first = next((i for i, c in enumerate(covers, start=1) if c & wanted), None)
    row = QuestionRow(
        id=q.id,
        category=q.category,
        lang=lang_of(q.question),
        all_at={k: bool(wanted) and covered(k) == wanted for k in KS},
        partial10=len(covered(10)) / len(wanted) if wanted else 0.0,
        first_evidence=first,
        items=len(items),
        tokens=result.trace.used_tokens,
        ms=round(ms, 1),
        covered=[sorted(c) for c in covers],
    )
    extra: dict[str, bool] = {}
    if q.category == "update":
        stale = [i for i, c in enumerate(covers, start=1) if c & set(q.distractors)]
        extra["latest_first"] = first is not None and all(first < s for s in stale)
    elif q.category == "perspective":
        extra["attributed10"] = bool(wanted) and all(
            any(
                t in c and where.attributed(it, t)
                for it, c in zip(items[:10], covers[:10], strict=True)
            )
            for t in wanted
        )
        extra["distractor_first"] = bool(covers) and bool(covers[0] & set(q.distractors))
    elif q.category == "adversarial-absent":
        extra.update(_adversarial(items[:10], covers[:10], q))
        # abstained: nothing served, or the bundle says nothing served says it (support.py)
        extra["abstained"] = not items or result.unsupported is not None
    return QuestionRow(**{**row.__dict__, **extra})


def _adversarial(
    items: Sequence[Evidence], covers: Sequence[frozenset[str]], q: MemQuestion
) -> dict[str, bool]:
    traps = [fold(t) for t in q.traps]
    hit = [any(t in fold(it.text) for t in traps) for it in items]
    # A derived item traceable to a turn restates that turn under its speaker: the other
    # person's true fact, not a failure. Only a derived item with no turn behind it asserts.
    zipped = zip(hit, items, covers, strict=True)
    asserts = any(h and it.kind in DERIVED and not c for h, it, c in zipped)
    return {"trap": asserts, "trap_exposed": any(hit)}


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.2f})" if d else "-"


def render(report: MemoryEvalReport) -> str:
    """Markdown: one comparison row per loading and plan, then one table per run by category
    and language."""
    lines = [
        f"**{report.set}** — {report.questions} questions; budget {report.budget} tokens (items "
        f"counted in served order); seconds {report.seconds}",
        "",
        "| loading | plan | recall@5 | recall@10 | partial@10 | update latest-first | "
        "perspective attributed@10 | distractor first | abstention | trap | trap word in top 10 "
        "| p50 / p95 ms | tokens | items |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in report.runs:
        o = run.overall
        p50, p95 = run.latency_ms
        lines.append(
            f"| {run.loading} | {run.plan} | {o.rate(5):.3f} | {o.rate(10):.3f} | "
            f"{o.mean_partial:.3f} | {_pct(*run.share('update', 'latest_first'))} | "
            f"{_pct(*run.share('perspective', 'attributed10'))} | "
            f"{_pct(*run.share('perspective', 'distractor_first'))} | "
            f"{_pct(*run.share('adversarial-absent', 'abstained'))} | "
            f"{_pct(*run.share('adversarial-absent', 'trap'))} | "
            f"{_pct(*run.share('adversarial-absent', 'trap_exposed'))} | "
            f"{p50:.0f} / {p95:.0f} | {run.mean_tokens:.0f} | {run.mean_items:.1f} |"
        )
    for run in report.runs:
        lines += [
            "",
            f"{run.loading} / {run.plan}:",
            "",
            "| slice | questions | recall@5 | recall@10 | partial@10 |",
            "|---|---|---|---|---|",
        ]
        slices = [("all", run.overall)]
        slices += [(k, v) for k, v in sorted(run.by_category.items())]
        slices += [(f"lang={k}", v) for k, v in sorted(run.by_lang.items())]
        for name, b in slices:
            lines.append(
                f"| {name} | {b.questions} | {b.rate(5):.3f} | {b.rate(10):.3f} | "
                f"{b.mean_partial:.3f} |"
            )
    if report.embeddings_pending:
        lines.append(f"- {report.embeddings_pending} embedding jobs still pending")
    return "\n".join(lines)
