"""The application role and the catalog: nothing around the policies lets a caller past them.

The application engine connects as `tabane_app`: not a superuser, no BYPASSRLS, owns nothing.
Every scoped table has row-level security enabled and forced. A transaction with no `SET LOCAL`
(a raw connection outside `Store.session`) reads no non-public row and writes nothing; a
`SET LOCAL` never outlives its transaction on a pooled connection; the reference tables are
read-only to the application.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from psycopg import errors as pg_errors
from sqlalchemy import Connection, Table, delete, func, insert, select, text, update
from sqlalchemy.exc import DBAPIError

from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.rls import APP_ROLE
from tabane.storage.schema import SCOPED_TABLES, Base

CHILD_TABLES = ("context_usage",)
# Tables with a `scopes` column that are not content: `jobs` holds ids and the scope set a job runs
# with, and is not under row-level security (see the note in storage/schema/).
NOT_CONTENT = ("jobs",)
REFERENCE_TABLES = ("users", "scopes", "grants")
PUBLIC = ["public"]

_serial = itertools.count()


def table(name: str) -> Table:
    return Base.metadata.tables[name]


def tag() -> str:
    return f"roles{os.getpid()}x{next(_serial)}x"


def principal(read: set[str], write: set[str] | None = None) -> Principal:
    w = frozenset(write if write is not None else read)
    return Principal(
        user_id=0, name="p", read=frozenset(read), write=w, default_scopes=tuple(sorted(w))
    )


def _id(conn: Connection, table_name: str, /, **values: Any) -> int:
    t = table(table_name)
    return int(conn.execute(insert(t).values(**values).returning(t.c.id)).scalar_one())


def seed_tree(conn: Connection, prefix: str, scopes: list[str]) -> dict[str, int]:
    """One row in every scoped table, all carrying `scopes` (written by the owner)."""
    ctx = _id(conn, "contexts", name=f"{prefix}ctx", scopes=scopes)
    g1 = _id(conn, "groups", name=f"{prefix}g1", scopes=scopes)
    g2 = _id(conn, "groups", name=f"{prefix}g2", scopes=scopes)
    conn.execute(insert(table("group_contexts")).values(group_id=g1, context_id=ctx, scopes=scopes))
    conn.execute(insert(table("group_children")).values(parent_id=g1, child_id=g2, scopes=scopes))
    src = _id(
        conn, "sources", context_id=ctx, source_id=f"{prefix}s", content_hash="h", scopes=scopes
    )
    sec = _id(
        conn,
        "sections",
        source_pk=src,
        context_id=ctx,
        ordinal=0,
        path=["h"],
        title="h",
        level=1,
        scopes=scopes,
    )
    par = _id(
        conn,
        "paragraphs",
        source_pk=src,
        context_id=ctx,
        idx=0,
        text="t",
        section_id=sec,
        scopes=scopes,
    )
    voc = _id(
        conn,
        "vocabulary",
        context_id=ctx,
        kind="concept",
        name="v",
        norm="v",
        key="v",
        scopes=scopes,
    )
    rows = {**extra_rows(ctx, src, par, 0), **graph_rows(ctx, voc, 0)}
    for name, row in rows.items():
        conn.execute(insert(table(name)).values(**row, scopes=scopes))
    claim = _id(conn, "claims", context_id=ctx, statement="s", author="a", scopes=scopes)
    conn.execute(
        insert(table("claim_vectors")).values(**claim_vector(ctx, claim, 0), scopes=scopes)
    )
    conn.execute(insert(table("context_usage")).values(context_id=ctx))
    # A user named like the tree's contexts, so the fixture's cleanup finds it too.
    user = _id(conn, "users", name=f"{prefix}ctx")
    ses = _id(conn, "sessions", user_id=user, name="s0", scopes=scopes)
    turn = _id(conn, "session_turns", session_pk=ses, seq=0, speaker="s", text="t", scopes=scopes)
    conn.execute(insert(table("turn_vectors")).values(**turn_vector(ses, turn, 0), scopes=scopes))
    conn.execute(
        insert(table("recall_traces")).values(
            user_id=user, question="q", plan="p", trace={}, scopes=scopes
        )
    )
    com = _id(conn, "communities", **community(ctx, 0), scopes=scopes)
    conn.execute(insert(table("community_members")).values(**member(ctx, com, 0), scopes=scopes))
    conn.execute(insert(table("profiles")).values(**profile(ctx, 0), scopes=scopes))
    node = _id(conn, "raptor_nodes", **raptor_node(ctx, 0), scopes=scopes)
    conn.execute(
        insert(table("raptor_members")).values(**raptor_member(ctx, node, 0), scopes=scopes)
    )
    return {
        "ctx": ctx, "g1": g1, "g2": g2, "src": src, "par": par, "voc": voc, "user": user,
        "ses": ses, "claim": claim, "turn": turn, "com": com, "node": node,
    }  # fmt: skip


def community(ctx: int, n: int) -> dict[str, Any]:
    """A community of a context's graph, numbered by `n`."""
    return {
        "context_id": ctx, "level": 0, "ordinal": n, "size": 1, "summary": "s",
        "summarizer": "edges-v1", "graph_version": "v", "graph_edges": 0,
    }  # fmt: skip


def profile(ctx: int, n: int) -> dict[str, Any]:
    """The profile of a concept of a context, numbered by `n`."""
    return {
        "context_id": ctx, "concept": f"c{n}", "weight": 1.0, "summary": "s",
        "summarizer": "extractive", "fingerprint": "f", "refs": ["c:1"], "claim_version": "v",
    }  # fmt: skip


def member(ctx: int, com: int, n: int) -> dict[str, Any]:
    """A member concept of a community (`com` is its parent), numbered by `n`."""
    return {"community_id": com, "concept": f"c{n}", "context_id": ctx, "rank": n, "weight": 1.0}


def raptor_node(ctx: int, n: int) -> dict[str, Any]:
    """A level-1 node of a context's RAPTOR tree, numbered by `n`."""
    return {
        "context_id": ctx, "level": 1, "ordinal": n, "size": 1, "leaves": 1, "summary": "s",
        "summarizer": "extractive", "fingerprint": "f", "refs": [], "corpus_version": "v",
    }  # fmt: skip


def raptor_member(ctx: int, node: int, n: int) -> dict[str, Any]:
    """A member of a RAPTOR node (`node` is its parent), numbered by `n`."""
    return {"node_id": node, "ref": f"p:{n}", "context_id": ctx, "rank": n}


def turn_vector(ses: int, turn: int, n: int) -> dict[str, Any]:
    """A vector of a session turn (`turn` is its parent), numbered by `n`."""
    return {
        "turn_id": turn, "model": f"m{n}", "session_pk": ses, "dim": 3,
        "embedding": [1.0, 0.0, 0.0],
    }  # fmt: skip


def claim_vector(ctx: int, claim: int, n: int) -> dict[str, Any]:
    """A vector of a claim's text (`claim` is its parent), numbered by `n`."""
    return {
        "claim_id": claim, "model": f"m{n}", "context_id": ctx, "dim": 3,
        "embedding": [1.0, 0.0, 0.0],
    }  # fmt: skip


def extra_rows(ctx: int, src: int, par: int, n: int) -> dict[str, dict[str, Any]]:
    """Rows of the search tables (BM25 packs, statistics, vectors), numbered by `n`."""
    return {
        "bm25_packs": {
            "source_pk": src,
            "term": f"t{n}",
            "context_id": ctx,
            "postings": bytes(20),
        },
        "bm25_terms": {"context_id": ctx, "term": f"t{n}", "df": 1},
        "bm25_merged": {"context_id": ctx, "term": f"t{n}", "postings": bytes(20)},
        "bm25_dead": {"context_id": ctx, "ids": bytes(8)},
        "paragraph_vectors": {
            "paragraph_id": par,
            "ord": n,
            "context_id": ctx,
            "source_pk": src,
            "model": "m",
            "dim": 3,
            "embedding": [1.0, 0.0, 0.0],
        },
        # one row per (context, scope set): a second one would need another scope set
        **(
            {"bm25_corpus": {"context_id": ctx, "paragraphs": 1, "total_length": 1}}
            if n == 0
            else {}
        ),
    }


def graph_rows(ctx: int, voc: int, n: int) -> dict[str, dict[str, Any]]:
    """Rows of the graph tables (a spelling, its bigram and gloss vector, the vocabulary
    statistics, a claim and the association it nets into), numbered by `n`; `voc` is the
    parent of the bigram and vector."""
    return {
        "vocabulary": {
            "context_id": ctx,
            "kind": "concept",
            "name": f"w{n}",
            "norm": f"w{n}",
            "key": f"w{n}",
        },
        "vocabulary_grams": {
            "entry_id": voc,
            "gram": f"g{n}",
            "context_id": ctx,
            "kind": "concept",
        },
        "vocabulary_readings": {
            "entry_id": voc,
            "how": "reading",
            "key": f"k{n}",
            "context_id": ctx,
            "kind": "concept",
        },
        "vocabulary_gram_packs": {
            "context_id": ctx,
            "kind": "concept",
            "gram": f"g{n}",
            "records": bytes(12),
        },
        "vocabulary_vectors": {
            "entry_id": voc,
            "model": f"m{n}",
            "context_id": ctx,
            "dim": 3,
            "gloss": "g",
            "embedding": [1.0, 0.0, 0.0],
        },
        # one row per (context, kind, scope set): the fresh one (n = 1) is of the other kind
        "vocabulary_sizes": {"context_id": ctx, "kind": ("concept", "label")[n % 2], "entries": 1},
        "vocabulary_gram_stats": {"context_id": ctx, "kind": "concept", "gram": f"g{n}", "df": 1},
        "claims": {
            "context_id": ctx,
            "subject": "s",
            "label": "l",
            "object": "o",
            "weight": 1.0,
            "author": "a",
        },
        "associations": {
            "context_id": ctx,
            "subject": f"s{n}",
            "label": "l",
            "object": "o",
            "weight": 1.0,
            "claims": 1,
        },
        # one row per context: the fresh one (n = 1) is refused by RLS before its key is checked
        "context_schemas": {"context_id": ctx, "version": 1 + n, "document": {}},
    }


def new_rows(prefix: str, ids: dict[str, int], scopes: list[Any]) -> dict[str, dict[str, Any]]:
    """A fresh (not yet stored) row for every scoped table, next to a seeded tree."""
    return {
        "contexts": {"name": f"{prefix}new", "scopes": scopes},
        "groups": {"name": f"{prefix}new", "scopes": scopes},
        "group_contexts": {"group_id": ids["g2"], "context_id": ids["ctx"], "scopes": scopes},
        "group_children": {"parent_id": ids["g2"], "child_id": ids["g1"], "scopes": scopes},
        "sources": {
            "context_id": ids["ctx"],
            "source_id": f"{prefix}new",
            "content_hash": "h",
            "scopes": scopes,
        },
        "sections": {
            "source_pk": ids["src"],
            "context_id": ids["ctx"],
            "ordinal": 1,
            "path": ["h"],
            "title": "h",
            "level": 1,
            "scopes": scopes,
        },
        "paragraphs": {
            "source_pk": ids["src"],
            "context_id": ids["ctx"],
            "idx": 1,
            "text": "t",
            "scopes": scopes,
        },
        "bm25_corpus": {"context_id": ids["ctx"], "scopes": scopes},
        **{
            name: {**row, "scopes": scopes}
            for name, row in extra_rows(ids["ctx"], ids["src"], ids["par"], 1).items()
        },
        **{
            name: {**row, "scopes": scopes}
            for name, row in graph_rows(ids["ctx"], ids["voc"], 1).items()
        },
        "claim_vectors": {**claim_vector(ids["ctx"], ids["claim"], 1), "scopes": scopes},
        "sessions": {"user_id": ids["user"], "name": f"{prefix}new", "scopes": scopes},
        "session_turns": {
            "session_pk": ids["ses"],
            "seq": 1,
            "speaker": "s",
            "text": "t",
            "scopes": scopes,
        },
        "turn_vectors": {**turn_vector(ids["ses"], ids["turn"], 1), "scopes": scopes},
        "recall_traces": {
            "user_id": ids["user"],
            "question": "q",
            "plan": "p",
            "trace": {},
            "scopes": scopes,
        },
        "communities": {**community(ids["ctx"], 1), "scopes": scopes},
        "community_members": {**member(ids["ctx"], ids["com"], 1), "scopes": scopes},
        "profiles": {**profile(ids["ctx"], 1), "scopes": scopes},
        "raptor_nodes": {**raptor_node(ids["ctx"], 1), "scopes": scopes},
        "raptor_members": {**raptor_member(ids["ctx"], ids["node"], 1), "scopes": scopes},
    }


@pytest.fixture
def trees(svc: Tabane) -> Any:
    """Seed trees through the owner; remove them (and everything under them) afterwards."""
    prefixes: list[str] = []

    def make(scopes: list[str]) -> tuple[str, dict[str, int]]:
        prefix = tag()
        prefixes.append(prefix)
        with svc.store.owner.begin() as conn:
            return prefix, seed_tree(conn, prefix, scopes)

    yield make
    with svc.store.owner.begin() as conn:
        for name in ("contexts", "groups", "users"):
            t = table(name)
            for prefix in prefixes:
                conn.execute(delete(t).where(t.c.name.startswith(prefix, autoescape=True)))


def test_a_seeded_tree_has_a_row_in_every_scoped_table(svc: Tabane, trees: Any) -> None:
    """The tests below count on it (a table with no row would pass them vacuously)."""
    scope = f"user:{tag()}"
    trees([scope])
    with svc.store.owner.connect() as conn:
        empty = [
            name
            for name in SCOPED_TABLES
            if not conn.execute(
                select(func.count()).select_from(table(name)).where(table(name).c.scopes == [scope])
            ).scalar_one()
        ]
    assert empty == []


def refused_by_rls(exc: DBAPIError) -> bool:
    return isinstance(exc.orig, pg_errors.InsufficientPrivilege) and (
        "row-level security" in str(exc.orig)
    )


# --- the role ---------------------------------------------------------------------------------


def test_app_engine_connects_as_a_role_that_cannot_bypass_rls(svc: Tabane) -> None:
    with svc.store.app.connect() as conn:
        assert conn.execute(select(func.current_user())).scalar_one() == APP_ROLE
        # Neither the role nor any role it is a member of is a superuser or has BYPASSRLS.
        powerful = conn.execute(
            text(
                "SELECT rolname FROM pg_roles"
                " WHERE pg_has_role(current_user, oid, 'MEMBER') AND (rolsuper OR rolbypassrls)"
            )
        ).all()
        assert powerful == []
        # It owns no relation (an owner could switch row-level security off) but the temporary
        # ones of its own sessions (storage/bulk.py's COPY stages), which no other session sees
        # and which hold only what that session sends before it inserts through the policies.
        owned = conn.execute(
            text(
                "SELECT relname FROM pg_class WHERE pg_has_role(current_user, relowner, 'MEMBER')"
                " AND relpersistence <> 't'"
            )
        ).all()
        assert owned == []


def test_every_scoped_table_forces_row_level_security(svc: Tabane) -> None:
    with svc.store.owner.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
                " WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
                " AND relname = ANY(:names)"
            ),
            {"names": [*SCOPED_TABLES, *CHILD_TABLES]},
        ).all()
    assert {r.relname: (r.relrowsecurity, r.relforcerowsecurity) for r in rows} == {
        name: (True, True) for name in (*SCOPED_TABLES, *CHILD_TABLES)
    }


def test_every_table_with_a_scope_set_is_a_scoped_table() -> None:
    with_scopes = {t.name for t in Base.metadata.sorted_tables if "scopes" in t.c}
    assert sorted(with_scopes - set(NOT_CONTENT)) == sorted(SCOPED_TABLES)


def test_policies_are_exactly_the_ones_rls_py_defines(svc: Tabane) -> None:
    """An extra permissive policy would widen visibility (policies of one command are OR-ed)."""
    with svc.store.owner.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT tablename, policyname, permissive, cmd, roles FROM pg_policies"
                " WHERE schemaname = 'public'"
            )
        ).all()
    got: dict[str, set[tuple[str, str, str]]] = {}
    for r in rows:
        assert list(r.roles) == ["public"], r  # no role-specific exceptions
        got.setdefault(r.tablename, set()).add((r.policyname, r.permissive, r.cmd))
    want = {
        name: {
            (f"{name}_select", "PERMISSIVE", "SELECT"),
            (f"{name}_insert", "PERMISSIVE", "INSERT"),
            (f"{name}_update", "PERMISSIVE", "UPDATE"),
            (f"{name}_delete", "PERMISSIVE", "DELETE"),
        }
        for name in SCOPED_TABLES
    }
    want["context_usage"] = {("context_usage_all", "PERMISSIVE", "ALL")}
    assert {name: got.get(name, set()) for name in want} == want


# --- no SET LOCAL -----------------------------------------------------------------------------


@contextmanager
def without_scopes(svc: Tabane, how: str) -> Iterator[Any]:
    """A raw connection of the application engine, or Store.unscoped(): no SET LOCAL at all."""
    if how == "raw":
        with svc.store.app.connect() as conn:
            yield conn
    else:
        with svc.store.unscoped() as session:
            yield session


@pytest.mark.slow
@pytest.mark.parametrize("how", ["raw", "unscoped"])
def test_without_set_local_only_public_rows_are_visible(svc: Tabane, trees: Any, how: str) -> None:
    _, private = trees(["user:zz"])
    _, public = trees(PUBLIC)
    _, mixed = trees(["public", "user:zz"])
    with without_scopes(svc, how) as conn:
        assert conn.execute(select(func.current_setting("tabane.read_scopes", True))).scalar() in (
            None,
            "",
        )
        for name in SCOPED_TABLES:
            t = table(name)
            hidden = select(func.count()).select_from(t).where(t.c.scopes != PUBLIC)
            assert conn.execute(hidden).scalar_one() == 0, name
        ctx = table("contexts")
        seen = conn.execute(
            select(ctx.c.id).where(ctx.c.id.in_([private["ctx"], public["ctx"], mixed["ctx"]]))
        )
        assert seen.scalars().all() == [public["ctx"]]
        usage = table("context_usage")
        seen_usage = conn.execute(
            select(usage.c.context_id).where(
                usage.c.context_id.in_([private["ctx"], public["ctx"], mixed["ctx"]])
            )
        )
        assert seen_usage.scalars().all() == [public["ctx"]]


@pytest.mark.parametrize("name", SCOPED_TABLES)
@pytest.mark.parametrize("scopes", [PUBLIC, ["user:zz"]])
def test_without_set_local_every_insert_is_refused(
    svc: Tabane, trees: Any, name: str, scopes: list[str]
) -> None:
    prefix, ids = trees(["user:zz"])
    rows = new_rows(prefix, ids, scopes)
    assert name in rows, f"add a fresh {name} row to new_rows()"
    row = rows[name]
    with svc.store.app.connect() as conn, pytest.raises(DBAPIError) as info:
        conn.execute(insert(table(name)).values(**row))
    assert refused_by_rls(info.value), info.value


def test_without_set_local_updates_and_deletes_reach_nothing(svc: Tabane, trees: Any) -> None:
    _, public = trees(PUBLIC)
    ctx = table("contexts")
    with svc.store.app.begin() as conn:
        changed = conn.execute(update(ctx).where(ctx.c.id == public["ctx"]).values(description="x"))
        assert changed.rowcount == 0
        assert conn.execute(delete(ctx).where(ctx.c.id == public["ctx"])).rowcount == 0
    with svc.store.owner.connect() as conn:
        assert (
            conn.execute(select(ctx.c.description).where(ctx.c.id == public["ctx"])).one()[0] == ""
        )


@pytest.mark.parametrize(
    ("scopes", "error"),
    [
        ([], pg_errors.CheckViolation),  # {} <@ any set: the CHECK constraint is what stops it
        ([None], pg_errors.InsufficientPrivilege),  # NULL is inside no set
        (None, pg_errors.InsufficientPrivilege),  # NULL <@ set is NULL: RLS refuses it first
    ],
)
def test_degenerate_scope_sets_are_refused(
    svc: Tabane, scopes: list[Any] | None, error: type[Exception]
) -> None:
    ctx = table("contexts")
    with (
        svc.store.session(principal({"public", "user:a"})) as session,
        pytest.raises(DBAPIError) as info,
    ):
        session.execute(insert(ctx).values(name=tag(), scopes=scopes))
    assert isinstance(info.value.orig, error), info.value


# --- SET LOCAL stays inside its transaction ---------------------------------------------------


def test_set_local_does_not_leak_into_the_next_transaction(svc: Tabane, trees: Any) -> None:
    scope = f"user:{tag()}"
    _, ids = trees([scope])
    ctx = table("contexts")
    visible = select(ctx.c.id).where(ctx.c.id == ids["ctx"])
    with svc.store.session(principal({scope})) as session:
        assert session.execute(visible).scalars().all() == [ids["ctx"]]
        pid = session.execute(select(func.pg_backend_pid())).scalar_one()

    # Hold connections from the same pool until the one that session used comes back; every
    # connection on the way must see nothing of the scope either.
    pool = svc.store.app.pool
    held = []
    try:
        for _ in range(pool.size() + 1):
            conn = svc.store.app.connect()
            held.append(conn)
            with conn.begin():
                assert conn.execute(visible).scalars().all() == []
                setting = conn.execute(select(func.current_setting("tabane.read_scopes", True)))
                assert setting.scalar() in (None, "")
                if conn.execute(select(func.pg_backend_pid())).scalar_one() == pid:
                    break
        else:
            pytest.fail("the session's pooled connection never came back")
    finally:
        for conn in held:
            conn.close()


# --- reference tables -------------------------------------------------------------------------


@pytest.mark.parametrize("name", REFERENCE_TABLES)
def test_reference_tables_are_read_only_to_the_app(svc: Tabane, name: str) -> None:
    t = table(name)
    values = {
        "users": {"name": tag()},
        "scopes": {"name": tag()},
        "grants": {"user_id": 0, "scope": "public"},
    }[name]
    everyone = principal({"public", "user:a"})
    with svc.store.session(everyone) as session:
        session.execute(select(t).limit(1)).all()  # readable
    key = next(iter(t.primary_key.columns))
    for statement in (
        insert(t).values(**values),
        update(t).where(key.is_(None)).values(**values),
        delete(t).where(key.is_(None)),
    ):
        with svc.store.session(everyone) as session, pytest.raises(DBAPIError) as info:
            session.execute(statement)
        assert isinstance(info.value.orig, pg_errors.InsufficientPrivilege), info.value
        assert "permission denied" in str(info.value.orig)


# --- parents ----------------------------------------------------------------------------------

# Sessions and recall traces hang off a user (a reference table, readable by all), not off a
# scoped row.
ROOTS = ("contexts", "groups", "sessions", "recall_traces")
CHILDREN = [name for name in SCOPED_TABLES if name not in ROOTS]


@pytest.mark.parametrize("name", CHILDREN)
def test_no_row_under_a_parent_the_caller_cannot_see(svc: Tabane, trees: Any, name: str) -> None:
    """A caller who may write `public` adds a public row under someone's private tree: a
    paragraph in their source, a source or BM25 statistics in their context, a link into their
    group. The owner of the tree would then read it as part of their own data."""
    prefix, ids = trees(["user:zz"])
    row = new_rows(prefix, ids, PUBLIC)[name]
    with pytest.raises(DBAPIError), svc.store.session(principal({"public", "user:a"})) as session:
        session.execute(insert(table(name)).values(**row))
