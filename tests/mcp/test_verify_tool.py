"""`verify_citations` through the official MCP client (in memory and over streamable HTTP): an
answer checked against the caller's recall; an invisible source judged like a nonexistent one;
another user's recall `no_trace`."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
]


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "http"])
def test_verify_citations_judges_an_answer_against_its_recall(
    svc: Tabane,
    user: Principal,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    transport: str,
) -> None:
    stranger = make_user()
    mine, theirs = make_context(), make_context(stranger)
    svc.ingest(
        user,
        mine,
        DocumentInput(source_id="kettle", paragraphs=[block(t) for t in KETTLE], title="Kettle"),
    )
    hidden = DocumentInput(
        source_id="hidden", paragraphs=[block("Only the stranger reads this.")], title="Hidden"
    )
    svc.ingest(stranger, theirs, hidden)
    asked = svc.recall(user, RecallRequest("limescale vinegar", contexts=(mine,)))
    theirs_id = svc.recall(stranger, RecallRequest("anything", contexts=(theirs,))).recall_id
    answer = (
        '「Descale the heating element with vinegar」 "Kettle" (kettle), paragraph 1\n'
        '"Only the stranger reads this." in (hidden), paragraph 0\n'
        '"Only the stranger reads this." in (absent), paragraph 0'
    )

    async def body(c: Client) -> None:
        got = await ok(c, "verify_citations", {"recall_id": asked.recall_id, "answer": answer})
        assert [(v["source"], v["verdict"]) for v in got["citations"]] == [
            ("kettle", "surfaced"),
            ("hidden", "unknown"),
            ("absent", "unknown"),
        ]
        assert [(q["verdict"], q["overlap"]) for q in got["quotes"]] == [
            ("quote", 1.0),
            ("drifted", 0.0),
            ("drifted", 0.0),
        ]
        await err(c, "verify_citations", {"recall_id": theirs_id, "answer": "x"}, "no_trace")

    connect(svc, user, body, transport)
