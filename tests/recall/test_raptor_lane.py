"""The RAPTOR lane of recall: a global question is answered from the tree's overviews, a local one
still gets its paragraph first, the narrower plan leaves the overviews out, and the tree is read
and followed down over HTTP."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select, text

from tabane.api.app import create_app
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.ingest.documents import DocumentInput, block
from tabane.recall import gather, statement
from tabane.recall.plan import RecallRequest, Tunables
from tabane.search.search import QueryVector
from tabane.service import Tabane
from tabane.storage.schema import Context

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

TOPICS = {
    "espresso": [
        "Espresso forces hot water through finely ground coffee at nine bars of pressure.",
        "Roast coffee beans until they crack a second time for a dark espresso blend.",
        "A pour-over brew drips hot water slowly over medium ground coffee.",
        "Cold brew coffee steeps in cool water for a whole day before it is filtered.",
        "Grind coffee just before brewing: ground coffee loses its aroma within minutes.",
        "Descale the espresso machine monthly so limescale does not block the boiler.",
        "Steam the milk to sixty degrees for a cappuccino with fine foam.",
        "Arabica coffee grows in the highlands and tastes sweeter than robusta.",
        "Store roasted coffee beans in an airtight tin away from light.",
    ],
    "sailing": [
        "The sailboat tacked into the wind to reach the harbour before the storm.",
        "A jib is the small sail at the front of a sailing boat, ahead of the mast.",
        "Sailors reef the mainsail when the wind grows too strong for full canvas.",
        "The keel keeps a sailboat from drifting sideways when sailing upwind.",
        "Crossing the ocean under sail needs charts, a compass and a weather routing plan.",
        "Coil the mooring lines on deck so nobody trips over them in the marina.",
        "A spinnaker billows ahead of the boat when sailing downwind.",
        "The skipper checks the tide tables before leaving the harbour.",
        "Lifejackets must be worn on deck whenever the yacht is under sail at night.",
    ],
    "postgres": [
        "PostgreSQL stores table rows in pages of eight kilobytes on disk.",
        "An index lets the database find rows without scanning the whole table.",
        "Transactions in the database commit or roll back as a whole unit.",
        "The query planner chooses how the database joins two tables together.",
        "Vacuum reclaims the space left behind by deleted and updated database rows.",
        "Streaming replication copies the database to a standby server continuously.",
        "A foreign key makes the database refuse rows that point at nothing.",
        "Connection pooling keeps the database from starting a process per client.",
        "Back up the database with pg_dump before every schema migration.",
    ],
    "garden": [
        "Tomatoes need full sun and deep watering twice a week in the garden.",
        "Compost feeds the garden soil with rotting leaves and kitchen scraps.",
        "Prune the roses in late winter, just above an outward-facing bud.",
        "Mulch keeps garden beds moist and stops weeds from growing.",
        "Plant garlic cloves in autumn for a harvest the next summer.",
        "Earthworms loosen the garden soil and help plant roots breathe.",
        "Sow lettuce every two weeks so the salad bed never runs out.",
        "Slugs eat young seedlings at night unless the beds are protected.",
        "Water the vegetable garden in the early morning to reduce evaporation.",
    ],
    "astronomy": [
        "Jupiter is the largest planet of the solar system.",
        "A telescope gathers starlight with a large mirror or lens.",
        "The Andromeda galaxy is visible to the naked eye on dark autumn nights.",
        "Saturn's rings are made of ice and rock particles.",
        "A light year is the distance light travels in one year.",
        "The Moon's phases follow its orbit around the Earth every month.",
        "Meteor showers happen when Earth crosses the dust trail of a comet.",
        "Mars looks red because iron oxide covers its dusty surface.",
        "Astronomers measure a star's distance by its parallax across the year.",
    ],
    "baking": [
        "Knead the bread dough for ten minutes until it feels smooth and elastic.",
        "Sourdough rises with wild yeast kept alive in a flour and water starter.",
        "Preheat the oven fully before the cake goes in, or it sinks.",
        "Butter and sugar are creamed together until pale for a light sponge.",
        "A pinch of salt in the dough makes the bread taste of more than flour.",
        "Let the loaf cool on a rack so the crust does not turn soggy.",
        "Proof the croissant dough slowly in the fridge overnight.",
        "Blind bake a tart shell with weights so the pastry does not puff up.",
        "Weigh the flour instead of using cups for bread that comes out the same.",
    ],
}
GLOBAL = "Give me a broad overview: which topics does this collection cover?"


@pytest.fixture
def corpus(vsvc: Tabane, user, context) -> str:
    for name, texts in TOPICS.items():
        vsvc.ingest(
            user,
            context,
            DocumentInput(
                source_id=f"{name}.md", title=f"{name} notes", paragraphs=[block(t) for t in texts]
            ),
        )
    vsvc.wait_for_jobs()
    built = vsvc.build_raptor(user, context)
    assert built.skipped is None and built.leaves == 54 and len(built.nodes) >= 2
    return context


def test_a_global_question_is_answered_from_the_tree_and_a_local_one_from_its_paragraph(
    vsvc: Tabane, user, corpus: str
):
    broad = vsvc.recall(user, RecallRequest(GLOBAL, (corpus,)))
    overviews = [it for it in broad.items if it.kind == "raptor"]
    assert broad.trace.lanes["raptor"].ran and broad.trace.lanes["raptor"].hits >= 1
    assert overviews and overviews[0].provenance == "derived memory"
    assert [s.name for s in overviews[0].scopes] == [f"user:{user.name}"]
    tree = vsvc.raptor_tree(user, corpus)
    root = next(n for n in tree.nodes if n.parent is None)
    assert root.level >= 2  # the lane reads overviews of overviews, never a level-1 cluster
    assert overviews[0].citation.title == f"overview {root.level}.{root.ordinal} of 54 passages"
    assert "[p:" not in overviews[0].text and "[r:" not in overviews[0].text
    assert overviews[0].text.startswith("Topics: ")  # the titles of the sources below it
    assert sum(f"{name} notes" in overviews[0].text for name in TOPICS) >= 3
    assert "raptor" not in broad.rendered  # lane names stay in the trace

    asked = "how often should I descale the espresso machine?"
    local = vsvc.recall(user, RecallRequest(asked, (corpus,)))
    first = local.items[0]  # the passage that answers stands out: the overview ranks below it
    assert first.kind == "paragraph" and first.citation.source == "espresso.md"
    assert "Descale" in first.text


def test_maximal_without_raptor_serves_no_overview(vsvc: Tabane, user, corpus: str):
    without = vsvc.recall(user, RecallRequest(GLOBAL, (corpus,), plan="maximal_without_raptor"))
    assert not [it for it in without.items if it.kind == "raptor"]
    assert without.trace.lanes["raptor"].reason == "not_in_plan"


def test_recall_serves_a_stale_tree_and_says_how_old(vsvc: Tabane, user, corpus: str):
    vsvc.ingest(
        user,
        corpus,
        DocumentInput(source_id="late.md", paragraphs=[block("A late note about tea.")]),
    )
    assert vsvc.raptor_tree(user, corpus).stale
    result = vsvc.recall(user, RecallRequest(GLOBAL, (corpus,)))
    assert [it for it in result.items if it.kind == "raptor"]  # served, never waited for


def test_the_tree_is_read_and_followed_down_over_http(vsvc: Tabane, user, corpus: str):
    app = create_app(vsvc, principal=lambda request: user, limiter=RateLimiter(RateLimits()))
    with TestClient(app) as client:
        headers: dict[str, str] = {}
        tree = client.get(f"/contexts/{corpus}/raptor", headers=headers)
        assert tree.status_code == 200, tree.text
        body = tree.json()
        assert body["built"] and not body["stale"] and body["nodes"]
        top = body["nodes"][0]
        assert top["parent"] is None and top["summary"]
        members = client.get(
            f"/contexts/{corpus}/raptor/{top['level']}/{top['ordinal']}", headers=headers
        )
        assert members.status_code == 200, members.text
        found = members.json()
        assert len(found) == top["size"]
        kinds = {m["kind"] for m in found}
        assert kinds <= {"paragraph", "node"} and "missing" not in kinds
        if "paragraph" in kinds:
            p = next(m for m in found if m["kind"] == "paragraph")
            assert p["source_id"].endswith(".md") and p["text"]
        missing = client.get(f"/contexts/{corpus}/raptor/9/0", headers=headers)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_node"
        assert [i["path"] for i in missing.json()["error"]["issues"]] == ["path.ordinal"]
        bad = client.get(f"/contexts/{corpus}/raptor?level=-1", headers=headers)
        assert bad.status_code == 422 and bad.json()["error"]["issues"][0]["path"] == "query.level"


def test_the_tree_is_built_in_the_background_and_rebuilt_after_a_retraction(
    vsvc: Tabane, user, context
):
    for name in ("espresso", "sailing", "postgres", "garden", "astronomy", "baking"):
        texts = TOPICS[name]
        vsvc.ingest(
            user,
            context,
            DocumentInput(source_id=f"{name}.md", paragraphs=[block(t) for t in texts]),
        )
    vsvc.wait_for_jobs()  # embeddings, then the debounced RAPTOR build queued by them
    tree = vsvc.raptor_tree(user, context)
    assert tree.built and not tree.stale
    assert sum(n.leaves for n in tree.nodes if n.parent is None) == 54
    vsvc.retract(user, context, "baking.md")
    assert vsvc.raptor_tree(user, context).stale
    vsvc.wait_for_jobs()  # the retraction queued a rebuild
    after = vsvc.raptor_tree(user, context)
    assert not after.stale and sum(n.leaves for n in after.nodes if n.parent is None) == 45


def test_an_overview_is_cut_to_its_share_of_the_budget_at_a_sentence_end():
    from tabane.recall.order import fit_share, tokens
    from tabane.recall.result import Citation, Evidence

    def item(kind, text):
        return Evidence(f"{kind[0]}:1", kind, text, "derived memory", Citation(title="t"), ())

    long = " ".join(f"Sentence number {n} says something about topic {n}." for n in range(40))
    cut = fit_share(item("raptor", long), 100, 4.0)
    assert tokens(cut, 4.0) <= 100 < tokens(item("raptor", long), 4.0)
    assert long.startswith(cut.text) and cut.text.endswith(".") and len(cut.text) > 50
    assert fit_share(item("paragraph", long), 100, 4.0).text == long  # evidence stays whole
    japanese = "".join(f"これは{n}番目の文です。" for n in range(100))
    cut = fit_share(item("raptor", japanese), 50, 4.0)
    assert tokens(cut, 4.0) <= 50 and cut.text.endswith("。")
    first = fit_share(item("raptor", "One very long first sentence " * 30 + ". Two."), 10, 4.0)
    assert first.text.endswith("sentence .")  # at least the first sentence, never an empty item


@pytest.mark.parametrize(
    ("lane", "table"),
    [("raptor", "raptor_nodes"), ("profiles", "profiles"), ("communities", "communities")],
)
def test_a_derived_lane_can_read_its_summaries_through_the_width_index(
    vsvc: Tabane, user, corpus: str, lane: str, table: str
):
    """Each derived lane orders by distance alone and states what the partial index covers (for
    RAPTOR, the levels it serves), so the planner may read migration 0027's HNSW index instead
    of scanning every summary of the context. With scans priced out, the lane's own SQL must
    still find an index to use."""
    qv = vsvc.embedder.embed_query(GLOBAL)
    dim = len(qv)
    with vsvc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == corpus))
        params = gather.bind(
            GLOBAL, [ctx], [None], QueryVector(qv, vsvc.embedder.name, dim, None), None, Tunables()
        )
        # scans and sorts priced out: only an index read in distance order avoids both
        session.execute(text("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off"))
        session.execute(text("SET LOCAL enable_sort = off"))
        conn, sent = session.connection(), []
        event.listen(conn, "before_cursor_execute", lambda *a: sent.append(a[2:4]))
        session.execute(statement._lane(lane, dim), params).all()  # as SQLAlchemy binds it
        sql, bound = sent[-1]
        with conn.connection.driver_connection.cursor() as cur:  # type: ignore[union-attr]
            plan = "\n".join(row[0] for row in cur.execute("EXPLAIN " + sql, bound))
        assert f"Index Scan using ix_{table}_hnsw_{dim} on {table}" in plan, plan
