"""A context whose vectors come from another model: the plan says so, a re-embedding is queued,
and once it has run the vector lane answers in the new model's space (never mixed)."""

from __future__ import annotations

import pytest

from tabane.errors import Conflict, NoContext
from tabane.ingest.documents import DocumentInput, block
from tabane.models.openai_embedder import OpenAIEmbedder
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

from fakes.openai_server import FakeOpenAIServer


@pytest.mark.slow
def test_model_change_is_detected_and_reembeds(svc: Tabane, vsvc: Tabane, user, context) -> None:
    texts = ["The kettle boils water.", "Roses want pruning in late winter."]
    vsvc.ingest(user, context, DocumentInput(source_id="a", paragraphs=[block(t) for t in texts]))
    assert vsvc.wait_for_jobs(timeout=120) == 0
    with (
        FakeOpenAIServer(dim=32) as server,
        OpenAIEmbedder(server.url, "fake-model", dim=32) as other,
    ):
        switched = Tabane.build(svc.store, svc.settings, other)
        request = SearchRequest("boiling water", contexts=(context,))
        first = switched.search(user, request)
        lane = first.plan.contexts[0].lanes["vector"]
        assert (lane.ran, lane.reason) == (False, "model_mismatch")
        assert first.hits and all("vector" not in h.lanes for h in first.hits)
        assert switched.search(user, request).plan.contexts[0].pending_embeddings == 1
        assert switched.wait_for_jobs(timeout=60) == 0
        after = switched.search(user, request)
        lane = after.plan.contexts[0].lanes["vector"]
        assert lane.ran and lane.model == "openai:fake-model"
        assert any("vector" in h.lanes for h in after.hits)
    # the original model's vectors are still there and still answer for the default embedder
    again = vsvc.search(user, SearchRequest("boiling water", contexts=(context,)))
    assert again.plan.contexts[0].lanes["vector"].model == "use-multilingual-v3"


@pytest.mark.slow
def test_refresh_embeddings_queues_what_the_model_lacks(
    svc: Tabane, vsvc: Tabane, user, make_user, context
) -> None:
    texts = ["The kettle boils water.", "Roses want pruning in late winter."]
    svc.ingest(user, context, DocumentInput(source_id="a", paragraphs=[block(t) for t in texts]))
    with pytest.raises(Conflict):  # no embedder: nothing to embed with (not a retry later)
        svc.refresh_embeddings(user, context)
    refreshed = vsvc.refresh_embeddings(user, context)
    assert (refreshed.context, refreshed.model, refreshed.sources) == (
        context,
        "use-multilingual-v3",
        1,
    )
    request = SearchRequest("boiling water", contexts=(context,))
    assert vsvc.search(user, request).plan.contexts[0].pending_embeddings == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert vsvc.search(user, request).plan.contexts[0].lanes["vector"].ran
    assert vsvc.refresh_embeddings(user, context).sources == 1  # queued; the job skips them
    assert vsvc.wait_for_jobs(timeout=120) == 0
    with pytest.raises(NoContext):  # another user's context is not there
        vsvc.refresh_embeddings(make_user(), context)


@pytest.mark.slow  # embeds through the worker
def test_refresh_embeddings_over_http(svc: Tabane, vsvc: Tabane, user, make_user, context) -> None:
    from fastapi.testclient import TestClient

    from tabane.api.app import create_app

    svc.ingest(user, context, DocumentInput(source_id="h", paragraphs=[block("Tea steeps.")]))
    path = f"/contexts/{context}/embeddings/refresh"
    with TestClient(create_app(vsvc, principal=lambda request: user)) as client:
        done = client.post(path)
        assert done.status_code == 202
        assert done.json() == {"context": context, "model": "use-multilingual-v3", "sources": 1}
    with TestClient(create_app(svc, principal=lambda request: user)) as client:
        refused = client.post(path)  # no embedder configured
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "conflict"
    other = make_user()
    with TestClient(create_app(vsvc, principal=lambda request: other)) as client:
        hidden = client.post(path)
        assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "no_context"
    assert vsvc.wait_for_jobs(timeout=120) == 0
