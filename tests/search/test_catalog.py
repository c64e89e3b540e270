"""`search_catalog` (issue 34, item 1): which documents there are about X — sources by title and
by paragraph BM25, fused, each once, with title, area, state, date and snippet; `*`, `all` or an
empty query browses every visible source in a stable order, capped and paged. Over the service,
real HTTP and the CLI (MCP: tests/mcp/test_catalog_tool.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from tabane.api.app import create_app
from tabane.cli.main import app
from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.search.catalog.catalog import CatalogRequest
from tabane.service import Tabane

from helpers import serve

DOCS = {
    "kettle.md": ("Kettle care", ["Descale the kettle with vinegar.", "Boil fresh water."]),
    "espresso.md": ("Espresso machine", ["Backflush the espresso machine weekly."]),
    "garden.md": ("Garden", ["Water the tomatoes; the kettle is not for the garden."]),
    "budget.md": ("Kitchen budget", ["A new kettle costs 40 euros."]),
}


@pytest.fixture
def shelf(svc: Tabane, user: Principal, make_context: Callable[..., str]) -> tuple[str, str]:
    home, work = make_context(), make_context()
    for sid, (title, texts) in DOCS.items():
        ctx = work if sid == "budget.md" else home
        doc = DocumentInput(sid, paragraphs=[block(t) for t in texts], title=title,
                            area="Home" if ctx == home else None, date="2026-01-02")  # fmt: skip
        svc.ingest(user, ctx, doc)
    return home, work


def test_sources_by_title_and_paragraphs_each_once(svc: Tabane, user, shelf) -> None:
    home, work = shelf
    got = svc.search_catalog(user, CatalogRequest("kettle", (home, work)))
    ids = [h.source_id for h in got.hits]
    assert ids[0] == "kettle.md"  # its title and its paragraphs: both lanes
    assert sorted(ids) == ["budget.md", "garden.md", "kettle.md"]  # once each; no espresso
    first = got.hits[0]
    assert (first.title, first.area, first.context) == ("Kettle care", "Home", home)
    assert [lane.lane for lane in first.lanes] == ["title", "bm25"]
    assert first.snippet == "Descale the kettle with vinegar." and first.paragraph == 0
    assert first.date is not None and first.date.year == 2026
    assert got.plan.mode == "search" and got.plan.total == 3 and got.plan.next_offset is None
    page = svc.search_catalog(user, CatalogRequest("kettle", (home, work), limit=2))
    assert [h.source_id for h in page.hits] == ids[:2] and page.plan.next_offset == 2
    rest = svc.search_catalog(user, CatalogRequest("kettle", (home, work), limit=2, offset=2))
    assert [h.source_id for h in rest.hits] == ids[2:]


@pytest.mark.parametrize("query", ["*", "all", "  ", "ALL"])
def test_browse_lists_every_visible_source(svc: Tabane, user, make_user, shelf, query) -> None:
    home, work = shelf
    got = svc.search_catalog(user, CatalogRequest(query, (home, work), limit=3))
    assert got.plan.mode == "browse" and got.plan.total == 4 and got.plan.next_offset == 3
    expected = sorted((c, s) for s, c in [("budget.md", work)] + [
        (s, home) for s in DOCS if s != "budget.md"])  # fmt: skip
    listed = [(h.context, h.source_id) for h in got.hits]
    more = svc.search_catalog(user, CatalogRequest(query, (home, work), limit=3, offset=3))
    listed += [(h.context, h.source_id) for h in more.hits]
    assert listed == expected  # (context, source id) order, paged without gaps
    stranger = make_user()
    with pytest.raises(Exception) as hidden:  # another user's contexts are not there at all
        svc.search_catalog(stranger, CatalogRequest("*", (home,)))
    assert getattr(hidden.value, "code", None) == "no_context"


def test_bad_requests_are_refused() -> None:
    for request, path in [
        (CatalogRequest("x"), "contexts"),
        (CatalogRequest("x", ("c",), limit=0), "limit"),
        (CatalogRequest("x", ("c",), offset=-1), "offset"),
    ]:
        with pytest.raises(InvalidInput) as bad:
            request.check()
        assert [i.path for i in bad.value.issues] == [path]


@pytest.mark.slow
def test_http_and_cli(svc: Tabane, user: Principal, shelf, tabane_home: Path) -> None:
    home, _ = shelf
    with serve(create_app(svc, lambda request: user)) as url:
        got = httpx.post(f"{url}/catalog/search", json={"query": "kettle", "contexts": [home]})
        assert got.status_code == 200, got.text
        body = got.json()
        assert [h["source_id"] for h in body["hits"]] == ["kettle.md", "garden.md"]
        assert body["plan"]["mode"] == "search" and body["hits"][0]["area"] == "Home"
        bad = httpx.post(f"{url}/catalog/search", json={"query": "x", "contexts": [home],
                                                         "limit": 0})  # fmt: skip
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_input"
    env = {"TABANE_HOME": str(tabane_home), "TABANE_USER": user.name,
           "TABANE_EMBEDDER": "none", "TABANE_WORKER": "off"}  # fmt: skip
    ran = CliRunner().invoke(app, ["catalog", "espresso", "-c", home, "--json"], env=env)
    assert ran.exit_code == 0, ran.stderr
    assert [h["source_id"] for h in json.loads(ran.stdout)["hits"]] == ["espresso.md"]
    why = ["catalog", "espresso", "-c", home, "--explain", "kettle.md", "--json"]
    ran = CliRunner().invoke(app, why, env=env)
    assert ran.exit_code == 0, ran.stderr
    assert json.loads(ran.stdout)["verdict"] == "not_found"
    with serve(create_app(svc, lambda request: user)) as url:
        body = {"query": "kettle", "contexts": [home], "expected": {"source_id": "garden.md"}}
        got = httpx.post(f"{url}/catalog/search/explain", json=body)
    assert got.status_code == 200, got.text
    assert (got.json()["verdict"], got.json()["position"]) == ("served", 2)


@pytest.mark.slow
def test_the_explain_twin_says_why(svc: Tabane, user, make_user, make_context, shelf) -> None:
    home, work = shelf
    ask = CatalogRequest("kettle", (home, work), limit=1)
    ranked = [
        h.source_id for h in svc.search_catalog(user, CatalogRequest("kettle", (home, work))).hits
    ]

    def why(request: CatalogRequest, ctx: str, sid: str):
        return svc.explain_catalog(user, request, ctx, sid)

    first = why(ask, home, "kettle.md")
    assert (first.verdict, first.position) == ("served", 1)
    assert [lane.lane for lane in first.lanes] == ["title", "bm25"]
    third = ranked[2]
    later = why(ask, work if third == "budget.md" else home, third)
    assert (later.verdict, later.position, later.offset_to_reach) == ("other_page", 3, 2)
    assert why(ask, home, "espresso.md").verdict == "not_found"
    assert why(ask, home, "nothing.md").verdict == "not_stored"
    other = make_context()
    assert why(ask, other, "kettle.md").verdict == "not_stored"  # no such source there
    svc.ingest(user, other, DocumentInput("k.md", paragraphs=[block("kettle")]))
    assert why(ask, other, "k.md").verdict == "context_not_searched"
    svc.retract(user, home, "garden.md")
    assert why(ask, home, "garden.md").verdict == "retracted"
    listed = svc.search_catalog(user, CatalogRequest("*", (home, work), limit=50)).hits
    at = 1 + [h.source_id for h in listed].index("budget.md")
    browse = why(CatalogRequest("*", (home, work), limit=1, offset=at - 1), work, "budget.md")
    assert (browse.verdict, browse.position) == ("served", at)  # browse's own order
    stranger = make_user()
    theirs = make_context(stranger)
    hidden = svc.explain_catalog(stranger, CatalogRequest("*", (theirs,)), home, "kettle.md")
    assert hidden.verdict == "not_stored"  # an invisible source is judged as a missing one
