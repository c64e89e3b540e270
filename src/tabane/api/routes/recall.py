"""`POST /recall`, its explain twin `POST /recall/explain`, and `GET /recall/traces/{recall_id}`:
each route is one facade call acting for the authenticated user (never a body field)."""

from __future__ import annotations

from fastapi import APIRouter

from tabane.api.deps import Svc, User
from tabane.api.tracing import recall_spans
from tabane.wire.base import ERROR_RESPONSES, ErrorBody, out
from tabane.wire.evidence import EvidencePackage, Retrieval, RetrieveIn
from tabane.wire.recall import (
    EvidenceOut,
    PresetOut,
    PresetsOut,
    RecallAsk,
    RecallExplainIn,
    RecallExplanationOut,
    RecallIn,
    RecallOut,
    StoredTraceOut,
    TraceOut,
    VerifyIn,
    VerifyOut,
)

RESPONSES: dict[int | str, dict[str, object]] = {
    **ERROR_RESPONSES,
    404: {
        "model": ErrorBody,
        "description": "unknown or invisible context, group, preset, session or trace "
        "(`no_context`, `no_group`, `no_preset`, `no_session`, `no_trace`)",
    },
}

router = APIRouter(tags=["recall"], responses=RESPONSES)


@router.post("/recall")
def recall(body: RecallAsk, svc: Svc, user: User) -> RecallOut:
    """The evidence for `question` that you may see, from every lane (paragraphs by BM25, vector
    and title; claims; the graph walk; your session's turns; the catalog), ordered, cut to the
    token budget, cited and rendered to one prompt-ready string. `recall_id` names the stored
    trace; with `trace: true` the trace rides along. A trivial turn ("hi") is answered with no
    evidence unless `force` (the trace's `gate` says why)."""
    result = svc.recall(user, body.to_request())
    recall_spans(result.trace)  # OpenTelemetry, when on (api/tracing.py)
    return RecallOut(
        question=result.question,
        recall_id=result.recall_id,
        rendered=result.rendered,
        items=[out(EvidenceOut, item) for item in result.items],
        overview=result.overview,
        unsupported=result.unsupported,
        trace=out(TraceOut, result.trace) if body.trace else None,
    )


@router.post("/recall/explain")
def explain_recall(body: RecallExplainIn, svc: Svc, user: User) -> RecallExplanationOut:
    """Why `expected` (a source's paragraph, or a claim) is or is not in the evidence of this
    recall: the first verdict that applies, from the same statement, ordering and budget:
    `not_visible` (also anything you cannot see), `closed` (a claim closed by a newer one or
    retracted: recall reads current claims only), `gated`, `not_found` (with each lane's rank
    under a wide pool), `below_candidates`, `answered` (it asks; its reply took its place),
    `duplicate`, `cut_by_rerank`, `cut_by_max_items`, `cut_by_budget`, `unsupported` (it says
    what the question asks of someone else, and nothing says it of whom it asks about) or
    `served`."""
    expected = body.expected.to_expected()
    return out(RecallExplanationOut, svc.explain_recall(user, body.to_request(), expected))


@router.get("/presets")
def presets(svc: Svc, user: User) -> PresetsOut:
    """The recall presets this server was started with, by name (`preset` in a recall picks
    one): each one's description, budget, template file, gate and corpus map, and the contexts
    and groups it reads that you can see."""
    return PresetsOut(presets=[out(PresetOut, p) for p in svc.presets(user)])


@router.get("/recall/traces/{recall_id}")
def recall_trace(recall_id: int, svc: Svc, user: User) -> StoredTraceOut:
    """A stored recall trace: who asked what, when, and what every lane did. Only its asker can
    read it; any other id answers 404 `no_trace`, as an unknown one does."""
    return out(StoredTraceOut, svc.recall_trace(user, recall_id))


@router.post("/citations/verify")
def verify_citations(body: VerifyIn, svc: Svc, user: User) -> VerifyOut:
    """An answer checked against one of your recalls (`recall_id`): each citation (`"Title"
    (source_id), paragraph N`, or an item number `[N]`) `surfaced` (that recall served it),
    `unsurfaced_known` (it exists and you can see it, but that recall did not serve it) or
    `unknown` (no such paragraph or item, or one you cannot see: judged alike); each quoted
    span `quote` (verbatim after whitespace and NFKC folding), `paraphrase` (most of its words)
    or `drifted`. Another user's recall is 404 `no_trace`, as an unknown one."""
    return out(VerifyOut, svc.verify_citations(user, body.recall_id, body.answer))


@router.post("/recall/evidence")
def assemble_evidence(body: RecallIn, svc: Svc, user: User) -> EvidencePackage:
    """One recall's bundle as data (Taguru's `assemble_evidence`): each served item in the
    rendered order with its `rank`, citation and the `lanes` that found it, the tokens used of
    the budget, the candidates found but `cut` by outcome, each lane's report and the walk's
    seeds. The same evidence as `POST /recall` with the same body; nothing is ranked again."""
    return svc.assemble_evidence(user, body.to_request())


@router.post("/contexts/{context}/retrieve")
def retrieve(context: str, body: RetrieveIn, svc: Svc, user: User) -> Retrieval:
    """Taguru's `retrieve` over recall: each of `origins` resolved in the context (its best
    candidate is its anchor; `resolved` keeps every candidate and gloss), then one recall of
    the context asking the anchors and `query`, whose walk starts at the anchors; its items
    as `associations` (claims, edges), `passages` (paragraphs) and `other`, each cited."""
    return svc.retrieve(
        user,
        context,
        body.origins,
        body.to_request(),
        auto_pick=body.auto_pick,
        resolve_limit=body.resolve_limit,
    )
