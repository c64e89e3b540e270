"""Recall's statement reads no table whole: its plan, as PostgreSQL makes and runs it for the
statement SQLAlchemy generates (bound as recall binds it, under recall's settings and row-level
security), scans no table of the store's rows once per row of another — the vector lane's reply
scoring hashed every paragraph (or every vector) for each hit that asks, a cost of hits × store
(bench/recall_tail.py), and the candidates' sources, joined on a CASE, were read whole once per
candidate on a store of a few hundred sources — and has no sequential scan of `paragraphs` at all
once the store holds enough of them for the planner to prefer its indexes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from sqlalchemy import Integer, event, func, insert, literal, select, text
from sqlalchemy.orm import Session

from tabane.ingest.documents import DocumentInput, block
from tabane.recall import gather
from tabane.recall.plan import Tunables
from tabane.recall.statement import build_recall_statement
from tabane.search import vectors
from tabane.search.search import QueryVector
from tabane.service import Tabane
from tabane.storage import hnsw
from tabane.storage.schema import Context, Paragraph, Source

SOURCES, PER_SOURCE = 200, 100  # 20k paragraphs: past this the planner reads the indexes
EMBEDDED = 5  # sources whose paragraphs get vectors near the question (so some hits ask)
TABLE = "paragraph_vectors"
DEEP = 20_000  # vectors for the deep pool's plan (written with the HNSW index set aside)
# The tables this test fills to a store's proportions. (Claims, edges and turns stay few here,
# so the planner rightly reads them whole; at scale they are read by key like these.)
STORE = {"paragraphs", "paragraph_vectors", "sources"}


QUESTION = np.full(512, 512**-0.5, dtype=np.float32)


class Near:
    """An `Embedder`'s name and width, for `vectors.store`."""

    name, dim = "plan-test-512", 512


def _load(svc: Tabane, user: Any, context: str, embedded: int = EMBEDDED) -> None:
    """One source ingested as usual, then SOURCES more of PER_SOURCE paragraphs each written by
    one INSERT … SELECT (every fifth asks, so the reply scoring has work), the first `embedded`
    sources' paragraphs with vectors, and ANALYZE."""
    svc.ingest(user, context, DocumentInput("seed", paragraphs=[block("how is it done?")]))
    rebuild = embedded > EMBEDDED and hnsw.suspend(svc.store.owner, 512)  # a bulk load's way
    with svc.store.session(user) as session:
        seed = session.scalars(select(Source).where(Source.source_id == "seed")).one()
        n = func.generate_series(1, SOURCES).table_valued("n").render_derived("s")
        session.execute(
            insert(Source).from_select(
                ["context_id", "source_id", "content_hash", "scopes"],
                select(
                    literal(seed.context_id),
                    func.concat("bulk/", n.c.n),
                    func.md5(func.concat("bulk/", n.c.n)),
                    literal(seed.scopes, Source.scopes.type),
                ),
            )
        )
        i = func.generate_series(0, PER_SOURCE - 1).table_valued("i").render_derived("p")
        asks = i.c.i % 5 == 0
        words = func.concat("paragraph ", i.c.i, " of ", Source.source_id, " says something")
        session.execute(
            insert(Paragraph).from_select(
                ["source_pk", "context_id", "idx", "text", "scopes"],
                select(
                    Source.id,
                    Source.context_id,
                    i.c.i,
                    func.concat(words, func.repeat("?", func.cast(asks, Integer))),
                    Source.scopes,
                )
                .select_from(Source)
                .join(i, literal(True))
                .where(Source.source_id.like("bulk/%")),
            )
        )
        rng = np.random.default_rng(5)
        bulk = select(Source).where(Source.source_id.like("bulk/%")).order_by(Source.id)
        for source in session.scalars(bulk.limit(embedded)).all():
            ids = session.scalars(select(Paragraph.id).where(Paragraph.source_pk == source.id))
            keys = [(int(i), 0) for i in ids]
            near = QUESTION + 0.05 * rng.standard_normal((len(keys), 512))
            near /= np.linalg.norm(near, axis=1)[:, None]
            ctx, pk, scopes = source.context_id, source.id, source.scopes
            vectors.store(session, Near(), ctx, pk, scopes, keys, near.astype(np.float32))
    if rebuild:
        hnsw.rebuild(svc.store.owner)
    with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE sources, paragraphs, paragraph_vectors"))


def _bound(
    session: Session, context: str, t: Tunables | None = None, floor: float | None = None
) -> tuple[Any, dict[str, Any]]:
    """The maximal plan's shape and its bound parameters for the test question in `context`,
    the session's settings made as recall makes them."""
    qv = QueryVector(QUESTION, Near.name, Near.dim, None)
    t = t or Tunables()
    ctx = session.scalars(select(Context).where(Context.name == context)).one()
    shape, _ = gather.shape_for("maximal", qv, None)
    params = gather.bind("how is it done?", [ctx], [floor], qv, None, t)
    params["paragraph_lanes"] = 2.0
    gather._settings(session)
    gather.bind_before(session, shape, [ctx], params, True, t)
    return shape, params


def _plan(session: Session, stmt: Any, params: dict[str, Any]) -> dict[str, Any]:
    """EXPLAIN ANALYZE of `stmt` exactly as SQLAlchemy sends it (captured at the cursor)."""
    with _sent(session) as sent:
        session.execute(stmt, params).all()
    return _explained(session, *sent[-1])


@contextmanager
def _sent(session: Session) -> Iterator[list[tuple[str, Any]]]:
    """The SQL and bound values of every statement the session sends meanwhile."""
    conn = session.connection()
    sent: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, sql: str, bound: Any, _ctx: Any, _many: Any) -> None:
        sent.append((sql, bound))

    event.listen(conn, "before_cursor_execute", capture)
    try:
        yield sent
    finally:
        event.remove(conn, "before_cursor_execute", capture)


def _explained(session: Session, sql: str, bound: Any) -> dict[str, Any]:
    conn = session.connection()
    with conn.connection.driver_connection.cursor() as cur:  # type: ignore[union-attr]
        cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, bound)
        raw = cur.fetchone()[0]
    doc = raw if isinstance(raw, list) else json.loads(raw)
    return dict(doc[0]["Plan"])


def _scans(node: dict[str, Any], table: str) -> list[dict[str, Any]]:
    """The plan nodes that read `table`."""
    found = [node] if node.get("Relation Name") == table else []
    for child in node.get("Plans", []):
        found += _scans(child, table)
    return found


def _whole_reads(node: dict[str, Any], repeated: bool = False) -> list[tuple[str, str, bool]]:
    """(table, alias, repeated) of each read of a store table not bounded by an index key (a
    sequential scan, an index read in order without a condition), `repeated` when it or a node
    above it ran more than once (the read, or what was built from it, served row after row)."""
    loops = node.get("Actual Loops", 0)
    repeated = repeated or loops > 1
    found = []
    scan = node.get("Node Type", "")
    if (
        loops
        and node.get("Relation Name") in STORE
        and (scan == "Seq Scan" or (scan.startswith("Index") and "Index Cond" not in node))
    ):
        found.append((node["Relation Name"], node.get("Alias", ""), repeated))
    for child in node.get("Plans", []):
        found += _whole_reads(child, repeated)
    return found


@pytest.mark.slow
def test_recall_statement_scans_no_paragraphs_table(svc: Tabane, user, context):
    _load(svc, user, context)
    with svc.store.session(user) as session:
        shape, params = _bound(session, context)
        assert "vector" in shape.lanes
        assert params["exchange"]  # the reply scoring is in the plan
        plan = _plan(session, build_recall_statement(shape), params)
    whole = _whole_reads(plan)
    assert [w for w in whole if w[2]] == []  # none served row after row
    assert [w for w in whole if w[0] == "paragraphs"] == []


def _generic_plan(session: Session, sql: str) -> dict[str, Any]:
    """PostgreSQL's generic plan of `sql` as SQLAlchemy sent it (`%(name)s` placeholders become
    `$n`, their types inferred as PREPARE infers them)."""
    numbers: dict[str, int] = {}

    def number(m: re.Match[str]) -> str:
        return f"${numbers.setdefault(m.group(1), len(numbers) + 1)}"

    generic = re.sub(r"%\((\w+)\)s", number, sql).replace("%%", "%")
    raw = session.execute(text("EXPLAIN (GENERIC_PLAN, FORMAT JSON) " + generic)).scalar_one()
    doc = raw if isinstance(raw, list) else json.loads(raw)
    return dict(doc[0]["Plan"])


def _index_reads(node: dict[str, Any]) -> list[tuple[str, str]]:
    """(table, index) of every index read in the plan."""
    found = [(node.get("Relation Name", ""), node["Index Name"])] if "Index Name" in node else []
    for child in node.get("Plans", []):
        found += _index_reads(child)
    return found


def _generic_runs(session: Session) -> int:
    """How many times this connection has run recall's prepared statement under a generic plan."""
    sql = (
        "SELECT sum(generic_plans) FROM pg_prepared_statements WHERE statement LIKE '%pv_question%'"
    )
    return int(session.scalar(text(sql)) or 0)


@pytest.mark.slow
def test_recall_statement_runs_one_generic_plan_with_the_custom_plans_rows(
    svc: Tabane, user, context
):
    """Recall's statement is planned once per connection (decision 0048): prepared by psycopg on
    its fifth run, it then runs under the generic plan, which must find what a plan made for the
    values finds: its nearest-first LIMITs are written into the SQL, so the generic plan reads
    every HNSW index the custom one reads (with a bound LIMIT it sorted every vector)."""
    _load(svc, user, context)
    with svc.store.session(user) as session:
        shape, params = _bound(session, context)
        sent: list[str] = []
        conn = session.connection()
        event.listen(conn, "before_cursor_execute", lambda *a: sent.append(a[2]))
        made_for_values = _index_reads(_plan(session, build_recall_statement(shape), params))
        custom = session.execute(build_recall_statement(shape), params).all()
        before = _generic_runs(session)
        runs = [gather.run_statement(session, shape, params) for _ in range(6)]
        generic_runs = _generic_runs(session) - before
        mode = session.scalar(text("SELECT current_setting('plan_cache_mode')"))
        assert mode == vectors.NEAREST["plan_cache_mode"]  # the other reads: plans for values
        generic = _generic_plan(session, next(s for s in sent if "pv_question" in s))
    assert [(r.kind, r.item_id, r.fused) for r in custom] != []
    for rows in runs:
        assert [(r.kind, r.item_id, r.fused) for r in rows] == [
            (r.kind, r.item_id, r.fused) for r in custom
        ]
    assert generic_runs >= 2  # prepared by its fifth run at the latest (psycopg's threshold)
    nearest = {index for _, index in made_for_values if "hnsw" in index}
    assert nearest <= {index for _, index in _index_reads(generic)}


@pytest.mark.slow
def test_the_vector_lane_is_planned_for_its_context(svc: Tabane, user, context):
    """Recall's vector lane reads each context's nearest vectors in a read of its own, with the
    context a bound value, so PostgreSQL plans it for that context's size, and the statement
    reads vectors by key only (a reply's). Inside the statement the context was an array element
    and the floor a filter of the read: from a pool of 60 PostgreSQL read every vector of a large
    context instead of the HNSW index (decision 0047; on this test's store, main's statement at a
    pool of 100 read the context's 20k vectors by its context index)."""
    _load(svc, user, context, embedded=DEEP // PER_SOURCE)
    t = Tunables(vector_pool=200)
    with svc.store.session(user) as session:
        with _sent(session) as sent:
            shape, params = _bound(session, context, t, floor=0.1)
        nearest = [_explained(session, *s) for s in sent if "FROM paragraph_vectors" in s[0]]
        statement = _plan(session, build_recall_statement(shape), params)
    assert len(params["pv_ids"]) == t.vector_pool * 2  # one vector a paragraph here
    assert len(nearest) == 1 and _scans(nearest[0], TABLE)
    # the statement reads a vector only by its key (the reply's)
    reads = {n["Node Type"] + " " + n.get("Index Name", "") for n in _scans(statement, TABLE)}
    assert reads <= {"Index Scan pk_paragraph_vectors"}
