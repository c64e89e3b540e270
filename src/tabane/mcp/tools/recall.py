"""The recall tools: `recall` (the evidence for a question, rendered and cited), its explain
twin `explain_recall`, `recall_trace` (what a recall did) and `overview_members` (what a derived
overview in the evidence summarizes). Each is a thin shell over the `Tabane` facade acting as
the authenticated user; the speaker is a label named in the bundle, never an identity."""

from __future__ import annotations

from tabane.mcp.registry import tool
from tabane.principal import Principal
from tabane.recall.explain import Explanation
from tabane.recall.verify import Verification
from tabane.service import Tabane
from tabane.wire.base import NoArgs
from tabane.wire.derive import OverviewArgs, OverviewMembers
from tabane.wire.evidence import EvidencePackage, Retrieval, RetrieveArgs
from tabane.wire.recall import (
    AskArgs,
    PresetList,
    RecallAnswer,
    RecallExplainIn,
    RecallIn,
    TraceArgs,
    VerifyIn,
)


@tool("read")
def list_presets(svc: Tabane, user: Principal, a: NoArgs) -> PresetList:
    """The recall presets by name (pass one as `preset`): each one's description, budget and
    gate, and the contexts and groups it reads that you can see."""
    return PresetList(svc.presets(user))


@tool("read")
def recall(svc: Tabane, user: Principal, a: AskArgs) -> RecallAnswer:
    """Call this FIRST for any question about what is stored or was said: it returns `rendered`,
    the evidence you may see from every lane (source excerpts, derived memories, recent session
    memory), cited and cut to a token budget, ready to read, and `recall_id` (its trace). Answer
    from the evidence and cite each item you use exactly as rendered; when it says nothing was
    found, say so instead of guessing. Pass `session` to include your conversation's recent
    turns and `speaker` for who asks. When an item you expected is missing, ask
    `explain_recall` instead of rewording."""
    result = svc.recall(user, a.to_request())
    items = list(result.items) if a.items else None
    return RecallAnswer(result.recall_id, result.rendered, items)


@tool("read")
def explain_recall(svc: Tabane, user: Principal, a: RecallExplainIn) -> Explanation:
    """Ask why a paragraph (`expected`: context, source, optionally paragraph) or a claim
    (`expected`: claim) is or is not in the evidence of `recall` with the same arguments. Returns
    the first verdict that applies: not_visible (also anything you cannot see), closed (a claim
    superseded or retracted: recall reads current claims only), gated (the turn looked trivial:
    pass force), not_found (each lane's rank for it, if any), below_candidates, answered (it asks
    a question; its reply took its place), duplicate, cut_by_rerank, cut_by_max_items,
    cut_by_budget (a larger budget reaches it), unsupported (said of someone else) or served."""
    return svc.explain_recall(user, a.to_request(), a.expected.to_expected())


@tool("read")
def recall_trace(svc: Tabane, user: Principal, a: TraceArgs) -> dict[str, object]:
    """What one of your recalls did (`recall_id`): the lanes that ran (or why not), the seeds,
    every candidate with its lane ranks, fused score and outcome (served, duplicate,
    cut_by_rerank, cut_by_max_items, cut_by_budget, unsupported), tokens and timings. Another
    user's id, or an unknown one, is `no_trace`. To ask why one item is missing,
    `explain_recall` says it directly."""
    return svc.recall_trace(user, a.recall_id)


@tool("read")
def verify_citations(svc: Tabane, user: Principal, a: VerifyIn) -> Verification:
    """Check your answer against the `recall_id` it was written from, before you send it: each
    citation is surfaced (that recall served it), unsurfaced_known (exists, not served) or
    unknown (no such paragraph you can see: remove it); each quoted span is quote (verbatim),
    paraphrase or drifted (fix it or drop the quote marks)."""
    return svc.verify_citations(user, a.recall_id, a.answer)


@tool("read")
def overview_members(svc: Tabane, user: Principal, a: OverviewArgs) -> OverviewMembers:
    """What an overview in the evidence summarizes: an item cited `overview L.O` (a RAPTOR node
    of `context`) has members, nearest its centre first, each resolved to the paragraph (source
    id, paragraph, title, text), note (claim id) or lower overview it names, so you can read
    and cite the passages themselves. Members gone since the build, or not yours to see, read
    `missing`. No such overview: `no_node`."""
    return OverviewMembers(list(svc.raptor_members(user, a.context, a.level, a.ordinal)))


@tool("read")
def assemble_evidence(svc: Tabane, user: Principal, a: RecallIn) -> EvidencePackage:
    """`recall`'s bundle as data (Taguru's evidence package): each served item in the rendered
    order with its `rank`, text, citation and the `lanes` that found it, the budget used, what
    was found but `cut` (duplicate, cut_by_budget, …), each lane's report and the walk's seeds.
    Same arguments and same evidence as `recall`, no second ranking; `recall_id` names it."""
    return svc.assemble_evidence(user, a.to_request())


@tool("read")
def retrieve(svc: Tabane, user: Principal, a: RetrieveArgs) -> Retrieval:
    """Names to evidence in one call (Taguru's `retrieve`): each of `origins` (entity names you
    picked out of the question, not the question) is resolved in `context` and its best
    candidate becomes an anchor (`resolved` keeps every candidate with its gloss: check the
    pick), then one recall of `context` asks the anchors and `query`, its walk starting there.
    Answers `associations` (claims and edges), `passages` (paragraphs) and `other` (derived,
    turns), each item cited, in recall's order."""
    return svc.retrieve(
        user,
        a.context,
        a.origins,
        a.to_request(),
        auto_pick=a.auto_pick,
        resolve_limit=a.resolve_limit,
    )
