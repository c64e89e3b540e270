"""The web inspector at /ui, read as HTML by a parser: each page shows what the API would show
its user and nothing of anyone else's, stored text stays text, and a refusal is a page with the
API's error code."""

from __future__ import annotations

from collections.abc import Callable

import lxml.html
import pytest
from fastapi.testclient import TestClient

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.graph.claims.parse import ClaimInput
from tabane.graph.edges import Edge
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane
from tabane.web import neighbourhood

HOSTILE = "The kettle <script>alert(1)</script> boils <img src=x onerror=alert(2)> water."


def client(svc: Tabane, who: Principal) -> TestClient:
    return TestClient(create_app(svc, principal=lambda request: who))


def html(response) -> lxml.html.HtmlElement:
    assert response.headers["content-type"].startswith("text/html")
    return lxml.html.fromstring(response.text)


def kitchen(svc: Tabane, owner: Principal, context: str) -> None:
    svc.ingest(owner, context, DocumentInput("kettle.md", data=f"# Kettle\n\n{HOSTILE}\n".encode()))
    svc.add_claims(
        owner,
        context,
        [
            ClaimInput("kettle", "boils", "water", 1.0, source="kettle.md", paragraph=0),
            ClaimInput("kettle", "is not", "teapot", -1.0),
        ],
    )


@pytest.mark.slow
def test_the_contexts_page_lists_what_its_reader_may_see_with_stats_and_usage(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = make_context(alice), make_context(bob)
    kitchen(svc, alice, mine)
    doc = html(client(svc, alice).get("/ui"))
    rows = {r.xpath("string(td[1])"): r for r in doc.xpath("//table//tr[td]")}
    assert mine in rows and theirs not in rows
    cells = [td.text_content() for td in rows[mine].xpath("td")]
    assert cells[3:7] == ["1", "1", "3", "2"]  # sources, paragraphs, concepts, edges
    assert rows[mine].xpath("td[1]/a/@href") == [f"/ui/contexts/{mine}"]


def test_stored_text_stays_text_and_no_page_can_run_a_script(
    svc: Tabane, user: Principal, context: str
) -> None:
    kitchen(svc, user, context)
    ui = client(svc, user)
    for url in (
        f"/ui/contexts/{context}/source?id=kettle.md",
        f"/ui/search?q=kettle&context={context}",
        f"/ui/recall?q=what+does+the+kettle+boil&context={context}&force=on",
    ):
        answer = ui.get(url)
        assert answer.status_code == 200, answer.text
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        doc = html(answer)
        assert doc.xpath("//script | //img | //*[@onerror]") == []
        assert "<script>alert(1)</script>" in doc.text_content()


def test_the_search_page_shows_each_hit_with_its_lanes_and_the_plan(
    svc: Tabane, user: Principal, context: str
) -> None:
    kitchen(svc, user, context)
    doc = html(client(svc, user).get(f"/ui/search?q=kettle+water&context={context}"))
    hits = doc.xpath("//div[@class='hit']")
    assert len(hits) == 1
    assert hits[0].xpath(".//a/@href") == [f"/ui/contexts/{context}/source?id=kettle.md#p0"]
    assert "bm25 #1" in hits[0].text_content()
    plan = {
        tuple(td.text_content() for td in row.xpath("td")[1:3]): row.xpath("string(td[7])")
        for row in doc.xpath("//h2[.='Plan']/following-sibling::table[1]//tr[td]")
    }
    assert plan[("bm25", "yes")] == ""
    assert plan[("vector", "no")]  # why it did not run: this store has no embedder


@pytest.mark.slow
def test_the_recall_page_shows_the_bundle_and_its_trace_and_the_trace_is_the_askers(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    context = make_context(alice)
    kitchen(svc, alice, context)
    answer = client(svc, alice).get(f"/ui/recall?q=what+does+the+kettle+boil&context={context}")
    doc = html(answer)
    bundle = doc.xpath("string(//pre)")
    again = svc.recall(alice, RecallRequest("what does the kettle boil", contexts=(context,)))
    assert bundle == again.rendered and HOSTILE in bundle
    lanes = [
        row.xpath("string(td[1])")
        for row in doc.xpath("//h2[.='Lanes']/following-sibling::table[1]//tr[td]")
    ]
    assert {"vector", "bm25", "title", "walk"} <= set(lanes)
    served = [
        r
        for r in doc.xpath("//h2[.='Candidates']/following-sibling::table[1]//tr[td]")
        if r.xpath("string(td[4])") == "served"
    ]
    assert served
    link = doc.xpath("//a[starts-with(@href, '/ui/traces/')]/@href")
    assert len(link) == 1
    assert client(svc, alice).get(link[0]).status_code == 200
    theirs = client(svc, bob).get(link[0])
    assert theirs.status_code == 404 and "no_trace" in html(theirs).xpath("string(//h1)")
    listed = html(client(svc, alice).get("/ui")).xpath(
        "//a[starts-with(@href, '/ui/traces/')]/@href"
    )
    assert listed[:2] == [f"/ui/traces/{again.trace.id}", link[0]]  # the newest first
    assert html(client(svc, bob).get("/ui")).xpath("//a[starts-with(@href, '/ui/traces/')]") == []


@pytest.mark.slow
def test_a_concepts_neighbourhood_is_drawn_with_a_link_to_each_neighbour(
    svc: Tabane, user: Principal, context: str
) -> None:
    kitchen(svc, user, context)
    url = f"/ui/contexts/{context}/concept?name=kettle"
    first, second = client(svc, user).get(url), client(svc, user).get(url)
    assert first.text == second.text  # the same graph draws the same picture
    svg = html(first).xpath("//svg")[0]
    assert len(svg.xpath(".//circle")) == 3
    assert sorted(svg.xpath(".//a/@href")) == [
        f"/ui/contexts/{context}/concept?name=teapot",
        f"/ui/contexts/{context}/concept?name=water",
    ]
    dashed = svg.xpath(".//line[@stroke-dasharray]/title")
    assert [t.text for t in dashed] == ["kettle is not teapot (-1.0)"]


def test_refusals_are_pages_with_the_apis_code_and_issues(
    svc: Tabane, user: Principal, context: str
) -> None:
    kitchen(svc, user, context)
    ui = client(svc, user)
    for url, status, code, where in (
        ("/ui/contexts/nowhere", 404, "no_context", "context"),
        (f"/ui/contexts/{context}/source?id=kettle.md&offset=x", 422, "invalid_input", "offset"),
        (f"/ui/contexts/{context}/concept?name=kettel", 404, "no_concept", None),
        ("/ui/recall?q=", 422, "invalid_input", "question"),
        ("/ui/traces/0", 422, "invalid_input", "trace_id"),
    ):
        answer = ui.get(url)
        assert answer.status_code == status, (url, answer.text)
        doc = html(answer)
        assert doc.xpath("string(//h1)") == code
        if where is not None:
            assert where in [c.text_content() for c in doc.xpath("//td/code")], url


@pytest.mark.parametrize("count", [3, 30])
def test_the_layout_is_a_circle_of_the_strongest_neighbours(count: int) -> None:
    edges = [Edge("c", "hub", "x", f"n{i:02d}", float(i + 1), 1) for i in range(count)]
    drawing = neighbourhood.layout("hub", edges)
    drawn = [n for n in drawing.nodes if not n.centre]
    assert len(drawn) == min(count, neighbourhood.MAX_NEIGHBOURS)
    assert drawing.left_out == count - len(drawn)
    assert drawn[0].name == f"n{count - 1:02d}"  # the strongest first, at the top
    cx, cy = neighbourhood.WIDTH / 2, neighbourhood.HEIGHT / 2
    for n in drawn:
        assert abs(((n.x - cx) ** 2 + (n.y - cy) ** 2) ** 0.5 - neighbourhood.RADIUS) < 1e-6
    for link in drawing.links:  # rim to rim: an arrow head shows outside both circles
        start = ((link.x1 - cx) ** 2 + (link.y1 - cy) ** 2) ** 0.5
        assert abs(start - neighbourhood.CENTRE_R) < 1e-6
        end = ((link.x2 - cx) ** 2 + (link.y2 - cy) ** 2) ** 0.5
        assert abs(end - (neighbourhood.RADIUS - neighbourhood.NODE_R)) < 1e-6


@pytest.mark.slow
def test_where_the_server_asks_for_keys_the_inspector_signs_in_with_a_cookie(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice = make_user("alice")
    mine = make_context(alice)
    token = svc.create_key(alice.name).token
    ui = TestClient(create_app(svc, key_resolver(svc)), base_url="http://127.0.0.1:8477")
    refused = ui.get("/ui")
    assert refused.status_code == 401
    assert html(refused).xpath("//a[@href='/ui/login']")
    wrong = ui.post("/ui/login", data={"token": "tbn_00000000_" + "x" * 43})
    assert wrong.status_code == 401 and "tabane_ui" not in wrong.cookies
    forged = ui.post("/ui/login", data={"token": token}, headers={"origin": "http://evil.example"})
    assert forged.status_code == 403 and "tabane_ui" not in forged.cookies
    signed = ui.post("/ui/login", data={"token": token}, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/ui"
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    doc = html(ui.get("/ui"))  # the client sends the cookie back, as a browser does
    assert mine in [a.text for a in doc.xpath("//td/a")]
    assert doc.xpath("//form[@action='/ui/logout']")
    out = ui.post("/ui/logout", follow_redirects=False)
    assert out.status_code == 303 and 'tabane_ui=""' in out.headers["set-cookie"]
    ui.cookies.clear()
    assert ui.get("/ui").status_code == 401


def test_a_source_page_shows_numbered_and_open_locators(
    svc: Tabane, user: Principal, context: str
) -> None:
    paragraphs = [
        block("Revenue by region.", locator={"kind": "sheet", "value": "Q3!A1:C4"}),
        block("The summary.", locator={"kind": "page", "start": 3}),
        block("The method.", locator={"kind": "line_range", "start": 5, "end": 9}),
    ]
    svc.ingest(user, context, DocumentInput(source_id="q3.xlsx", paragraphs=paragraphs))
    answer = client(svc, user).get(f"/ui/contexts/{context}/source?id=q3.xlsx")
    assert answer.status_code == 200, answer.text
    places = [" ".join(w.split()) for w in html(answer).xpath("//div[@class='where muted']/text()")]
    assert [p.split(" · ")[-1] for p in places] == ["sheet Q3!A1:C4", "page 3", "line_range 5–9"]
