"""`tabane eval graph`: the graph golden floor (shared/eval/README-memory-graph.md §4).

Pipeline per question: resolve every cue spelling in the question's context (top candidate of the
first tier that answers, all exact case twins), then gather evidence = edges touching the seeds
(`query` with `any`, strongest first) followed by the edges on the paths `activate` found, cut at
`limit` associations. Reported: needed-triple coverage (micro, macro, all-needed rate; by kind and
hops; the sign must agree), cue resolution@1/@5 by cue class, disambiguation confusion, and text
support (needed triples whose source paragraph a `sources/search` of the question returns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tabane.evaluation.graph_set import GraphContext, GraphQuestion, Triple, install, load
from tabane.evaluation.options import MAX_LIMIT, count, refuse
from tabane.graph.resolve.resolver import Request, Resolution
from tabane.principal import Principal
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.text.spelling import char_grams, containment, dice, spelling_key
from tabane.text.tokenize import normalize

Progress = Callable[[str], None]
LIMIT = 20  # associations of evidence per question (README-memory-graph.md §4 example)
POOL = 200  # candidate edges touching the seeds, before the question orders them
SEEDS = 3  # lexical candidates adopted per cue when no exact or alias match exists


@dataclass
class Coverage:
    questions: int = 0
    needed: int = 0
    present: int = 0
    all_needed: int = 0
    partial: float = 0.0  # sum of per-question fractions

    def add(self, hit: int, total: int) -> None:
        self.questions += 1
        self.needed += total
        self.present += hit
        self.all_needed += int(hit == total)
        self.partial += hit / total if total else 1.0

    @property
    def micro(self) -> float:
        return self.present / self.needed if self.needed else 0.0

    @property
    def macro(self) -> float:
        return self.partial / self.questions if self.questions else 0.0

    @property
    def all_rate(self) -> float:
        return self.all_needed / self.questions if self.questions else 0.0


@dataclass
class ResolutionStats:
    cues: int = 0
    at1: int = 0
    at5: int = 0
    noise5: int = 0  # semantic candidates among the first five names that are not the target


@dataclass
class QuestionResult:
    id: str
    kind: str
    hops: int
    needed: int
    present: int
    missing: list[Triple]
    seeds: list[str]
    distractor_above: bool
    distractor_within: bool
    text_support: int


@dataclass
class GraphEvalReport:
    set: str
    limit: int
    semantic_floor: float | None = None  # resolve's semantic floor for every cue; None: default
    loaded: dict[str, dict[str, int]] = field(default_factory=dict)
    overall: Coverage = field(default_factory=Coverage)
    by_kind: dict[str, Coverage] = field(default_factory=dict)
    by_hops: dict[str, Coverage] = field(default_factory=dict)
    resolution: dict[str, ResolutionStats] = field(default_factory=dict)
    with_distractors: int = 0
    distractor_above: int = 0
    distractor_within: int = 0
    text_support: int = 0
    rows: list[QuestionResult] = field(default_factory=list)


def cue_class(cue: str, target: str, aliases: dict[str, str]) -> str:
    """exact, alias, normalized (equal after NFKC/case/kana/separators), partial, typo/variant or
    descriptive — how hard the cue is, judged from the spellings alone."""
    if cue == target:
        return "exact"
    if aliases.get(cue) == target:
        return "alias"
    if normalize(cue) == normalize(target) or spelling_key(cue) == spelling_key(target):
        return "normalized"
    ck, tk = spelling_key(cue), spelling_key(target)
    if containment(ck, tk) > 0:
        return "partial"
    if dice(char_grams(ck), char_grams(tk)) >= 0.4:
        return "typo_or_variant"
    return "descriptive"


def check(limit: int, semantic_floor: float | None = None) -> None:
    """Refuse an evidence limit or a semantic floor out of range by name, before any work."""
    refuse(count("limit", "limit", limit, 1, MAX_LIMIT))
    if semantic_floor is not None:
        Request("check", semantic_floor=semantic_floor).check()


def run_graph_eval(
    svc: Tabane,
    user: Principal,
    set_path: Path,
    *,
    prefix: str = "eval-",
    limit: int = LIMIT,
    progress: Progress | None = None,
    semantic_floor: float | None = None,
) -> GraphEvalReport:
    say = progress or (lambda _msg: None)
    check(limit, semantic_floor)
    data = load(set_path)
    report = GraphEvalReport(set=set_path.name, limit=limit, semantic_floor=semantic_floor)
    for gc in data.contexts:
        say(f"loading {gc.name}")
        report.loaded[gc.name] = install(svc, user, gc, prefix + gc.name)
    if svc.embedder is not None:
        say("embedding paragraphs and glosses")
        svc.wait_for_jobs()
    for q in data.questions:
        gc = data.context(q.context)
        row = _question(svc, user, prefix + q.context, gc, q, limit, report)
        report.rows.append(row)
        for bucket in (
            report.overall,
            report.by_kind.setdefault(q.kind, Coverage()),
            report.by_hops.setdefault(str(q.hops), Coverage()),
        ):
            bucket.add(row.present, row.needed)
        if q.distractors:
            report.with_distractors += 1
            report.distractor_above += int(row.distractor_above)
            report.distractor_within += int(row.distractor_within)
        report.text_support += row.text_support
    return report


def _question(
    svc: Tabane,
    user: Principal,
    context: str,
    gc: GraphContext,
    q: GraphQuestion,
    limit: int,
    report: GraphEvalReport,
) -> QuestionResult:
    seeds: list[str] = []
    for cue in q.cues:
        resolution = svc.resolve(user, context, cue, limit=10, semantic_floor=report.semantic_floor)
        names = resolved_names(resolution)
        target = q.resolves_to[cue]
        semantic = {c.name for c in resolution.semantic}
        stats = report.resolution.setdefault(
            cue_class(cue, target, dict(gc.aliases)), ResolutionStats()
        )
        stats.cues += 1
        stats.at1 += int(names[:1] == [target])
        stats.at5 += int(target in names[:5])
        stats.noise5 += sum(1 for n in names[:5] if n in semantic and n != target)
        seeds.extend(seed_names(resolution))
    seeds = list(dict.fromkeys(seeds))
    evidence = gather(svc, user, context, seeds, limit, q.question)
    ranked = {(e[0], e[1], e[2]): (i, e[3]) for i, e in reversed(list(enumerate(evidence)))}
    present = [t for t in q.needed if t in ranked and _same_sign(ranked[t][1], gc.weight(t))]
    best_needed = min((ranked[t][0] for t in present), default=len(evidence))
    distractor_ranks = [ranked[t][0] for t in q.distractors if t in ranked]
    paragraphs = _searched(svc, user, context, q.question)
    supported = sum(1 for t in q.needed if _source_of(gc, t) in paragraphs)
    return QuestionResult(
        id=q.id,
        kind=q.kind,
        hops=q.hops,
        needed=len(q.needed),
        present=len(present),
        missing=[t for t in q.needed if t not in present],
        seeds=seeds,
        distractor_above=any(r < best_needed for r in distractor_ranks),
        distractor_within=bool(distractor_ranks),
        text_support=supported,
    )


def _same_sign(returned: float, stored: float) -> bool:
    return (returned > 0) == (stored > 0) and returned != 0


def _source_of(gc: GraphContext, t: Triple) -> str:
    for a in gc.associations:
        if (a["subject"], a["label"], a["object"]) == t:
            return str(a["source"])
    return ""


def _searched(svc: Tabane, user: Principal, context: str, question: str) -> set[str]:
    result = svc.search(user, SearchRequest(query=question, contexts=(context,), limit=10))
    return {h.source_id for h in result.hits}


# -- adapters over the service's graph reads ---------------------------------------------------


def resolved_names(result: Resolution) -> list[str]:
    """Candidate names in the order resolve serves them: the lexical tier, then the semantic."""
    return list(dict.fromkeys(c.name for c in [*result.candidates, *result.semantic]))


def seed_names(result: Resolution) -> list[str]:
    """The concepts adopted for a cue: every exact or alias match (case twins), else the best
    few of each tier — the question then decides which of their edges are evidence."""
    exact = [c.name for c in result.candidates if c.kind in ("exact", "alias")]
    if exact:
        return exact
    return [c.name for c in (*result.candidates[:SEEDS], *result.semantic[:SEEDS])]


def gather(
    svc: Tabane,
    user: Principal,
    context: str,
    seeds: Sequence[str],
    limit: int,
    question: str = "",
) -> list[tuple[str, str, str, float]]:
    """Candidate edges — those touching the seeds and those activation walked through — ordered
    by how much of the edge the question names (bigram overlap of the edge's spelling keys with
    the question's), then by the order they were found; the first `limit` are the evidence."""
    if not seeds:
        return []
    found: dict[Triple, float] = {}
    touching = svc.query(
        user, contexts=[context], any=list(seeds), limit=POOL, include_retracted=False
    )
    for e in touching.edges:
        found.setdefault(e.triple, e.weight)
    walked = svc.activate(user, context, list(seeds), limit=20)
    for e in walked.edges:
        found.setdefault(e.triple, e.weight)
    asked = char_grams(spelling_key(question))
    order = {t: i for i, t in enumerate(found)}

    def named(t: Triple) -> float:
        grams = char_grams(spelling_key("".join(t)))
        return len(grams & asked) / len(grams) if grams else 0.0

    ranked = sorted(found, key=lambda t: (-named(t), order[t]))
    return [(*t, found[t]) for t in ranked[:limit]]


def summary_rows(report: GraphEvalReport) -> list[tuple[str, Coverage]]:
    rows = [("all", report.overall)]
    rows += [(f"kind={k}", v) for k, v in sorted(report.by_kind.items())]
    rows += [(f"hops={k}", v) for k, v in sorted(report.by_hops.items())]
    return rows


def render(report: GraphEvalReport) -> str:
    lines = [
        f"**{report.set}** — pipeline: resolve each cue → query `any` + activate; "
        f"evidence limit {report.limit} associations; semantic floor "
        f"{'default' if report.semantic_floor is None else report.semantic_floor}",
        "",
        "| slice | questions | micro | macro | all-needed |",
        "|---|---|---|---|---|",
    ]
    for name, c in summary_rows(report):
        lines.append(
            f"| {name} | {c.questions} | {c.micro:.3f} | {c.macro:.3f} | {c.all_rate:.3f} |"
        )
    lines += [
        "",
        "| cue class | cues | resolution@1 | resolution@5 | semantic noise@5 |",
        "|---|---|---|---|---|",
    ]
    for name, r in sorted(report.resolution.items()):
        lines.append(
            f"| {name} | {r.cues} | {r.at1 / r.cues:.3f} | {r.at5 / r.cues:.3f} | {r.noise5} |"
        )
    n = report.with_distractors or 1
    needed = report.overall.needed or 1
    lines += [
        "",
        f"- disambiguation: distractor above the best needed triple in "
        f"{report.distractor_above}/{report.with_distractors} ({report.distractor_above / n:.3f});"
        f" a distractor within the limit in {report.distractor_within}/{report.with_distractors}",
        f"- text support: {report.text_support}/{report.overall.needed} needed triples have their "
        f"source among the top-10 paragraphs ({report.text_support / needed:.3f})",
    ]
    for row in report.rows:
        if row.missing:
            lines.append(f"- missed {row.id} ({row.kind}): {row.missing} — seeds {row.seeds}")
    return "\n".join(lines)
