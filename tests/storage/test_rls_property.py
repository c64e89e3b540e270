"""Row-level security against a pure-Python oracle, on the real embedded PostgreSQL.

The rule (ARCHITECTURE.md §1, §4): a row is readable when its scope set is inside the caller's
read set, or is exactly {public}; it is insertable, updatable and deletable when its scope set is
inside the caller's write set (an update must leave it inside the write set, and the caller must
be able to see a row to update or delete it). Write ⊆ read.

Fixture rows are written through the owner engine (a superuser in the embedded setup, so it
bypasses RLS); every operation under test runs through `Store.session(principal)` on the
application engine, and the owner checks the committed state afterwards.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import errors as pg_errors
from sqlalchemy import Connection, Table, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import DBAPIError

from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import SCOPED_TABLES, Base

pytestmark = pytest.mark.slow  # a Hypothesis property run over every table

# TABANE_RLS_EXAMPLES examples in all (CI runs at least 300), spread evenly over the scoped tables;
# context_usage, a child table with one policy, gets a third of that. Each example checks up to
# SLOTS rows per operation, so one example is a handful of checks in three transactions.
EXAMPLES = int(os.environ.get("TABANE_RLS_EXAMPLES") or 300)
PER_TABLE = max(1, math.ceil(EXAMPLES / len(SCOPED_TABLES)))
SLOTS = 3
ALPHABET = ("public", "user:a", "user:b", "org:x", "org:y")

HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
RLS_SETTINGS = settings(
    max_examples=PER_TABLE, deadline=None, database=None, suppress_health_check=HEALTH
)
USAGE_SETTINGS = settings(
    max_examples=max(1, EXAMPLES // 3), deadline=None, database=None, suppress_health_check=HEALTH
)

_serial = itertools.count()


# --- the oracle -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Oracle:
    """What the rule says, in plain Python over sets."""

    def readable(self, p: Principal, row: frozenset[str]) -> bool:
        return row <= p.read or row == {"public"}

    def writable(self, p: Principal, row: frozenset[str]) -> bool:
        return row <= p.write

    def changeable(self, p: Principal, row: frozenset[str]) -> bool:
        """An UPDATE or DELETE reaches the row (otherwise it silently affects 0 rows)."""
        return self.readable(p, row) and self.writable(p, row)


ORACLE = Oracle()


# --- per-table fixtures -----------------------------------------------------------------------
#
# Every example numbers its rows by slot: the caller only reads ROLE["seen"], updates a non-scope
# column of ROLE["changed"], changes the scope set of ROLE["rescoped"], deletes ROLE["deleted"] and
# inserts ROLE["inserted"]; link tables move the i-th changed row onto the parent of slot
# ROLE["moved"][i]. Each slot gets its own parent rows (context, source, paragraph, groups),
# carrying that slot's scope set: the property is about a row's own scope set, and stays neutral
# on whether a child may hang under a parent the caller cannot see (see test_rls_roles.py).

ROLES = ("seen", "changed", "rescoped", "deleted", "inserted", "moved")
ROLE = {role: range(i * SLOTS, (i + 1) * SLOTS) for i, role in enumerate(ROLES)}

Slots = Mapping[int, list[str]]  # slot -> the scope set of the row (and of its parents)
Parents = dict[str, dict[int, int]]  # kind of parent -> slot -> id


def table(name: str) -> Table:
    return Base.metadata.tables[name]


def _ids(conn: Connection, name: str, rows: Mapping[int, dict[str, Any]]) -> dict[int, int]:
    """Insert one row per slot (in one statement); return slot -> id."""
    t = table(name)
    stmt = insert(t).returning(t.c.id, sort_by_parameter_order=True)
    ids = conn.execute(stmt, list(rows.values())).scalars()
    return dict(zip(rows, ids, strict=True))


def _contexts(conn: Connection, tag: str, slots: Slots, kind: str = "c") -> dict[int, int]:
    rows = {n: {"name": f"{tag}{kind}{n}", "scopes": s} for n, s in slots.items()}
    return _ids(conn, "contexts", rows)


def _groups(conn: Connection, tag: str, slots: Slots, kind: str = "g") -> dict[int, int]:
    rows = {n: {"name": f"{tag}{kind}{n}", "scopes": s} for n, s in slots.items()}
    return _ids(conn, "groups", rows)


def _sources(conn: Connection, tag: str, slots: Slots) -> Parents:
    ctx = _contexts(conn, tag, slots)
    rows = {
        n: {"context_id": ctx[n], "source_id": f"{tag}s{n}", "content_hash": "h", "scopes": s}
        for n, s in slots.items()
    }
    return {"ctx": ctx, "src": _ids(conn, "sources", rows)}


def _paragraphs(conn: Connection, tag: str, slots: Slots) -> Parents:
    p = _sources(conn, tag, slots)
    rows = {
        n: {"source_pk": p["src"][n], "context_id": p["ctx"][n], "idx": 0, "text": "t", "scopes": s}
        for n, s in slots.items()
    }
    return {**p, "par": _ids(conn, "paragraphs", rows)}


def _vocabulary(conn: Connection, tag: str, slots: Slots) -> Parents:
    ctx = _contexts(conn, tag, slots)
    rows = {
        n: {
            "context_id": ctx[n],
            "kind": "concept",
            "name": f"{tag}v{n}",
            "norm": "v",
            "key": "v",
            "scopes": s,
        }
        for n, s in slots.items()
    }
    return {"ctx": ctx, "voc": _ids(conn, "vocabulary", rows)}


@dataclass(frozen=True)
class Spec:
    """How to make the row of one slot of one scoped table, and change a non-scope column.

    Rows are identified by a natural key (a unique column set) so rows the caller inserts can be
    found again through the owner. `parents` creates the rows the foreign keys need, per slot;
    `change(p, i)` is the non-scope change of the i-th changed row.
    """

    name: str
    key: tuple[str, ...]
    parents: Callable[[Connection, str, Slots], Parents]
    row: Callable[[Parents, str, int], dict[str, Any]]
    change: Callable[[Parents, int], dict[str, Any]]

    def where(self, values: Mapping[str, Any]) -> Any:
        t = table(self.name)
        return and_(*(t.c[k] == values[k] for k in self.key))

    def ident(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(values[k] for k in self.key)


def _claims(conn: Connection, tag: str, slots: Slots) -> Parents:
    ctx = _contexts(conn, tag, slots)
    rows = {
        n: {"context_id": ctx[n], "statement": "s", "author": f"{tag}a{n}", "scopes": s}
        for n, s in slots.items()
    }
    return {"ctx": ctx, "claim": _ids(conn, "claims", rows)}


def _user(conn: Connection, tag: str, slots: Slots) -> Parents:
    """One user owning every slot's session (sessions are unique per user and name)."""
    uid = _ids(conn, "users", {0: {"name": f"{tag}user"}})[0]
    return {"user": dict.fromkeys(slots, uid)}


def _sessions(conn: Connection, tag: str, slots: Slots) -> Parents:
    p = _user(conn, tag, slots)
    rows = {
        n: {"user_id": p["user"][n], "name": f"{tag}s{n}", "scopes": s} for n, s in slots.items()
    }
    return {**p, "ses": _ids(conn, "sessions", rows)}


def _turns(conn: Connection, tag: str, slots: Slots) -> Parents:
    p = _sessions(conn, tag, slots)
    rows = {
        n: {"session_pk": p["ses"][n], "seq": 0, "speaker": "s", "text": "t", "scopes": s}
        for n, s in slots.items()
    }
    return {**p, "turn": _ids(conn, "session_turns", rows)}


def _community_row(ctx: int, n: int) -> dict[str, Any]:
    return {
        "context_id": ctx, "level": 0, "ordinal": n, "size": 1, "summary": "before",
        "summarizer": "edges-v1", "graph_version": "v", "graph_edges": 0,
    }  # fmt: skip


def _communities(conn: Connection, tag: str, slots: Slots) -> Parents:
    ctx = _contexts(conn, tag, slots)
    rows = {n: {**_community_row(ctx[n], 0), "scopes": s} for n, s in slots.items()}
    return {"ctx": ctx, "com": _ids(conn, "communities", rows)}


def _raptor_row(ctx: int, n: int) -> dict[str, Any]:
    return {
        "context_id": ctx, "level": 1, "ordinal": n, "size": 1, "leaves": 1, "summary": "before",
        "summarizer": "extractive", "fingerprint": "f", "refs": [], "corpus_version": "v",
    }  # fmt: skip


def _raptor_nodes(conn: Connection, tag: str, slots: Slots) -> Parents:
    ctx = _contexts(conn, tag, slots)
    rows = {n: {**_raptor_row(ctx[n], 0), "scopes": s} for n, s in slots.items()}
    return {"ctx": ctx, "node": _ids(conn, "raptor_nodes", rows)}


def cleanup(conn: Connection, tag: str) -> None:
    """Remove every context, group and user an example created; cascades remove the rest."""
    for name in ("contexts", "groups", "users"):
        t = table(name)
        conn.execute(delete(t).where(t.c.name.startswith(tag, autoescape=True)))


def _none(conn: Connection, tag: str, slots: Slots) -> Parents:
    return {}


def _both(conn: Connection, tag: str, slots: Slots) -> Parents:
    return {"g": _groups(conn, tag, slots), "c": _contexts(conn, tag, slots)}


def _two_groups(conn: Connection, tag: str, slots: Slots) -> Parents:
    return {"parent": _groups(conn, tag, slots, "p"), "child": _groups(conn, tag, slots, "k")}


def _moved(i: int) -> int:
    return ROLE["moved"][i]


SPECS: dict[str, Spec] = {
    "contexts": Spec(
        "contexts",
        ("name",),
        _none,
        lambda p, tag, n: {"name": f"{tag}r{n}", "description": "before"},
        lambda p, i: {"description": "after"},
    ),
    "groups": Spec(
        "groups",
        ("name",),
        _none,
        lambda p, tag, n: {"name": f"{tag}r{n}", "description": "before"},
        lambda p, i: {"description": "after"},
    ),
    "group_contexts": Spec(
        "group_contexts",
        ("group_id", "context_id"),
        _both,
        lambda p, tag, n: {"group_id": p["g"][n], "context_id": p["c"][n]},
        lambda p, i: {"context_id": p["c"][_moved(i)]},
    ),
    "group_children": Spec(
        "group_children",
        ("parent_id", "child_id"),
        _two_groups,
        lambda p, tag, n: {"parent_id": p["parent"][n], "child_id": p["child"][n]},
        lambda p, i: {"child_id": p["child"][_moved(i)]},
    ),
    "sources": Spec(
        "sources",
        ("context_id", "source_id"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {
            "context_id": p["ctx"][n],
            "source_id": f"{tag}r{n}",
            "content_hash": "h",
            "title": "before",
        },
        lambda p, i: {"title": "after"},
    ),
    "sections": Spec(
        "sections",
        ("source_pk", "ordinal"),
        _sources,
        lambda p, tag, n: {
            "source_pk": p["src"][n],
            "context_id": p["ctx"][n],
            "ordinal": n,
            "path": ["h"],
            "title": "before",
            "level": 1,
        },
        lambda p, i: {"title": "after"},
    ),
    "paragraphs": Spec(
        "paragraphs",
        ("source_pk", "idx"),
        _sources,
        lambda p, tag, n: {
            "source_pk": p["src"][n],
            "context_id": p["ctx"][n],
            "idx": n,
            "text": "before",
        },
        lambda p, i: {"text": "after"},
    ),
    "bm25_packs": Spec(
        "bm25_packs",
        ("source_pk", "term"),
        _sources,
        lambda p, tag, n: {
            "source_pk": p["src"][n],
            "term": f"t{n}",
            "context_id": p["ctx"][n],
            "postings": bytes(20),
        },
        lambda p, i: {"postings": bytes(40)},
    ),
    "bm25_merged": Spec(
        "bm25_merged",
        ("context_id", "term"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "term": f"t{n}", "postings": bytes(20)},
        lambda p, i: {"postings": bytes(40)},
    ),
    "vocabulary_gram_packs": Spec(
        "vocabulary_gram_packs",
        ("context_id", "kind", "gram"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {
            "context_id": p["ctx"][n],
            "kind": "concept",
            "gram": f"g{n}",
            "records": bytes(12),
        },
        lambda p, i: {"records": bytes(24)},
    ),
    "bm25_dead": Spec(  # each slot has its own context, so that names the row
        "bm25_dead",
        ("context_id",),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "ids": bytes(8)},
        lambda p, i: {"ids": bytes(16)},
    ),
    "bm25_corpus": Spec(  # one row per (context, scope set): each slot has its own context
        "bm25_corpus",
        ("context_id",),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "paragraphs": 1, "total_length": 1},
        lambda p, i: {"paragraphs": 2},
    ),
    "context_schemas": Spec(  # one row per context: each slot has its own context
        "context_schemas",
        ("context_id",),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "version": 1, "document": {"n": n}},
        lambda p, i: {"version": 2},
    ),
    "bm25_terms": Spec(
        "bm25_terms",
        ("context_id", "term"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "term": f"t{n}", "df": 1},
        lambda p, i: {"df": 2},
    ),
    "paragraph_vectors": Spec(
        "paragraph_vectors",
        ("paragraph_id", "ord"),
        _paragraphs,
        lambda p, tag, n: {
            "paragraph_id": p["par"][n],
            "ord": n,
            "context_id": p["ctx"][n],
            "source_pk": p["src"][n],
            "model": "before",
            "dim": 3,
            "embedding": [1.0, 0.0, 0.0],
        },
        lambda p, i: {"model": "after"},
    ),
    "vocabulary": Spec(
        "vocabulary",
        ("context_id", "kind", "name"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {
            "context_id": p["ctx"][n],
            "kind": "concept",
            "name": f"{tag}r{n}",
            "norm": "before",
            "key": "k",
        },
        lambda p, i: {"norm": "after"},
    ),
    "vocabulary_grams": Spec(
        "vocabulary_grams",
        ("entry_id", "gram"),
        _vocabulary,
        lambda p, tag, n: {
            "entry_id": p["voc"][n],
            "gram": f"g{n}",
            "context_id": p["ctx"][n],
            "kind": "concept",
        },
        lambda p, i: {"kind": "label"},
    ),
    "vocabulary_readings": Spec(
        "vocabulary_readings",
        ("entry_id", "how", "key"),
        _vocabulary,
        lambda p, tag, n: {
            "entry_id": p["voc"][n],
            "how": "reading",
            "key": f"k{n}",
            "context_id": p["ctx"][n],
            "kind": "concept",
        },
        lambda p, i: {"kind": "label"},
    ),
    "vocabulary_vectors": Spec(
        "vocabulary_vectors",
        ("entry_id", "model"),
        _vocabulary,
        lambda p, tag, n: {
            "entry_id": p["voc"][n],
            "model": "m",
            "context_id": p["ctx"][n],
            "dim": 3,
            "gloss": "before",
            "embedding": [1.0, 0.0, 0.0],
        },
        lambda p, i: {"gloss": "after"},
    ),
    "vocabulary_sizes": Spec(  # one row per (context, kind, scope set): a context per slot
        "vocabulary_sizes",
        ("context_id", "kind"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "kind": "concept", "entries": 1},
        lambda p, i: {"entries": 2},
    ),
    "vocabulary_gram_stats": Spec(
        "vocabulary_gram_stats",
        ("context_id", "kind", "gram"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {"context_id": p["ctx"][n], "kind": "concept", "gram": f"g{n}", "df": 1},
        lambda p, i: {"df": 2},
    ),
    "sessions": Spec(
        "sessions",
        ("user_id", "name"),
        _user,
        lambda p, tag, n: {"user_id": p["user"][n], "name": f"{tag}r{n}", "turns": 0},
        lambda p, i: {"turns": 2},
    ),
    "recall_traces": Spec(  # no natural key: the question names the row
        "recall_traces",
        ("user_id", "question"),
        _user,
        lambda p, tag, n: {
            "user_id": p["user"][n],
            "question": f"{tag}r{n}",
            "plan": "p",
            "trace": {"n": n},
        },
        lambda p, i: {"plan": "changed"},
    ),
    "session_turns": Spec(
        "session_turns",
        ("session_pk", "seq"),
        _sessions,
        lambda p, tag, n: {"session_pk": p["ses"][n], "seq": n, "speaker": "s", "text": "before"},
        lambda p, i: {"text": "after"},
    ),
    "turn_vectors": Spec(
        "turn_vectors",
        ("turn_id", "model"),
        _turns,
        lambda p, tag, n: {
            "turn_id": p["turn"][n],
            "model": "m",
            "session_pk": p["ses"][n],
            "dim": 3,
            "embedding": [1.0, 0.0, 0.0],
        },
        lambda p, i: {"dim": 4, "embedding": [1.0, 0.0, 0.0, 0.0]},
    ),
    "claims": Spec(  # no natural key: the author names the row
        "claims",
        ("context_id", "author"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {
            "context_id": p["ctx"][n],
            "subject": "s",
            "label": "l",
            "object": "o",
            "weight": 1.0,
            "author": f"{tag}r{n}",
        },
        lambda p, i: {"weight": -0.5},
    ),
    "claim_vectors": Spec(
        "claim_vectors",
        ("claim_id", "model"),
        _claims,
        lambda p, tag, n: {
            "claim_id": p["claim"][n],
            "model": "m",
            "context_id": p["ctx"][n],
            "dim": 3,
            "embedding": [1.0, 0.0, 0.0],
        },
        lambda p, i: {"dim": 4, "embedding": [1.0, 0.0, 0.0, 0.0]},
    ),
    "communities": Spec(  # one context per slot: its ordinal names the row
        "communities",
        ("context_id", "ordinal"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: _community_row(p["ctx"][n], n),
        lambda p, i: {"summary": "after"},
    ),
    "community_members": Spec(
        "community_members",
        ("community_id", "concept"),
        _communities,
        lambda p, tag, n: {
            "community_id": p["com"][n],
            "concept": f"{tag}r{n}",
            "context_id": p["ctx"][n],
            "rank": 0,
            "weight": 1.0,
        },
        lambda p, i: {"weight": 2.0},
    ),
    "profiles": Spec(  # one context per slot: its concept names the row
        "profiles",
        ("context_id", "concept"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {
            "context_id": p["ctx"][n],
            "concept": f"{tag}r{n}",
            "weight": 1.0,
            "summary": "before",
            "summarizer": "extractive",
            "fingerprint": "f",
            "refs": ["c:1"],
            "claim_version": "v",
        },
        lambda p, i: {"summary": "after"},
    ),
    "raptor_nodes": Spec(  # one context per slot: its ordinal names the row
        "raptor_nodes",
        ("context_id", "ordinal"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: _raptor_row(p["ctx"][n], n),
        lambda p, i: {"summary": "after"},
    ),
    "raptor_members": Spec(
        "raptor_members",
        ("node_id", "ref"),
        _raptor_nodes,
        lambda p, tag, n: {
            "node_id": p["node"][n],
            "ref": f"p:{tag}r{n}",
            "context_id": p["ctx"][n],
            "rank": 0,
        },
        lambda p, i: {"rank": 2},
    ),
    "associations": Spec(
        "associations",
        ("context_id", "subject"),
        lambda conn, tag, slots: {"ctx": _contexts(conn, tag, slots)},
        lambda p, tag, n: {
            "context_id": p["ctx"][n],
            "subject": f"{tag}r{n}",
            "label": "l",
            "object": "o",
            "weight": 1.0,
            "claims": 1,
        },
        lambda p, i: {"weight": -0.5, "claims": 2},
    ),
}


def test_every_scoped_table_has_a_spec() -> None:
    """A new scoped table needs a Spec here, so the property covers it."""
    assert sorted(set(SCOPED_TABLES) - set(SPECS)) == []
    assert sorted(set(SPECS) - set(SCOPED_TABLES)) == []


# --- strategies -------------------------------------------------------------------------------

scope_lists = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=len(ALPHABET), unique=True)


@st.composite
def principals(draw: st.DrawFn) -> Principal:
    """A caller with write ⊆ read; mostly one that may read some scopes it may not write."""
    wide = draw(st.sampled_from((True, True, True, False)))
    read = draw(st.frozensets(st.sampled_from(ALPHABET), min_size=2 if wide else 0))
    mode = draw(st.sampled_from(("proper", "proper", "all", "none", "any")))
    write: frozenset[str]
    if mode == "proper" and len(read) > 1:
        some = st.lists(st.sampled_from(sorted(read)), min_size=1, max_size=len(read) - 1)
        write = frozenset(draw(some))
    elif mode == "all":
        write = read
    elif mode == "none" or not read:
        write = frozenset()
    else:
        write = draw(st.frozensets(st.sampled_from(sorted(read))))
    return Principal(
        user_id=0, name="p", read=read, write=write, default_scopes=tuple(sorted(write))
    )


NEAR = ("any", "public", "write", "read", "write+1", "write+1", "write+read")
WRITABLE = ("any", "public", "write", "write", "read", "write+1", "write+read", "write+read")


@st.composite
def near(draw: st.DrawFn, p: Principal, kinds: tuple[str, ...] = NEAR) -> list[str]:
    """A scope set (a list in any order), mostly drawn at the principal's boundaries: inside
    its write set, inside its read set, part of its write set plus one scope outside it (or
    one it may only read)."""
    outside = [a for a in ALPHABET if a not in p.write]
    read_only = sorted(p.read - p.write)
    kind = draw(st.sampled_from(kinds))
    chosen: list[str]
    if kind == "write" and p.write:
        chosen = draw(st.lists(st.sampled_from(sorted(p.write)), min_size=1, unique=True))
    elif kind == "read" and p.read:
        chosen = draw(st.lists(st.sampled_from(sorted(p.read)), min_size=1, unique=True))
    elif kind == "write+1" and outside:
        inside = sorted(p.write)
        chosen = draw(st.lists(st.sampled_from(inside), min_size=1, unique=True)) if inside else []
        chosen = [*chosen, draw(st.sampled_from(outside))]
    elif kind == "write+read" and p.write and read_only:
        chosen = draw(st.lists(st.sampled_from(sorted(p.write)), min_size=1, unique=True))
        chosen = [*chosen, *draw(st.lists(st.sampled_from(read_only), min_size=1, unique=True))]
    elif kind == "public":
        chosen = ["public"]
    else:
        chosen = draw(scope_lists)
    return list(draw(st.permutations(chosen)))


@dataclass(frozen=True)
class Case:
    """The caller and the drawn scope sets: stored rows per role, rows to insert, and the new
    set of each rescoped row."""

    principal: Principal
    seen: list[list[str]]
    changed: list[list[str]]
    rescoped: list[list[str]]
    deleted: list[list[str]]
    inserted: list[list[str]]
    rescope_to: list[list[str]]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    p = draw(principals())
    some = st.lists(near(p), min_size=1, max_size=SLOTS)
    writable = st.lists(near(p, WRITABLE), min_size=SLOTS, max_size=SLOTS)
    return Case(
        principal=p,
        seen=draw(some),
        changed=draw(writable),
        rescoped=draw(writable),
        deleted=draw(writable),
        inserted=draw(some),
        rescope_to=draw(st.lists(near(p), min_size=SLOTS, max_size=SLOTS)),
    )


# --- helpers ----------------------------------------------------------------------------------


def no_fsync(conn: Any) -> None:
    """This transaction need not wait for its commit to reach disk (a test-speed setting only)."""
    conn.execute(select(func.set_config("synchronous_commit", "off", True)))


def refused_by_rls(exc: DBAPIError) -> bool:
    return isinstance(exc.orig, pg_errors.InsufficientPrivilege) and (
        "row-level security" in str(exc.orig)
    )


# Child rows whose foreign key includes the parent's scope set (schema._same_scopes): such a row
# cannot change its scope set alone — its parent's would have to change with it.
SAME_SCOPES_AS_PARENT = frozenset(
    (
        "group_contexts",
        "group_children",
        "sections",
        "paragraphs",
        "bm25_packs",
        "paragraph_vectors",
        "vocabulary_grams",
        "vocabulary_readings",
        "vocabulary_vectors",
        "claim_vectors",
        "session_turns",
        "turn_vectors",
        "community_members",
        "raptor_members",
    )
)


def test_same_scopes_as_parent_lists_every_table_keyed_on_its_parents_scopes() -> None:
    keyed = {
        t.name
        for t in Base.metadata.sorted_tables
        if any("scopes" in fk.column_keys for fk in t.foreign_key_constraints)
    }
    assert sorted(keyed) == sorted(SAME_SCOPES_AS_PARENT)


KEY_MISMATCH = -1  # attempt(): the foreign key (parent id, scopes) refused the row


def attempt(session: Any, statement: Any) -> int | None:
    """Run one statement in a savepoint: its rowcount, None when RLS refused it, or KEY_MISMATCH
    when the parent-scopes foreign key did."""
    try:
        with session.begin_nested():
            return int(session.execute(statement).rowcount)
    except DBAPIError as exc:
        if isinstance(exc.orig, pg_errors.ForeignKeyViolation):
            return KEY_MISMATCH
        if not refused_by_rls(exc):
            raise
        return None


# --- the property -----------------------------------------------------------------------------


def check_table(svc: Tabane, oracle: Oracle, spec: Spec, case: Case) -> None:
    """One example: the owner seeds rows, the caller reads, inserts, updates and deletes them
    (each statement in its own savepoint), and the owner checks the committed state."""
    t = table(spec.name)
    principal = case.principal
    tag = f"rls{os.getpid()}x{next(_serial)}x"
    stored: dict[int, list[str]] = {}  # slot -> scope list, for the rows the owner seeds
    for role in ("seen", "changed", "rescoped", "deleted"):
        stored.update(zip(ROLE[role], getattr(case, role), strict=False))
    inserted = dict(zip(ROLE["inserted"], case.inserted, strict=False))
    rescope_to = dict(zip(ROLE["rescoped"], case.rescope_to, strict=False))

    changed = [n for n in ROLE["changed"] if n in stored]
    slots = {**stored, **inserted, **{_moved(i): stored[n] for i, n in enumerate(changed)}}

    def can_change(n: int) -> bool:
        return oracle.changeable(principal, frozenset(stored[n]))

    with svc.store.owner.begin() as conn:
        no_fsync(conn)
        p = spec.parents(conn, tag, slots)
        rows = {n: {**spec.row(p, tag, n), "scopes": s} for n, s in stored.items()}
        conn.execute(insert(t), list(rows.values()))
    new_rows = {n: {**spec.row(p, tag, n), "scopes": s} for n, s in inserted.items()}
    try:
        with svc.store.session(principal) as session:
            no_fsync(session)
            # SELECT: exactly the readable rows come back.
            everyone = select(*(t.c[k] for k in spec.key)).where(
                or_(*(spec.where(row) for row in rows.values()))
            )
            seen = {tuple(r) for r in session.execute(everyone)}
            want_seen = {
                spec.ident(row)
                for n, row in rows.items()
                if oracle.readable(principal, frozenset(stored[n]))
            }
            assert seen == want_seen

            # INSERT: allowed iff the new row's set is writable, otherwise refused with an error.
            got_insert = {
                n: attempt(session, insert(t).values(**row)) for n, row in new_rows.items()
            }
            for n, got in got_insert.items():
                assert (got is not None) == oracle.writable(principal, frozenset(inserted[n])), n

            # UPDATE of a non-scope column: 1 row iff readable and writable, else silently 0.
            got_change = {}
            for i, n in enumerate(changed):
                statement = update(t).where(spec.where(rows[n])).values(**spec.change(p, i))
                got_change[n] = attempt(session, statement)
                assert got_change[n] == int(can_change(n)), n

            # UPDATE of the scope set: reached iff changeable; then refused unless still writable.
            got_rescope = {}
            for n in (n for n in ROLE["rescoped"] if n in rows):
                statement = update(t).where(spec.where(rows[n])).values(scopes=rescope_to[n])
                got_rescope[n] = attempt(session, statement)
                if not can_change(n):
                    assert got_rescope[n] == 0, n
                elif not oracle.writable(principal, frozenset(rescope_to[n])):
                    assert got_rescope[n] is None, n
                elif spec.name in SAME_SCOPES_AS_PARENT and rescope_to[n] != stored[n]:
                    assert got_rescope[n] == KEY_MISMATCH, n
                else:
                    assert got_rescope[n] == 1, n

            # DELETE: 1 row iff readable and writable, else silently 0.
            got_delete = {}
            for n in (n for n in ROLE["deleted"] if n in rows):
                got_delete[n] = attempt(session, delete(t).where(spec.where(rows[n])))
                assert got_delete[n] == int(can_change(n)), n

        # The committed state, through the owner; then clean up in the same transaction.
        with svc.store.owner.begin() as conn:
            no_fsync(conn)

            def stored_at(key: Mapping[str, Any]) -> Mapping[str, Any] | None:
                return conn.execute(select(t).where(spec.where(key))).mappings().one_or_none()

            def scopes_at(key: Mapping[str, Any]) -> frozenset[str] | None:
                row = stored_at(key)
                return None if row is None else frozenset(row["scopes"])

            for n in ROLE["seen"]:
                if n in rows:
                    assert scopes_at(rows[n]) == frozenset(stored[n]), n
            for i, n in enumerate(changed):
                change = spec.change(p, i)
                if got_change[n]:
                    moved = {**rows[n], **change}
                    after = stored_at(moved)
                    assert after is not None, n
                    assert {k: after[k] for k in change} == change, n
                    assert frozenset(after["scopes"]) == frozenset(stored[n]), n
                else:
                    before = stored_at(rows[n])
                    assert before is not None, n
                    assert {k: before[k] for k in change} == {k: rows[n][k] for k in change}, n
            for n, got in got_rescope.items():
                want = rescope_to[n] if got == 1 else stored[n]
                assert scopes_at(rows[n]) == frozenset(want), n
            for n, got in got_delete.items():
                assert scopes_at(rows[n]) == (None if got else frozenset(stored[n])), n
            for n, got in got_insert.items():
                want_new = None if got is None else frozenset(inserted[n])
                assert scopes_at(new_rows[n]) == want_new, n
            cleanup(conn, tag)
    except BaseException:
        with svc.store.owner.begin() as conn:
            cleanup(conn, tag)
        raise


@pytest.mark.parametrize("name", [name for name in SCOPED_TABLES if name in SPECS])
def test_rls_matches_the_oracle(svc: Tabane, name: str) -> None:
    spec = SPECS[name]

    @RLS_SETTINGS
    @given(case=cases())
    def prop(case: Case) -> None:
        check_table(svc, ORACLE, spec, case)

    prop()


# --- context_usage: a child table, visible and changeable iff its context is visible ----------


def check_usage(
    svc: Tabane, oracle: Oracle, principal: Principal, contexts: tuple[list[str], ...]
) -> None:
    """Contexts 0..4 with the drawn scope sets; usage rows on 0 (bumped), 2 (deleted), 3 (moved
    to context 4); the caller inserts a usage row for context 1."""
    usage, ctx = table("context_usage"), table("contexts")
    tag = f"rlsu{os.getpid()}x{next(_serial)}x"
    sets = [frozenset(s) for s in contexts]
    visible = [oracle.readable(principal, s) for s in sets]
    with svc.store.owner.begin() as conn:
        no_fsync(conn)
        ids = list(_contexts(conn, tag, dict(enumerate(contexts))).values())
        conn.execute(insert(usage), [{"context_id": ids[n]} for n in (0, 2, 3)])
    bump, new, gone, moved, dest = ids
    try:
        with svc.store.session(principal) as session:
            no_fsync(session)
            seen = set(
                session.execute(
                    select(usage.c.context_id).where(usage.c.context_id.in_(ids))
                ).scalars()
            )
            assert seen == {ids[n] for n in (0, 2, 3) if visible[n]}
            got_insert = attempt(session, insert(usage).values(context_id=new))
            assert (got_insert is not None) == visible[1]
            got_bump = attempt(
                session,
                update(usage).where(usage.c.context_id == bump).values(reads=usage.c.reads + 1),
            )
            assert got_bump == int(visible[0])
            got_delete = attempt(session, delete(usage).where(usage.c.context_id == gone))
            assert got_delete == int(visible[2])
            got_move = attempt(
                session, update(usage).where(usage.c.context_id == moved).values(context_id=dest)
            )
            if not visible[3]:
                assert got_move == 0
            else:
                assert got_move == (1 if visible[4] else None)

        with svc.store.owner.begin() as conn:
            no_fsync(conn)
            found = conn.execute(select(usage).where(usage.c.context_id.in_(ids)))
            reads = {row.context_id: row.reads for row in found}
            want = {bump: int(visible[0])}
            if got_insert is not None:
                want[new] = 0
            if not got_delete:
                want[gone] = 0
            want[dest if got_move == 1 else moved] = 0
            assert reads == want
            conn.execute(delete(ctx).where(ctx.c.id.in_(ids)))
    except BaseException:
        with svc.store.owner.begin() as conn:
            conn.execute(delete(ctx).where(ctx.c.id.in_(ids)))
        raise


@st.composite
def usage_cases(draw: st.DrawFn) -> tuple[Principal, tuple[list[str], ...]]:
    p = draw(principals())
    return p, tuple(draw(near(p)) for _ in range(5))


def test_context_usage_follows_its_context(svc: Tabane) -> None:
    @USAGE_SETTINGS
    @given(case=usage_cases())
    def prop(case: tuple[Principal, tuple[list[str], ...]]) -> None:
        check_usage(svc, ORACLE, *case)

    prop()
