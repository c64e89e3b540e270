"""Erasure and export of a user: export lists exactly what erasure deletes (round-trip counts),
a scan of every table in the database finds nothing of the user afterwards, shared rows and other
users' rows stay, and the associations the user's claims fed are re-netted."""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import (
    Column,
    ForeignKey,
    Integer,
    MetaData,
    Table,
    Text,
    func,
    inspect,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from typer.testing import CliRunner

from tabane.access import erasure, erasure_repair
from tabane.cli.main import app
from tabane.errors import Forbidden, NoUser
from tabane.graph import gram_merge
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.principal import PUBLIC, Principal, personal_scope
from tabane.recall.plan import RecallRequest
from tabane.search import merge
from tabane.service import Tabane
from tabane.storage.schema import (
    SCOPED_TABLES,
    ApiKey,
    Association,
    Base,
    Claim,
    Community,
    CommunityMember,
    Context,
    Job,
    Profile,
    RaptorMember,
    RaptorNode,
    Source,
    VocabEntry,
    VocabGram,
    VocabGramStats,
    VocabSize,
    VocabVector,
)
from tabane.storage.schema import derived as schema_derived

from helpers import unique

TEA = [
    "Green tea is brewed at eighty degrees for two minutes.",
    "Black tea wants boiling water and four minutes of steeping.",
]


@dataclass(frozen=True)
class World:
    x: Principal  # the user to erase
    y: Principal  # another user, whose rows must stay
    mine: str  # x's private context
    shared: str  # a public context both write to


def _populate(vsvc: Tabane, make_user: Callable[..., Principal]) -> World:
    team = unique("org:team")
    x = make_user("x", extra_write=(team,))
    y = make_user("y")
    mine, shared = unique("ctx"), unique("ctx")
    vsvc.create_context(x, mine)
    vsvc.create_context(y, shared, scopes=[PUBLIC])
    doc = "# Tea\n\n" + "\n\n".join(TEA)
    vsvc.ingest(x, mine, DocumentInput(source_id="tea", data=doc.encode(), format="markdown"))
    # Merged BM25 rows, and a merged source removed since (its paragraphs masked).
    vsvc.ingest(x, mine, DocumentInput("gone", paragraphs=[block("Gyokuro is shaded.")]))
    with vsvc.store.session(x) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == mine))
        assert ctx_id is not None
        assert merge.merge(session, ctx_id, [personal_scope(x.name)], force=True).merged
    vsvc.retract(x, mine, "gone")
    # A row scoped {user:x, public} in the shared context: reading it needs both scopes, so only
    # x can; it goes with x (left behind, a new user named x would read it).
    both = [personal_scope(x.name), PUBLIC]
    vsvc.ingest(
        x, shared, DocumentInput("both", paragraphs=[block("Oolong sits between.")], scopes=both)
    )
    vsvc.ingest(y, shared, DocumentInput("ys", paragraphs=[block("Matcha is whisked.")]))
    vsvc.add_claims(x, mine, [ClaimInput("Green tea", "needs", "80 degrees", 1.0)])
    with vsvc.store.session(x) as session:  # packed bigram postings (resolve's top mode)
        assert gram_merge.merge(session, ctx_id, [personal_scope(x.name)], force=True)
    vsvc.add_alias(x, mine, "sencha", "Green tea")
    vsvc.remember(x, mine, {"text": "I prefer green tea in the morning."})
    # In the public context: x's and y's weights on one edge, and x's own opinion edge.
    vsvc.add_claims(x, shared, [ClaimInput("Matcha", "is", "bitter", 1.0)])
    vsvc.add_claims(y, shared, [ClaimInput("Matcha", "is", "bitter", 0.5)])
    vsvc.add_claims(x, shared, [ClaimInput("Oolong", "is", "smooth", 0.7, kind="opinion")])
    vsvc.remember(x, shared, {"text": "x wrote this for the team."}, scopes=[team])
    vsvc.add_turn(x, "main", "How hot should green tea water be?")
    vsvc.add_turn(y, "main", "Matcha needs a whisk.")
    vsvc.create_group(x, unique("grp"), contexts=[mine, shared])
    vsvc.wait_for_jobs()
    vsvc.recall(x, RecallRequest("green tea temperature", (mine,), session="main", force=True))
    vsvc.recall(y, RecallRequest("matcha", (shared,), force=True))
    vsvc.create_key(x.name)
    vsvc.create_key(y.name)
    return World(x, y, mine, shared)


def _leftovers(svc: Tabane, who: Principal) -> dict[str, int]:
    """Every table in the live database (reflected, so one the ORM does not know is scanned
    too), read as the owner: rows scoped only to `who`, or naming them by id, author or
    perspective."""
    mine = personal_scope(who.name)
    meta = MetaData()
    meta.reflect(bind=svc.store.owner)
    found: dict[str, int] = {}
    with svc.store.admin() as session:
        for table in meta.sorted_tables:
            checks = []
            if "scopes" in table.c and isinstance(table.c.scopes.type, ARRAY):
                checks.append(table.c.scopes == [mine])
            if "user_id" in table.c:
                checks.append(table.c.user_id == who.user_id)
            if "written_by" in table.c:
                checks.append(table.c.written_by == who.user_id)
            for column in ("author", "perspective"):
                if column in table.c:
                    checks.append(table.c[column] == who.name)
            if table.name == "users":
                checks.append(table.c.name == who.name)
            if table.name == "scopes":
                checks.append(table.c.name == mine)
            if table.name == "grants":
                checks.append(table.c.scope == mine)
            for check in checks:
                n = session.scalar(select(func.count()).select_from(table).where(check))
                if n:
                    found[table.name] = found.get(table.name, 0) + n
    return found


def test_every_table_is_covered_and_the_database_has_no_other_table(svc: Tabane) -> None:
    assert erasure.uncovered() == []
    walked = set(erasure.plan(erasure.Target("x", 1, "user:x")).rows)
    assert set(SCOPED_TABLES) <= walked
    assert {"users", "grants", "api_keys", "scopes", "jobs"} <= walked
    live = set(inspect(svc.store.owner).get_table_names()) - {"alembic_version"}
    assert live == set(Base.metadata.tables), "a table the erasure walk does not know"


def test_a_table_with_no_rule_is_reported() -> None:
    meta = MetaData()
    Table("users", meta, Column("id", Integer, primary_key=True))
    Table("notes", meta, Column("id", Integer, primary_key=True), Column("text", Text))
    Table(
        "marks",
        meta,
        Column("id", Integer, primary_key=True),
        Column("owner", Integer, ForeignKey("users.id", ondelete="CASCADE")),
    )
    Table("tags", meta, Column("id", Integer, primary_key=True), Column("scopes", ARRAY(Text)))
    assert erasure.uncovered(meta) == ["notes"]


@pytest.mark.slow
def test_export_then_erase_leaves_nothing_of_the_user(
    vsvc: Tabane, make_user: Callable[..., Principal]
) -> None:
    w = _populate(vsvc, make_user)
    assert _leftovers(vsvc, w.x)  # the scan finds the user before
    exported = list(vsvc.export_user(w.x.name))
    counts = Counter(r["table"] for r in exported)
    for table in (
        "users", "grants", "api_keys", "scopes", "contexts", "sources", "sections", "paragraphs",
        "bm25_packs", "bm25_merged", "bm25_dead", "paragraph_vectors", "bm25_corpus",
        "bm25_terms", "vocabulary",
        "vocabulary_grams", "vocabulary_gram_packs", "claims", "claim_vectors", "associations",
        "sessions",
        "session_turns", "turn_vectors", "recall_traces", "groups", "group_contexts",
    ):  # fmt: skip
        assert counts[table] > 0, table
    assert all("hash" not in r["row"] for r in exported if r["table"] == "api_keys")
    packs = [r["row"]["postings"] for r in exported if r["table"] == "bm25_packs"]
    assert all(len(base64.b64decode(p)) % 20 == 0 for p in packs)  # JSON-safe, whole records
    aliases = [r for r in exported if r["table"] == "vocabulary" and r["row"]["alias_of"]]
    assert [a["row"]["name"] for a in aliases] == ["sencha"]
    authored = {r["row"]["statement"] for r in exported if r["table"] == "claims"}
    assert "x wrote this for the team." in authored  # authored in a shared scope
    y_before = _leftovers(vsvc, w.y)

    done = vsvc.erase_user(w.x.name)

    assert {t: n for t, n in done.deleted.items() if n} == dict(counts)
    assert done.total == len(exported)
    assert _leftovers(vsvc, w.x) == {}
    assert _leftovers(vsvc, w.y) == y_before
    with pytest.raises(NoUser):
        vsvc.principal(w.x.name)
    with vsvc.store.admin() as session:
        shared = session.scalar(select(Context.id).where(Context.name == w.shared))
        sources = set(session.scalars(select(Source.source_id).where(Source.context_id == shared)))
        assert sources == {"ys"}  # y's row stays; x's private row in the shared context goes
        assert session.scalar(select(Context.id).where(Context.name == w.mine)) is None
        edges = session.execute(
            select(Association.subject, Association.weight, Association.claims).where(
                Association.context_id == shared
            )
        ).all()
    # x's weight is gone from the shared edge; x's opinion edge had no other claim: pruned.
    assert [(e.subject, e.weight, e.claims) for e in edges] == [("Matcha", 0.5, 1)]
    assert (done.renetted, done.pruned) == (1, 1)
    seen = vsvc.query(w.y, contexts=[w.shared], subject="Matcha")
    assert [e.weight for e in seen.edges] == [0.5]


def test_only_the_user_or_an_admin_may_export_or_erase(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    team = unique("org:team")
    x = make_user("x", extra_write=(team,))
    ctx = unique("ctx")
    svc.create_context(x, ctx)
    svc.remember(x, ctx, {"text": "mine alone"})
    svc.remember(x, ctx, {"text": "for the team"}, scopes=[team])
    stranger = make_user("y")
    # Write on x's personal scope alone is not enough: x's rows carry `team` too.
    half = make_user("h", extra_write=(personal_scope(x.name),))
    admin = make_user("a", extra_write=(team, personal_scope(x.name)))
    # reads the team's rows, may not write them: exports x, may not erase x (nor may x's own
    # key that was narrowed so: deleting a row needs write on its scopes)
    auditor = make_user("r", extra_read=(team,), extra_write=(personal_scope(x.name),))
    own_reader = svc.authenticate(
        svc.create_key(
            x.name, read=[personal_scope(x.name), team], write=[personal_scope(x.name)]
        ).token
    )
    read_only = svc.authenticate(
        svc.create_key(x.name, read=[personal_scope(x.name)], write=[]).token
    )
    mine = personal_scope(x.name)  # x's own key, narrowed to x's personal scope: `team` unseen
    narrow = svc.authenticate(svc.create_key(x.name, read=[mine], write=[mine]).token)
    before = list(svc.export_user(x.name))
    for who in (stranger, half, read_only, narrow):
        with pytest.raises(Forbidden):
            svc.export_user(x.name, actor=who)
        with pytest.raises(Forbidden):
            svc.erase_user(x.name, actor=who)
    for who in (auditor, own_reader):
        assert list(svc.export_user(x.name, actor=who)) == before
        with pytest.raises(Forbidden) as unwritable:
            svc.erase_user(x.name, actor=who)
        assert "1 scope(s) you cannot write" in unwritable.value.issues[0].problem
    assert list(svc.export_user(x.name)) == before  # nothing changed
    assert list(svc.export_user(x.name, actor=admin)) == before
    assert list(svc.export_user(x.name, actor=x)) == before
    with pytest.raises(NoUser):
        svc.erase_user(unique("nobody"), actor=admin)
    for odd in ("a\x00b", "\udcff"):  # no user is named so: unknown, not a database error
        with pytest.raises(NoUser):
            svc.erase_user(odd, actor=admin)
    done = svc.erase_user(x.name, actor=admin)
    assert done.deleted["claims"] == 2 and done.deleted["users"] == 1


def test_the_cli_exports_to_a_file_then_erases(
    svc: Tabane, make_user: Callable[..., Principal], tabane_home: Path, tmp_path: Path
) -> None:
    x = make_user("x")
    ctx = unique("ctx")
    svc.create_context(x, ctx)
    svc.remember(x, ctx, {"text": "a note"})
    env = {
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": make_user("owner").name,  # the CLI acts as the store owner
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    runner = CliRunner()
    out = tmp_path / "x.jsonl"
    exported = runner.invoke(app, ["users", "export", x.name, "--out", str(out), "--json"], env=env)
    assert exported.exit_code == 0, exported.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    counts = Counter(r["table"] for r in lines)
    assert json.loads(exported.stdout)["rows"] == dict(sorted(counts.items()))
    refused = runner.invoke(app, ["users", "erase", x.name], env=env, input="n\n")
    assert refused.exit_code != 0 and svc.principal(x.name)  # not confirmed: nothing erased
    erased = runner.invoke(app, ["users", "erase", x.name, "--yes", "--json"], env=env)
    assert erased.exit_code == 0, erased.output
    deleted = json.loads(erased.stdout)["deleted"]
    assert {t: n for t, n in deleted.items() if n} == dict(counts)
    unknown = runner.invoke(app, ["users", "erase", x.name, "--yes"], env=env)
    assert unknown.exit_code == 2 and "no_user" in unknown.stderr


DERIVED_ROWS = ("communities", "community_members", "profiles", "raptor_nodes", "raptor_members")


def _derive(svc: Tabane, context: str) -> None:
    """One row of each derived table in `context`, carrying its scope set (as a build writes:
    the rows' text is beside the point, only where they hang)."""
    with svc.store.admin() as session:
        ctx = session.scalars(select(Context).where(Context.name == context)).one()
        scopes, key = list(ctx.scopes), {"context_id": ctx.id}
        com = Community(
            **key, level=0, ordinal=0, size=1, summary="s", summarizer="edges-v1",
            graph_version="v", graph_edges=1, scopes=scopes,
        )  # fmt: skip
        node = RaptorNode(
            **key, level=1, ordinal=0, size=1, leaves=1, summary="s", summarizer="extractive",
            fingerprint="f", refs=[], corpus_version="v", scopes=scopes,
        )  # fmt: skip
        session.add_all([com, node])
        session.flush()
        session.add_all([
            CommunityMember(
                community_id=com.id, concept="c", **key, rank=0, weight=1.0, scopes=scopes
            ),
            Profile(
                **key, concept="c", weight=1.0, summary="s", summarizer="extractive",
                fingerprint="f", refs=[], claim_version="v", scopes=scopes,
            ),
            RaptorMember(node_id=node.id, ref="c:1", **key, rank=0, scopes=scopes),
        ])  # fmt: skip


def _derived_in(svc: Tabane, context: str) -> dict[str, int]:
    found: dict[str, int] = {}
    with svc.store.admin() as session:
        ctx = session.scalar(select(Context.id).where(Context.name == context))
        for name in DERIVED_ROWS:
            t = Base.metadata.tables[name]
            n = session.scalar(select(func.count()).select_from(t).where(t.c.context_id == ctx))
            found[name] = int(n or 0)
    return found


def test_derived_memory_lists_every_derived_table_with_its_own_scope_set() -> None:
    tables = [
        Base.metadata.tables[m.class_.__tablename__]
        for m in Base.registry.mappers
        if m.class_.__module__ == schema_derived.__name__
    ]
    own = {
        t.name
        for t in tables
        if not any("scopes" in fk.column_keys for fk in t.foreign_key_constraints)
    }
    assert own == erasure.DERIVED


def test_derived_rows_that_read_the_users_rows_go_with_them(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """A derived row carries its context's scope set, wider than the user's rows it was built
    from: a note the user authored in a public context. Those go (export lists them); derived
    rows that read nothing of the user's stay. A context scoped {user:x, org:team} is readable
    only by x (reading needs every scope of the set): it goes whole, derived rows and all."""
    team = unique("org:team")
    x = make_user("x", extra_write=(team,))
    y = make_user("y", extra_write=(team,))
    public, quiet, shared = unique("ctx"), unique("ctx"), unique("ctx")
    svc.create_context(y, public, scopes=[PUBLIC])
    svc.create_context(y, quiet, scopes=[PUBLIC])
    svc.create_context(x, shared, scopes=[personal_scope(x.name), team])
    svc.remember(x, public, {"text": "x says the kettle is broken."})  # scopes: {public}
    svc.remember(y, public, {"text": "y says the kettle works."})
    svc.remember(y, quiet, {"text": "y alone writes here."})
    svc.remember(x, shared, {"text": "x's private note."}, scopes=[personal_scope(x.name)])
    for context in (public, quiet, shared):
        _derive(svc, context)
    every = dict.fromkeys(DERIVED_ROWS, 1)
    assert [_derived_in(svc, c) for c in (public, quiet, shared)] == [every] * 3
    with svc.store.admin() as session:  # the rule written out takes the rows the rule states
        stated = erasure.plan(erasure.find(session, x.name))
        settled = erasure.settle(session, stated)
        for table in stated.tables:
            ids = [
                set(session.execute(select(*table.primary_key.columns).where(w.rows[table.name])))
                for w in (stated, settled)
            ]
            assert ids[0] == ids[1], table.name

    exported = Counter(r["table"] for r in svc.export_user(x.name))
    assert {t: exported[t] for t in DERIVED_ROWS} == dict.fromkeys(DERIVED_ROWS, 2)
    done = svc.erase_user(x.name)

    assert {t: n for t, n in done.deleted.items() if n} == dict(exported)
    assert _derived_in(svc, public) == dict.fromkeys(DERIVED_ROWS, 0)
    assert _derived_in(svc, quiet) == every
    assert _derived_in(svc, shared) == dict.fromkeys(DERIVED_ROWS, 0)
    with svc.store.admin() as session:  # x's own context in the team's scope goes with x
        assert session.scalar(select(Context.id).where(Context.name == shared)) is None
        # the builds of the surviving context run again over the rows left: three kinds
        ids = session.scalars(select(Context.id).where(Context.name.in_([public, shared]))).all()
        queued = session.execute(
            select(Job.kind, Job.context_id).where(
                Job.context_id.in_(ids), Job.state == "queued", Job.kind.like("derive_%")
            )
        ).all()
    assert done.rebuilds == 3
    assert sorted(k for k, _ in queued) == [
        "derive_communities",
        "derive_profiles",
        "derive_raptor",
    ]


def test_erasure_takes_what_only_the_user_could_read_and_nothing_of_anyone_else(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """A row is read by whoever holds every scope of its set: {user:x, org:team} is x's private
    row inside the team's context, and goes with x (left, a new user named x would read it).
    A note y writes in y's own context "said by" x is y's row: not exported, not erased."""
    team = unique("org:team")
    x = make_user("x", extra_write=(team,))
    y = make_user("y", extra_write=(team,))
    mine = personal_scope(x.name)
    shared, ys = unique("ctx"), unique("ctx")
    svc.create_context(y, shared, scopes=[team])
    svc.create_context(y, ys)
    private = DocumentInput("x-plans", paragraphs=[block("x plans to leave in March.")])
    svc.ingest(x, shared, replace(private, scopes=[mine, team]))
    svc.remember(x, shared, {"text": "x's own note"}, scopes=[mine, team])
    svc.add_claims(x, shared, [ClaimInput("x", "plans", "leaving", 1.0)], scopes=[mine, team])
    svc.ingest(
        y, shared, DocumentInput("team-doc", paragraphs=[block("The team meets on Monday.")])
    )
    said = svc.remember(y, ys, {"text": "x told me a secret"}, speaker=x.name)

    exported = list(svc.export_user(x.name))
    assert not [r for r in exported if r["table"] == "claims" and r["row"]["id"] == said]
    svc.erase_user(x.name)
    with svc.store.admin() as session:  # no row anywhere carries x's personal scope
        for table in Base.metadata.sorted_tables:
            for column in ("scopes", "read_scopes"):
                if column in table.c:
                    held = table.c[column].op("@>")(literal([mine], ARRAY(Text)))
                    count = session.scalar(select(func.count()).select_from(table).where(held))
                    assert count == 0, (table.name, column)
    assert [m.id for m in svc.memories(y, ys).memories] == [said]  # y's row stays
    assert [s.source_id for s in svc.list_sources(y, shared).sources] == ["team-doc"]

    svc.add_user(x.name)  # a new user of the same name finds nothing of the old one
    svc.grant(x.name, team, write=True)
    again = svc.principal(x.name)
    assert [s.source_id for s in svc.list_sources(again, shared).sources] == ["team-doc"]
    assert svc.memories(again, shared).memories == []


def test_another_users_trace_loses_the_spellings_only_the_erased_user_gave(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """y's recall resolved a concept only x's claims named; after x's erasure the spelling is
    forgotten, and y's stored trace no longer lists it among its seeds (its other seeds stay)."""
    from tabane.recall.plan import RecallRequest

    x, y = make_user("x"), make_user("y")
    shared = unique("ctx")
    svc.create_context(y, shared, scopes=["public"])
    only_x = unique("qxsigma")
    svc.add_claims(x, shared, [ClaimInput(only_x, "near", "harbour", 1.0)])
    svc.add_claims(y, shared, [ClaimInput("harbour", "is", "busy", 1.0)])
    ask = RecallRequest(f"what about {only_x} and the harbour?", contexts=(shared,), force=True)
    recalled = svc.recall(y, ask)
    assert {only_x, "harbour"} <= set(recalled.trace.seeds)
    svc.erase_user(x.name)
    stored = svc.recall_trace(y, recalled.recall_id)
    assert only_x not in stored["trace"]["seeds"] and "harbour" in stored["trace"]["seeds"]
    assert stored["question"] == ask.question  # y's own words stay


@pytest.mark.slow
def test_erasure_repairs_what_the_users_claims_changed_in_a_shared_context(
    vsvc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """x's correction of y's claim goes with x, and y's claim is open again; the spellings only
    x wrote leave the vocabulary, the glosses that quoted x's facts are deleted (and queued to
    be written again); an admin's key narrowed to x's scope stays, without it."""
    team = unique("org:team")
    x = make_user("x", extra_write=(team,))
    y = make_user("y", extra_write=(team,))
    admin = make_user("admin", extra_read=(team, personal_scope(x.name)))
    key = vsvc.create_key(admin.name, read=[personal_scope(x.name), team], write=[])
    shared = unique("ctx")
    vsvc.create_context(y, shared, scopes=[team])
    until = datetime(2030, 1, 1, tzinfo=UTC)
    loud = ClaimInput("kettle", "is", "loud", 1.0, valid_until=until)
    (loud_id,) = vsvc.add_claims(y, shared, [loud]).claims
    # y's private view of the team's kettle: its gloss reads the team's facts, x's included
    wider = [team, personal_scope(y.name)]
    vsvc.add_claims(y, shared, [ClaimInput("kettle", "is", "mine", 1.0)], scopes=wider)
    fix = ClaimInput("kettle", "is", "loud", -1.0, closes=(loud_id,), perspective=y.name)
    vsvc.add_claims(x, shared, [fix, ClaimInput("kettle", "zq_leaks_on", "zq friday", 1.0)])
    vsvc.wait_for_jobs()  # the glosses of kettle (both sets), loud, zq friday, labels: embedded
    with vsvc.store.admin() as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == shared))
        glossed = set(
            session.scalars(
                select(VocabEntry.name)
                .join(VocabVector, VocabVector.entry_id == VocabEntry.id)
                .where(VocabEntry.context_id == ctx_id)
            )
        )
    assert {"kettle", "zq friday", "zq_leaks_on"} <= glossed  # a label's gloss quotes its uses
    with vsvc.store.admin() as session:  # the wider set's kettle quotes x's fact too
        wide_quote = session.scalar(
            select(func.count())
            .select_from(VocabVector)
            .join(VocabEntry, VocabVector.entry_id == VocabEntry.id)
            .where(VocabEntry.scopes == sorted(wider), VocabVector.gloss.contains("zq"))
        )
    assert wide_quote == 1

    done = vsvc.erase_user(x.name)
    assert (done.reopened, done.keys_narrowed) == (1, 1) and done.forgotten >= 2
    with vsvc.store.admin() as session:
        claim = session.get(Claim, loud_id)
        assert claim is not None and (claim.closed_at, claim.closed_by) == (None, None)
        assert claim.valid_until == until  # the end it had, not the correction's
        edge = session.execute(
            select(Association.weight, Association.claims).where(
                Association.context_id == ctx_id, Association.object == "loud"
            )
        ).all()
        assert [tuple(e) for e in edge] == [(1.0, 1)]  # y's weight, not x's correction
        names = set(session.scalars(select(VocabEntry.name).where(VocabEntry.context_id == ctx_id)))
        assert "zq friday" not in names and "zq_leaks_on" not in names and "kettle" in names
        quoting = session.scalars(
            select(VocabVector.gloss).where(VocabVector.context_id == ctx_id)
        ).all()
        assert not [g for g in quoting if "zq" in g]  # in the team's set and the wider one
        queued = session.scalars(
            select(Job.scopes).where(
                Job.kind == "embed_glosses", Job.context_id == ctx_id, Job.state == "queued"
            )
        ).all()
        assert {tuple(sorted(q)) for q in queued} >= {(team,), tuple(sorted(wider))}
        kept = session.execute(
            select(ApiKey.read_scopes, ApiKey.write_scopes).where(ApiKey.prefix == key.key.prefix)
        ).one()
    assert (kept.read_scopes, kept.write_scopes) == ([team], [])


def test_a_grant_revoked_before_the_erasure_does_not_keep_the_users_claims(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """Offboarding revokes first, then erases: x's claims in the team's context still go (x
    wrote them), while a note x wrote as another speaker stays without x's id."""
    team = unique("org:team")
    x = make_user("x", extra_write=(team,))
    y = make_user("y", extra_write=(team,))
    shared = unique("ctx")
    svc.create_context(y, shared, scopes=[team])
    own = svc.remember(x, shared, {"text": "x thinks the kettle is overrated"})
    said = svc.remember(x, shared, {"text": "Hannah says tea at four"}, speaker="Hannah")
    svc.add_claims(x, shared, [ClaimInput("kettle", "is", "overrated", 1.0)])
    kept = svc.remember(y, shared, {"text": "y likes the kettle"})
    assert svc.revoke(x.name, team)
    done = svc.erase_user(x.name)
    assert done.deleted["claims"] == 2  # the note and the edge claim x authored
    left = {m.id for m in svc.memories(y, shared).memories}
    assert own not in left and {said, kept} <= left
    with svc.store.admin() as session:
        writers = dict(
            session.execute(
                select(Claim.id, Claim.written_by).where(Claim.id.in_([said, kept]))
            ).all()
        )
        ctx_id = session.scalar(select(Context.id).where(Context.name == shared))
        edge = session.scalar(
            select(func.count())
            .select_from(Association)
            .where(Association.context_id == ctx_id, Association.object == "overrated")
        )
    assert writers == {said: None, kept: y.user_id} and edge == 0


def _vocabulary_counts(svc: Tabane, ctx_id: int) -> list[tuple[object, ...]]:
    """Per kind and scope set of a context: (kind, scopes, stored entries, live rows, bigrams
    whose stored df differs from the live postings)."""
    out: list[tuple[object, ...]] = []
    with svc.store.admin() as session:
        sets = session.execute(
            select(VocabSize.kind, VocabSize.scopes, VocabSize.entries).where(
                VocabSize.context_id == ctx_id
            )
        ).all()
        for kind, scopes, entries in sorted(sets, key=lambda r: (r.kind, r.scopes)):
            same = [
                VocabEntry.context_id == ctx_id,
                VocabEntry.kind == kind,
                VocabEntry.scopes == scopes,
            ]
            rows = session.scalar(select(func.count()).select_from(VocabEntry).where(*same))
            live = dict(
                session.execute(
                    select(VocabGram.gram, func.count())
                    .where(
                        VocabGram.context_id == ctx_id,
                        VocabGram.kind == kind,
                        VocabGram.scopes == scopes,
                    )
                    .group_by(VocabGram.gram)
                ).all()
            )
            stored = dict(
                session.execute(
                    select(VocabGramStats.gram, VocabGramStats.df).where(
                        VocabGramStats.context_id == ctx_id,
                        VocabGramStats.kind == kind,
                        VocabGramStats.scopes == scopes,
                        VocabGramStats.df != 0,
                    )
                ).all()
            )
            wrong = sorted(g for g in set(live) | set(stored) if live.get(g, 0) != stored.get(g, 0))
            out.append((kind, tuple(scopes), entries, rows, wrong))
    return out


def test_the_aliases_a_user_added_go_with_them(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """x's aliases in a context x shares with y go with x, wherever they are: resolve stops
    finding them for y, the vocabulary's statistics are taken down with them, and a concept
    only x's claims named, which x's alias had kept in the vocabulary, is forgotten. y's alias
    stays."""
    x, y = make_user("x"), make_user("y")
    shared = unique("ctx")
    svc.create_context(y, shared, scopes=[PUBLIC])
    svc.add_claims(y, shared, [ClaimInput("Matcha", "is", "whisked", 1.0)])
    svc.add_claims(x, shared, [ClaimInput("Hojicha", "is", "roasted", 1.0)])
    svc.add_alias(x, shared, "matcha powder", "Matcha")
    svc.add_alias(x, shared, "houjicha", "Hojicha")
    svc.add_alias(y, shared, "usucha", "Matcha")
    assert svc.resolve(y, shared, "matcha powder").candidates[0].kind == "alias"
    exported = [r["row"] for r in svc.export_user(x.name) if r["table"] == "vocabulary"]
    assert sorted(r["name"] for r in exported if r["alias_of"]) == ["houjicha", "matcha powder"]

    done = svc.erase_user(x.name)

    assert sorted(a.alias for a in svc.list_aliases(y, shared)) == ["usucha"]
    after = svc.resolve(y, shared, "matcha powder", dice_floor=0.99)
    assert [c.kind for c in after.candidates] != ["alias"]  # no longer an entry spelling
    assert "Hojicha" not in {c.name for c in svc.resolve(y, shared, "Hojicha").candidates}
    assert done.forgotten >= 2  # Hojicha (no alias points at it now) and roasted
    with svc.store.admin() as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == shared))
        writers = set(
            session.scalars(select(VocabEntry.written_by).where(VocabEntry.context_id == ctx_id))
        )
    assert writers == {None, y.user_id}
    assert ctx_id is not None
    counts = _vocabulary_counts(svc, ctx_id)
    assert counts and all(entries == rows and not wrong for _, _, entries, rows, wrong in counts)


def _row_versions_holding(svc: Tabane, table: str, marker: str) -> int:
    """Heap tuples of `table`, live or dead, whose bytes hold `marker` (pageinspect: what a
    forensic read of the pages would find, beyond what SQL shows)."""
    pages = text(
        "select count(*) from generate_series(0, pg_relation_size(cast(:t as regclass)) / "
        "current_setting('block_size')::int - 1) as b, "
        "lateral heap_page_items(get_raw_page(cast(:t as text), b::int)) as i "
        "where i.t_data is not null and position(convert_to(:m, 'UTF8') in i.t_data) > 0"
    )
    with svc.store.owner.connect() as conn:
        return int(conn.execute(pages, {"t": table, "m": marker}).scalar_one())


@pytest.fixture
def pageinspect(svc: Tabane) -> Iterator[None]:
    with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("CREATE EXTENSION IF NOT EXISTS pageinspect"))
    yield
    with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("DROP EXTENSION IF EXISTS pageinspect"))


def test_no_row_version_of_the_erased_user_is_left_in_the_tables(
    svc: Tabane, make_user: Callable[..., Principal], pageinspect: None
) -> None:
    """A deleted row stays in its page as a dead version until VACUUM removes it, and
    autovacuum may not come for a long time to a large table with a few dead rows. Erasure
    vacuums what it touched: no version of the user's note is left, while the same erasure
    without the VACUUM leaves one (so the check does see dead versions)."""
    y = make_user("y")
    shared = unique("ctx")
    svc.create_context(y, shared, scopes=[PUBLIC])
    notes = {}
    for who in (make_user("x"), make_user("z")):
        notes[who.name] = unique("zq-secret")
        svc.remember(who, shared, {"text": f"{notes[who.name]}: the kettle code is 4711"})
        svc.add_claims(who, shared, [ClaimInput("kettle", "is", "mine", 1.0)])
    kept = svc.remember(y, shared, {"text": "y's note stays"})
    x, z = sorted(notes)
    assert _row_versions_holding(svc, "claims", notes[x]) == 1

    undone = svc.erase_user(z, vacuum=False)
    assert undone.vacuumed == ()
    assert _row_versions_holding(svc, "claims", notes[z]) == 1  # dead, but in the page

    done = svc.erase_user(x)
    assert {"claims", "associations", "users"} <= set(done.vacuumed)
    assert _vacuum_jobs(svc)[-1] == ("done", sorted(done.vacuumed))  # ran here: nothing left
    assert _row_versions_holding(svc, "claims", notes[x]) == 0
    assert _row_versions_holding(svc, "claims", notes[z]) == 0  # the same table, vacuumed now
    assert [m.id for m in svc.memories(y, shared).memories] == [kept]


def _vacuum_jobs(svc: Tabane) -> list[tuple[str, list[str]]]:
    with svc.store.admin() as session:
        rows = session.execute(
            select(Job.state, Job.tables).where(Job.kind == queue.VACUUM).order_by(Job.id)
        )
        return [(state, list(tables or ())) for state, tables in rows]


def test_an_erasure_that_dies_before_its_vacuum_leaves_it_to_a_worker(
    svc: Tabane,
    make_user: Callable[..., Principal],
    pageinspect: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deletion commits, then the process dies before its VACUUM (SIGKILL at that point):
    the user is gone and cannot be erased again, so the VACUUM queued with the deletion is what
    takes the dead row versions away, once a worker runs it."""
    x = make_user("x")
    ctx = unique("ctx")
    svc.create_context(x, ctx)
    marker = unique("zq-secret")
    svc.remember(x, ctx, {"text": f"{marker}: the safe code is 4711"})
    before = len(_vacuum_jobs(svc))

    def dies(self: object, tables: object) -> bool:
        raise SystemExit  # the process ends here, after the commit

    monkeypatch.setattr(type(svc.store), "vacuum", dies)
    with pytest.raises(SystemExit):
        svc.erase_user(x.name)
    monkeypatch.undo()
    with pytest.raises(NoUser):
        svc.erase_user(x.name)  # no second chance through the erasure itself
    assert _row_versions_holding(svc, "claims", marker) == 1
    state, tables = _vacuum_jobs(svc)[before]
    assert state == "queued" and {"claims", "users"} <= set(tables)
    with svc.store.admin() as session:  # its lease (the erasure's own chance) runs out
        session.execute(
            update(Job)
            .where(Job.kind == queue.VACUUM, Job.state == "queued")
            .values(run_after=func.now())
        )
    assert Worker(svc.store, None).drain() >= 1
    assert _vacuum_jobs(svc)[before][0] == "done"
    assert _row_versions_holding(svc, "claims", marker) == 0


def test_a_vacuum_that_fails_leaves_the_erasure_standing(
    svc: Tabane, make_user: Callable[..., Principal], monkeypatch: pytest.MonkeyPatch
) -> None:
    x = make_user("x")
    ctx = unique("ctx")
    svc.create_context(x, ctx)
    svc.remember(x, ctx, {"text": "a note"})
    missing = Table(unique("no_such_table"), MetaData())
    monkeypatch.setattr(erasure_repair, "vacuumed", lambda deleted: [missing])
    before = len(_vacuum_jobs(svc))
    done = svc.erase_user(x.name)
    assert done.vacuumed == () and done.deleted["claims"] == 1
    assert _vacuum_jobs(svc)[before][0] == "queued"  # a worker tries again
    with pytest.raises(NoUser):
        svc.principal(x.name)
