"""Lexical fallback: a read whose embedder fails answers from the lanes that can run, and its plan
says which lane was skipped and why (`embedder_unavailable`) — issue 34, the embedder-down case.
The embedder is a real OpenAI-compatible client pointed at a closed port."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabane.cli.main import app
from tabane.ingest.documents import DocumentInput, block
from tabane.models.openai_embedder import OpenAIEmbedder
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest, Tunables
from tabane.search.plan import SearchRequest
from tabane.search.search import embed_query
from tabane.service import Tabane

KETTLE = [
    "To descale the kettle, fill it with water and white vinegar and let it stand for an hour.",
    "The kettle switches itself off when the water boils.",
]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def down_url() -> str:
    return f"http://127.0.0.1:{_closed_port()}/v1"


@pytest.fixture
def down(svc: Tabane, down_url: str) -> Tabane:
    """The test store with an embedder that cannot be reached (no retries: the test is fast)."""
    embedder = OpenAIEmbedder(down_url, "m", dim=8, attempts=1)
    return Tabane.build(svc.store, svc.settings, embedder)


@pytest.fixture
def stored(svc: Tabane, user: Principal, context: str) -> str:
    doc = DocumentInput("kettle.md", paragraphs=[block(t) for t in KETTLE], title="Kettle")
    svc.ingest(user, context, doc)
    return context


def test_the_query_vector_says_why_it_is_missing(down: Tabane) -> None:
    qv = embed_query(down.embedder, "descale the kettle")
    assert qv.vector is None and qv.reason == "embedder_unavailable"


def test_recall_answers_from_the_lexical_lanes(down: Tabane, user: Principal, stored: str) -> None:
    result = down.recall(user, RecallRequest("How do I descale the kettle?", (stored,)))
    assert "vinegar" in result.items[0].text
    lanes = result.trace.lanes
    assert lanes["bm25"].ran and lanes["bm25"].hits >= 1
    assert not lanes["vector"].ran and lanes["vector"].reason == "embedder_unavailable"


def test_search_answers_from_bm25(down: Tabane, user: Principal, stored: str) -> None:
    got = down.search(user, SearchRequest("descale the kettle", contexts=(stored,)))
    assert "vinegar" in got.hits[0].text
    plan = got.plan.contexts[0]
    assert plan.lanes["vector"].reason == "embedder_unavailable"


@pytest.mark.slow
def test_the_cli_recall_with_a_preset_answers(
    tabane_home: Path, user: Principal, stored: str, down_url: str, tmp_path: Path
) -> None:
    presets = tmp_path / "presets.toml"
    presets.write_text(f'[presets.chat]\ncontexts = ["{stored}"]\noverview = true\n')
    env = {
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_WORKER": "off",
        "TABANE_EMBEDDER": "openai",
        "TABANE_EMBED_URL": down_url,
        "TABANE_EMBED_MODEL": "m",
        "TABANE_PRESETS": str(presets),
    }
    ask = ["recall", "How do I descale the kettle?", "--preset", "chat"]
    result = CliRunner().invoke(app, [*ask, "--json"], env=env)
    assert result.exit_code == 0, result.stderr
    got = json.loads(result.stdout)
    assert "vinegar" in got["items"][0]["text"]
    assert got["trace"]["lanes"]["vector"] == {
        "ran": False, "hits": 0, "reason": "embedder_unavailable",
    }  # fmt: skip
    assert got["overview"]  # the corpus map lands without the embedder


@pytest.mark.slow
def test_a_failing_reranker_orders_nothing_and_says_so(
    svc: Tabane, user: Principal, stored: str
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    down = Tabane.build(svc.store, replace(svc.settings, reranker="http", rerank_url=url), None)
    ask = RecallRequest("How do I descale the kettle?", (stored,))
    result = down.recall(user, ask, tunables=Tunables(max_items=1))
    assert "vinegar" in result.items[0].text
    assert any(n.startswith("reranker_unavailable:") for n in result.trace.notes)
    cut = [c for c in result.trace.candidates if c.position > 1]
    assert cut and {c.outcome for c in cut} == {"cut_by_max_items"}  # no reranker cut them
    assert all(c.rerank is None for c in result.trace.candidates)
