"""Navigation grounding in recall (issue 34, item 2): a question that asks where something is
written down gets the catalog search's documents as their own lane (`navigation`), named in the
bundle as "the document … (source id)"; the trace says the question was read as navigation and
what subject was distilled, and the explain twin knows the lane. Over the service, real HTTP and
MCP (in memory and streamable HTTP)."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client
from mcp_client import connect, ok

from tabane.api.app import create_app
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.recall.trace import trace_from_json, trace_json
from tabane.service import Tabane

from helpers import serve

DOCS = {
    "ops/backups.md": (
        "Backup rotation",
        [
            "Nightly snapshots are kept for fourteen days, then the weekly ones for a year.",
            "Rotation runs at two in the morning; a failed run pages the on-call engineer.",
        ],
    ),
    "ops/proxy.md": ("Proxy", ["The proxy forwards requests to the application servers."]),
    "hr/leave.md": ("Leave policy", ["Annual leave is requested through the portal."]),
}
QUESTION = "Where is the backup rotation documented?"


def _ingest(svc: Tabane, user: Principal, context: str) -> None:
    for sid, (title, texts) in DOCS.items():
        svc.ingest(
            user, context, DocumentInput(sid, paragraphs=[block(t) for t in texts], title=title)
        )


def test_a_navigation_question_gets_the_document_as_its_own_lane(
    svc: Tabane, user: Principal, context: str
) -> None:
    _ingest(svc, user, context)
    result = svc.recall(user, RecallRequest(QUESTION, (context,), force=True))
    nav = result.trace.navigation
    assert nav is not None and nav.subject == "backup rotation" and nav.facet is None
    assert result.trace.lanes["navigation"].ran and result.trace.lanes["navigation"].hits >= 1
    docs = [it for it in result.items if it.kind == "catalog"]
    assert docs and docs[0].citation.source == "ops/backups.md"
    assert docs[0].text == 'the document "Backup rotation" (ops/backups.md)'
    assert 'the document "Backup rotation" (ops/backups.md)' in result.rendered
    first = next(c for c in result.trace.candidates if c.key == docs[0].key)
    assert first.lanes[0].lane == "navigation" and first.lanes[0].rank == 1
    # the stored trace reads back with the navigation it says
    assert trace_from_json(trace_json(result.trace)).navigation == nav


def test_another_question_does_not_run_the_lane(svc: Tabane, user: Principal, context: str) -> None:
    _ingest(svc, user, context)
    result = svc.recall(user, RecallRequest("How long are nightly snapshots kept?", (context,)))
    assert result.trace.navigation is None
    lane = result.trace.lanes["navigation"]
    assert (lane.ran, lane.reason) == (False, "not_navigation")
    assert not [it for it in result.items if it.kind == "catalog"]


def test_the_plan_without_the_lane_reads_no_document(
    svc: Tabane, user: Principal, context: str
) -> None:
    _ingest(svc, user, context)
    request = RecallRequest(QUESTION, (context,), force=True, plan="maximal_without_navigation")
    result = svc.recall(user, request)
    assert result.trace.lanes["navigation"].reason == "not_in_plan"
    assert result.trace.navigation is None
    assert not [it for it in result.items if it.kind == "catalog"]


def test_the_explain_twin_knows_the_lane(svc: Tabane, user: Principal, context: str) -> None:
    # only the title names the document: no paragraph of it holds the question's words
    doc = DocumentInput(
        "ops/dr.md", paragraphs=[block("Call the vendor first; the tapes are offsite.")],
        title="Disaster recovery",
    )  # fmt: skip
    svc.ingest(user, context, doc)
    request = RecallRequest("Where is disaster recovery described?", (context,), force=True)
    got = svc.explain_recall(user, request, Expected(context, "ops/dr.md"))
    assert got.verdict == "served", got
    result = svc.recall(user, request)
    served = {it.key: it for it in result.items}
    assert got.key in served
    assert any(
        lr.lane == "navigation" for c in result.trace.candidates for lr in c.lanes
        if c.key.startswith("s:")
    )  # fmt: skip


def test_an_invisible_document_is_not_offered(
    svc: Tabane, user: Principal, make_user, make_context
) -> None:
    owner_ctx = make_context()
    _ingest(svc, user, owner_ctx)
    stranger = make_user()
    mine = make_context(owner=stranger)
    result = svc.recall(stranger, RecallRequest(QUESTION, (mine,), force=True))
    assert result.trace.navigation is not None
    assert result.trace.lanes["navigation"].hits == 0
    assert "ops/backups.md" not in result.rendered


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "http"])
def test_mcp_recall_says_the_navigation(
    svc: Tabane, user: Principal, context: str, transport: str
) -> None:
    _ingest(svc, user, context)

    async def body(c: Client) -> None:
        args = {"question": QUESTION, "contexts": [context], "items": True, "force": True}
        got = await ok(c, "recall", args)
        assert 'the document "Backup rotation" (ops/backups.md)' in got["rendered"]
        trace = await ok(c, "recall_trace", {"recall_id": got["recall_id"]})
        assert trace["trace"]["navigation"]["subject"] == "backup rotation", trace

    connect(svc, user, body, transport)


@pytest.mark.slow
def test_http_recall_trace_says_the_navigation(svc: Tabane, user: Principal, context: str) -> None:
    _ingest(svc, user, context)
    with serve(create_app(svc, lambda request: user)) as base:
        body = {"question": QUESTION, "contexts": [context], "trace": True, "force": True}
        got = httpx.post(f"{base}/recall", json=body)
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["trace"]["navigation"] == {
        "cue": "Where is the backup rotation documented",
        "subject": "backup rotation",
        "facet": None,
    }
    assert body["trace"]["lanes"]["navigation"]["ran"] is True
    assert 'the document "Backup rotation" (ops/backups.md)' in body["rendered"]


def test_a_project_asked_for_is_ranked_by_the_navigation_lane_alone(
    svc: Tabane, user: Principal, context: str
) -> None:
    # a project (area and active state) the question asks for: without the exclusion its
    # catalog rank and its navigation rank added up and it went ahead of the better document
    _ingest(svc, user, context)
    drill = DocumentInput(
        "desk/drill.md", paragraphs=[block("Friday: test the backup rotation on staging.")],
        title="Backup rotation drill", area="Ops", state="active",
    )  # fmt: skip
    svc.ingest(user, context, drill)
    result = svc.recall(user, RecallRequest("Where is the backup rotation documented?", (context,)))
    docs = {c.key: [lr.lane for lr in c.lanes] for c in result.trace.candidates}
    project = next(it.key for it in result.items if it.citation.source == "desk/drill.md"
                   and it.kind == "catalog")  # fmt: skip
    assert docs[project] == ["navigation"], docs
    assert not [k for k, lanes in docs.items() if {"catalog", "navigation"} <= set(lanes)]
