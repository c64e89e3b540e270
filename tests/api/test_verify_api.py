"""`POST /citations/verify` over real HTTP (uvicorn on a free port): each citation judged against
the stored recall and the caller's view — an invisible source exactly like a nonexistent one —
each quote against the cited paragraph, another user's recall `no_trace`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
QUESTION = "how do I remove limescale with vinegar?"


def _doc(source_id: str, texts: list[str], title: str) -> DocumentInput:
    return DocumentInput(source_id=source_id, paragraphs=[block(t) for t in texts], title=title)


@pytest.mark.slow
def test_citations_and_quotes_are_judged_against_the_recall_and_the_callers_view(
    svc: Tabane,
    user: Principal,
    stranger: Principal,
    make_context: Callable[..., str],
    http: dict[str, httpx.Client],
) -> None:
    read, other_mine, theirs = make_context(), make_context(), make_context(stranger)
    svc.ingest(user, read, _doc("kettle", KETTLE, "Kettle"))
    svc.ingest(user, other_mine, _doc("garden", ["Roses want sun and little water."], "Garden"))
    svc.ingest(stranger, theirs, _doc("secret", ["The vault code is under the mat."], "Secret"))
    me, other = http["me"], http["other"]
    asked = me.post("/recall", json={"question": QUESTION, "contexts": [read]}).json()
    served = {(i["citation"]["source"], i["citation"]["paragraph"]) for i in asked["items"]}
    assert ("kettle", 1) in served and ("garden", 0) not in served
    first = asked["items"][0]["citation"]
    assert (first["source"], first["paragraph"]) == ("kettle", 1)

    answer = (
        'Use: "Descale the  heating element with vinegar" ("Kettle" (kettle), paragraph 1).\n'
        'So "descale the element using vinegar each month" ("Kettle" (kettle), paragraph 1).\n'
        'It "runs on solar power" ("Kettle" (kettle), paragraph 1).\n'
        'Roses "want sun" ("Garden" (garden), paragraph 0).\n'
        'The "vault code is under the mat" ("Secret" (secret), paragraph 0).\n'
        'And "vault code is under the mat" ("Nothing" (nosuch), paragraph 0).\n'
        "Beyond the end: (kettle), paragraph 9.\n"
        'By number: "Descale the heating element" [1], and [99].'
    )
    got = me.post("/citations/verify", json={"recall_id": asked["recall_id"], "answer": answer})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["recall_id"] == asked["recall_id"]
    assert [(c["source"], c["paragraph"], c["verdict"]) for c in body["citations"]] == [
        ("kettle", 1, "surfaced"),
        ("kettle", 1, "surfaced"),
        ("kettle", 1, "surfaced"),
        ("garden", 0, "unsurfaced_known"),
        ("secret", 0, "unknown"),  # the stranger's: exactly as a source that does not exist
        ("nosuch", 0, "unknown"),
        ("kettle", 9, "unknown"),
        ("kettle", 1, "surfaced"),  # [1]: the first item served
        (None, None, "unknown"),  # [99]: no such item
    ]
    assert [c["index"] for c in body["citations"][-3:]] == [None, 1, 99]
    assert body["citations"][0]["text"] == '"Kettle" (kettle), paragraph 1'
    quotes = [(q["source"], q["verdict"]) for q in body["quotes"]]
    assert quotes == [
        ("kettle", "quote"),  # whitespace folded
        ("kettle", "paraphrase"),
        ("kettle", "drifted"),
        ("garden", "quote"),
        ("secret", "drifted"),  # nothing to match: the same answer as for `nosuch`
        ("nosuch", "drifted"),
        ("kettle", "quote"),  # against [1]'s paragraph
    ]
    assert body["quotes"][4]["overlap"] == body["quotes"][5]["overlap"] == 0.0

    _error(other.post("/citations/verify", json={"recall_id": asked["recall_id"], "answer": "x"}),
           404, "no_trace")  # fmt: skip
    _error(me.post("/citations/verify", json={"recall_id": 2**40, "answer": "x"}), 404, "no_trace")
    _error(me.post("/citations/verify", json={"recall_id": asked["recall_id"], "answer": " "}),
           422, "invalid_input", "body.answer")  # fmt: skip
    _error(me.post("/citations/verify", json={"recall_id": "a", "answer": "x"}),
           422, "invalid_input", "body.recall_id")  # fmt: skip


def _error(response: httpx.Response, status: int, code: str, *paths: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    err: dict[str, Any] = response.json()["error"]
    assert (err["code"], err["written"]) == (code, "nothing"), err
    assert set(paths) <= {i["path"] for i in err["issues"]}, err
    return err
