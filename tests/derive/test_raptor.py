"""The RAPTOR tree: built from paragraph vectors and notes, deterministic, linked down to live
members, stale after writes, reusing unchanged summaries, scoped like its context."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest
from sqlalchemy import delete, select

from tabane.contexts import contexts
from tabane.derive.raptor import tree as raptor
from tabane.errors import InvalidInput, NotFound
from tabane.ingest.documents import DocumentInput
from tabane.models.extractive import ExtractiveSummarizer
from tabane.models.summarizer import Member, Summary
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import RaptorMember, RaptorNode
from tabane.text.blocks import Block

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

TOPICS = {
    "coffee": [
        "Coffee beans are roasted at high heat until they turn brown.",
        "Espresso forces hot water through finely ground coffee.",
        "Arabica coffee grows best in the highlands of Ethiopia.",
        "A pour-over brew drips hot water slowly over coffee grounds.",
        "Cold brew coffee steeps in cool water for a whole day.",
        "Caffeine in coffee keeps many people awake at night.",
    ],
    "sailing": [
        "The sailboat tacked into the wind to reach the harbour.",
        "A jib is the small sail at the front of a sailing boat.",
        "Sailors reef the mainsail when the wind grows too strong.",
        "The keel keeps a sailboat from drifting sideways.",
        "Sailing across the ocean needs charts and a compass.",
        "The regatta drew sailboats from every yacht club on the coast.",
    ],
    "databases": [
        "PostgreSQL stores table rows in pages of eight kilobytes.",
        "An index lets the database find rows without scanning the table.",
        "Transactions in the database commit or roll back as a whole.",
        "A query planner chooses how the database joins two tables.",
        "Vacuum reclaims space left behind by deleted database rows.",
        "Replication copies the database to a standby server.",
    ],
    "gardening": [
        "Tomatoes need full sun and regular watering in the garden.",
        "Compost feeds the garden soil with rotting leaves and scraps.",
        "Prune the roses in late winter before new shoots appear.",
        "Mulch keeps garden beds moist and stops weeds from growing.",
        "Plant garlic cloves in autumn for a summer harvest.",
        "Earthworms loosen the garden soil and help roots breathe.",
    ],
    "astronomy": [
        "Jupiter is the largest planet of the solar system.",
        "A telescope gathers starlight with a large mirror or lens.",
        "The Andromeda galaxy is visible on dark autumn nights.",
        "Saturn's rings are made of ice and rock particles.",
        "A lunar eclipse happens when the Earth shades the Moon.",
        "Astronomers measure the distance to stars by parallax.",
    ],
}


@dataclass
class Counting:
    """The extractive summarizer, counting its calls."""

    name: str = "extractive"
    calls: list[int] = field(default_factory=list)
    inner: ExtractiveSummarizer = field(default_factory=ExtractiveSummarizer)

    def summarize(
        self, members: Sequence[Member], *, budget_chars: int, language_hint: str | None = None
    ) -> Summary:
        self.calls.append(len(members))
        return self.inner.summarize(members, budget_chars=budget_chars)


def ingest(
    svc: Tabane, user: Principal, context: str, topics: Sequence[str] = tuple(TOPICS)
) -> None:
    for topic in topics:
        blocks = [Block(text, ()) for text in TOPICS[topic]]
        svc.ingest(user, context, DocumentInput(topic, paragraphs=blocks, title=topic.title()))


def build(
    svc: Tabane, user: Principal, context: str, summarizer: object = None, **kw: int
) -> raptor.RaptorBuild:
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        chosen = summarizer if summarizer is not None else ExtractiveSummarizer()
        return raptor.build(session, ctx, chosen, svc.embedder, **kw)  # type: ignore[arg-type]


def tree(svc: Tabane, user: Principal, context: str, level: int | None = None) -> raptor.RaptorTree:
    with svc.store.session(user) as session:
        return raptor.read(session, contexts.resolve(session, context), level)


def members(
    svc: Tabane, user: Principal, context: str, level: int, ordinal: int
) -> tuple[raptor.RaptorMemberView, ...]:
    with svc.store.session(user) as session:
        return raptor.members(session, contexts.resolve(session, context), level, ordinal)


def all_members(svc: Tabane, user: Principal, context: str) -> dict[tuple[int, int], list[str]]:
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        rows = session.execute(
            select(RaptorNode.level, RaptorNode.ordinal, RaptorMember.ref)
            .join(RaptorMember, RaptorMember.node_id == RaptorNode.id)
            .where(RaptorNode.context_id == ctx.id)
            .order_by(RaptorNode.level, RaptorNode.ordinal, RaptorMember.rank)
        )
        out: dict[tuple[int, int], list[str]] = {}
        for level, ordinal, ref in rows:
            out.setdefault((level, ordinal), []).append(ref)
        return out


def drop_tree(svc: Tabane, user: Principal, context: str) -> None:
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        session.execute(delete(RaptorNode).where(RaptorNode.context_id == ctx.id))


def test_tree_is_deterministic_linked_and_reused(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    ingest(vsvc, user, context)
    note = vsvc.remember(
        user, context, {"text": "Kenji prefers green tea over coffee in the morning."}
    )
    vsvc.wait_for_jobs()  # the embeddings queue the background build (default sizes)
    assert tree(vsvc, user, context).built
    drop_tree(vsvc, user, context)  # from nothing, at the sizes below
    counting = Counting()
    first = build(vsvc, user, context, counting, cluster_size=4, roots=2)
    assert first.skipped is None and first.leaves == 31 and first.model == vsvc.embedder.name
    assert first.nodes[0] == 8 and first.nodes[-1] <= 2 and len(first.nodes) >= 2
    assert list(first.nodes) == sorted(first.nodes, reverse=True)
    assert len(counting.calls) == sum(first.nodes) and first.reused == 0
    got = tree(vsvc, user, context)
    links = all_members(vsvc, user, context)
    assert got.built and not got.stale and got.corpus_version == first.corpus_version
    top = max(n.level for n in got.nodes)
    assert [n.level for n in got.nodes] == sorted((n.level for n in got.nodes), reverse=True)
    for node in got.nodes:
        assert (node.parent is None) == (node.level == top)
        assert set(node.refs) <= set(links[(node.level, node.ordinal)])  # cites its members
        assert node.size == len(links[(node.level, node.ordinal)])
        assert node.summary and node.summarizer == "extractive"
        resolved = members(vsvc, user, context, node.level, node.ordinal)
        assert [m.ref for m in resolved] == links[(node.level, node.ordinal)]
        assert {m.kind for m in resolved} <= (
            {"paragraph", "claim"} if node.level == 1 else {"node"}
        )
        for m in resolved:
            if m.kind == "node":  # the child names this node as its parent
                assert m.level == node.level - 1
                child = next(c for c in got.nodes if (c.level, c.ordinal) == (m.level, m.ordinal))
                assert child.parent == node.ordinal and m.text == child.summary
            elif m.kind == "paragraph":
                assert m.source_id in TOPICS and m.text in TOPICS[m.source_id]
            else:
                assert m.claim_id == note and m.ref == f"c:{note}"
    assert sum(n.leaves for n in got.nodes if n.level == top) == 31
    assert f"c:{note}" in {r for (lv, _), refs in links.items() if lv == 1 for r in refs}
    # every leaf sits under exactly one level-1 node
    level1 = [r for (lv, _), refs in links.items() if lv == 1 for r in refs]
    assert len(level1) == len(set(level1)) == 31
    # unchanged members: every summary is kept, the summarizer is not called
    again = build(vsvc, user, context, counting, cluster_size=4, roots=2)
    assert again.reused == sum(again.nodes) and len(counting.calls) == sum(first.nodes)
    assert tree(vsvc, user, context).nodes == got.nodes
    # from scratch: the same tree, summarized again
    drop_tree(vsvc, user, context)
    fresh = Counting()
    third = build(vsvc, user, context, fresh, cluster_size=4, roots=2)
    assert third.reused == 0 and len(fresh.calls) == sum(first.nodes)
    assert tree(vsvc, user, context).nodes == got.nodes
    assert all_members(vsvc, user, context) == links
    # one level read alone
    assert tree(vsvc, user, context, 1).nodes == tuple(n for n in got.nodes if n.level == 1)


def test_stale_after_writes_and_rebuilt(vsvc: Tabane, user: Principal, context: str) -> None:
    ingest(vsvc, user, context, ["coffee", "sailing", "databases"])
    assert not tree(vsvc, user, context).built
    vsvc.wait_for_jobs()  # the embeddings queue the debounced background build
    first = tree(vsvc, user, context)
    assert first.built and not first.stale
    assert sum(n.leaves for n in first.nodes if n.parent is None) == 18
    drop_tree(vsvc, user, context)
    assert tree(vsvc, user, context).stale  # leaves and no tree
    assert build(vsvc, user, context).leaves == 18
    assert not tree(vsvc, user, context).stale
    note = vsvc.remember(user, context, {"text": "The harbour master closes the port in storms."})
    assert tree(vsvc, user, context).stale  # a new note
    vsvc.wait_for_jobs()  # its vector queues the rebuild
    assert not tree(vsvc, user, context).stale
    assert f"c:{note}" in {r for refs in all_members(vsvc, user, context).values() for r in refs}
    vsvc.retract(user, context, "sailing")
    assert tree(vsvc, user, context).stale  # a retraction
    assert build(vsvc, user, context).leaves == 13
    refs = {r for refs in all_members(vsvc, user, context).values() for r in refs}
    assert all(r.startswith(("p:", "c:", "r:")) for r in refs)
    level1 = [
        m
        for n in tree(vsvc, user, context, 1).nodes
        for m in members(vsvc, user, context, 1, n.ordinal)
    ]
    assert {m.source_id for m in level1 if m.kind == "paragraph"} == {"coffee", "databases"}
    assert all(m.kind != "missing" for m in level1)
    ingest(vsvc, user, context, ["gardening"])
    assert tree(vsvc, user, context).stale  # an ingest
    vsvc.wait_for_jobs()  # its embeddings queue the rebuild
    assert not tree(vsvc, user, context).stale


def test_a_retracted_note_leaves_the_tree_by_a_rebuild(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    """A note closed by `associations retract` was a leaf of the tree: the retraction queues
    the rebuild, and the rebuilt tree no longer holds (or quotes) it."""
    ingest(vsvc, user, context, ["coffee", "sailing"])
    secret = "The garden shed vault code is SECRET-7781."
    note = vsvc.remember(
        user,
        context,
        {"text": secret, "subject": "shed", "label": "has code", "object": "SECRET-7781",
         "weight": 1.0, "kind": "world"},
    )  # fmt: skip
    vsvc.wait_for_jobs()
    refs = {r for refs in all_members(vsvc, user, context).values() for r in refs}
    assert f"c:{note}" in refs and not tree(vsvc, user, context).stale
    vsvc.retract_associations(user, context, [("shed", "has code", "SECRET-7781", None, None)])
    assert tree(vsvc, user, context).stale
    vsvc.wait_for_jobs()  # the retraction queued the rebuild
    rebuilt = tree(vsvc, user, context)
    assert not rebuilt.stale
    refs = {r for refs in all_members(vsvc, user, context).values() for r in refs}
    assert f"c:{note}" not in refs
    assert all("SECRET-7781" not in (n.summary or "") for n in rebuilt.nodes)


def test_a_replacement_that_only_removes_paragraphs_rebuilds_the_tree(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    ingest(vsvc, user, context, ["coffee", "sailing"])
    vsvc.wait_for_jobs()
    assert sum(n.leaves for n in tree(vsvc, user, context).nodes if n.parent is None) == 12
    shorter = [Block(text, ()) for text in TOPICS["coffee"][:-1]]  # nothing new to embed
    again = vsvc.ingest(user, context, DocumentInput("coffee", paragraphs=shorter, title="Coffee"))
    assert again.outcome == "replaced"
    assert tree(vsvc, user, context).stale  # a leaf is gone
    vsvc.wait_for_jobs()
    rebuilt = tree(vsvc, user, context)
    assert not rebuilt.stale and sum(n.leaves for n in rebuilt.nodes if n.parent is None) == 11
    level1 = [
        m
        for n in tree(vsvc, user, context, 1).nodes
        for m in members(vsvc, user, context, 1, n.ordinal)
    ]
    assert all(m.kind != "missing" for m in level1)
    assert TOPICS["coffee"][-1] not in {m.text for m in level1}


def test_no_leaves_deletes_the_tree_and_no_embedder_skips(
    svc: Tabane, vsvc: Tabane, user: Principal, context: str
) -> None:
    ingest(vsvc, user, context, ["astronomy"])
    vsvc.wait_for_jobs()
    assert build(vsvc, user, context).nodes == (1,)  # six leaves: one node, a root
    skipped = build(svc, user, context)
    assert skipped.skipped == "no embedder" and skipped.nodes == () and skipped.model is None
    assert tree(vsvc, user, context).built  # nothing changed
    vsvc.retract(user, context, "astronomy")
    empty = build(vsvc, user, context)
    assert empty.leaves == 0 and empty.nodes == ()
    got = tree(vsvc, user, context)
    assert not got.built and not got.stale and got.nodes == ()


def test_rows_are_scoped_and_bad_input_refused(
    vsvc: Tabane, user: Principal, context: str, make_user: Callable[..., Principal]
) -> None:
    ingest(vsvc, user, context, ["coffee", "gardening"])
    vsvc.wait_for_jobs()
    build(vsvc, user, context)
    outsider = make_user()
    with vsvc.store.session(user) as session:
        cid = contexts.resolve(session, context).id
    with vsvc.store.session(outsider) as session:
        assert session.scalars(select(RaptorNode).where(RaptorNode.context_id == cid)).all() == []
        assert (
            session.scalars(select(RaptorMember).where(RaptorMember.context_id == cid)).all() == []
        )
    with pytest.raises(NotFound) as missing:
        members(vsvc, user, context, 1, 99)
    assert missing.value.issues[0].path == "ordinal"
    with pytest.raises(InvalidInput):
        tree(vsvc, user, context, 0)
    with pytest.raises(InvalidInput):
        build(vsvc, user, context, cluster_size=1)


def test_a_renamed_source_keeps_summaries_but_re_embeds_the_topic_lines(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    """Each node opens with the titles of the sources below it; a title change leaves every
    summary's members as they were (nothing summarized again), but the nodes above the renamed
    source get their new topic line and a vector of it."""
    ingest(vsvc, user, context, ["coffee", "sailing", "databases"])
    vsvc.wait_for_jobs()
    first = build(vsvc, user, context, Counting())
    before = {(n.level, n.ordinal): n.summary for n in tree(vsvc, user, context).nodes}
    assert all(text.startswith("Topics: ") for text in before.values())
    blocks = [Block(text, ()) for text in TOPICS["coffee"]]
    vsvc.ingest(user, context, DocumentInput("coffee", paragraphs=blocks, title="Brewing"))
    vsvc.wait_for_jobs()
    embedded: list[str] = []

    class Spy:
        name, dim = vsvc.embedder.name, vsvc.embedder.dim

        def embed_documents(self, texts: Sequence[str]) -> object:
            embedded.extend(texts)
            return vsvc.embedder.embed_documents(texts)

    counting = Counting()
    with vsvc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        again = raptor.build(session, ctx, counting, Spy())  # type: ignore[arg-type]
    assert again.nodes == first.nodes and not counting.calls  # no summary written again
    after = {(n.level, n.ordinal): n.summary for n in tree(vsvc, user, context).nodes}
    renamed = {k for k, text in after.items() if "Brewing" in text.split("\n")[0]}
    assert renamed and all("Coffee" not in after[k].split("\n")[0] for k in renamed)
    assert len(embedded) == len(renamed)  # only the changed topic lines are embedded again
    assert all(after[k] == before[k] for k in after if k not in renamed)
