"""Every table's declared row-level-security rule is what a freshly migrated store enforces, and
a store the old migration chain made (recorded at its head, 0035) upgrades to the same schema a
fresh store has.

The rules are compared as PostgreSQL normalises them: in a freshly migrated scratch database, the
policies, RLS flags and the application role's privileges are read (`pg_policies`, `pg_class`,
`has_table_privilege`), then every policy is dropped, RLS turned off, the privileges revoked, the
declared rules applied (`rls.tables_sql`) and the same catalogs read again, and the transaction
rolled back. Both readings went through the same parser and printer, so only a difference in
meaning (or in the order of an expression's terms) shows.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from schema_dump import differences, pg_dump
from sqlalchemy import Connection, Engine, create_engine, text

from tabane.errors import StoreTooOld
from tabane.service import Tabane
from tabane.storage import migrate, rls
from tabane.storage.pg_programs import bin_dir
from tabane.storage.schema import Base, rules

from helpers import unique

RECORDED_0035 = Path(__file__).parent / "schema_0035.sql"

_POLICIES = text(
    "SELECT tablename, policyname, cmd, permissive, roles::text, qual, with_check"
    " FROM pg_policies WHERE schemaname = 'public' ORDER BY tablename, policyname"
)
_TABLES = text(
    "SELECT relname, relrowsecurity, relforcerowsecurity,"
    " array(SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE',"
    "  'REFERENCES', 'TRIGGER']) p WHERE has_table_privilege(:role, c.oid, p)) AS granted"
    " FROM pg_class c WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
    " AND relname <> 'alembic_version' ORDER BY relname"
)


@contextmanager
def _database(svc: Tabane, prefix: str) -> Iterator[Engine]:
    """An empty database beside the test store's, dropped afterwards."""
    name = unique(prefix)
    admin = svc.store.owner.execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine = create_engine(svc.store.owner.url.set(database=name))
    try:
        yield engine
    finally:
        engine.dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))


@pytest.fixture
def scratch(svc: Tabane) -> Iterator[Engine]:
    with _database(svc, "scratch_") as engine:
        yield engine


@pytest.fixture
def fresh(svc: Tabane) -> Iterator[Engine]:
    """A database migrated from nothing."""
    with _database(svc, "fresh_") as engine:
        migrate.upgrade(engine, login_role=False)
        yield engine


def _enforced(conn: Connection) -> dict[str, Any]:
    return {
        "policies": [tuple(r) for r in conn.execute(_POLICIES)],
        "tables": [tuple(r) for r in conn.execute(_TABLES, {"role": rls.APP_ROLE})],
    }


def _unlike(store: dict[str, Any], rules: dict[str, Any]) -> list[str]:
    """Each catalog row only one side has, marked with that side."""
    return sorted(
        f"{side}: {row}"
        for key in store
        for side, mine, theirs in (("store", store, rules), ("rules", rules, store))
        for row in mine[key]
        if row not in theirs[key]
    )


def _declared(conn: Connection) -> dict[str, Any]:
    """What the rules alone make of the same tables (call inside a transaction to roll back)."""
    for table, policy in conn.execute(text("SELECT tablename, policyname FROM pg_policies")):
        conn.execute(text(f"DROP POLICY {policy} ON {table}"))
    for table in Base.metadata.tables:
        conn.execute(text(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY"))
        conn.execute(text(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY"))
        conn.execute(text(f"REVOKE ALL ON {table} FROM {rls.APP_ROLE}"))
    conn.exec_driver_sql(rls.tables_sql(rules()))
    return _enforced(conn)


def test_every_table_declares_its_rule(fresh: Engine) -> None:
    with fresh.connect() as conn:
        stored = {r[0] for r in conn.execute(_TABLES, {"role": rls.APP_ROLE})}
    assert set(rules()) == set(Base.metadata.tables) == stored


def test_the_declared_rules_are_what_a_fresh_store_enforces(fresh: Engine) -> None:
    with fresh.connect() as conn:
        enforced = _enforced(conn)
        conn.rollback()
        declared = _declared(conn)
        conn.rollback()
        assert _enforced(conn) == enforced  # the rollback left the store as it was
    # 127 of the baseline, 4 of context_schemas (0038), 4 of vocabulary_readings (0039)
    assert len(enforced["policies"]) == 135
    assert _unlike(enforced, declared) == []
    assert enforced == declared  # and in the same order


def test_a_rule_that_differs_from_the_store_is_seen(fresh: Engine) -> None:
    """The comparison can fail: a store whose contexts are readable without the {public} escape
    hatch no longer matches the rules."""
    with fresh.connect() as conn:
        conn.execute(text(f"ALTER POLICY contexts_select ON contexts USING {rls.WRITABLE}"))
        changed = _enforced(conn)
        declared = _declared(conn)
        conn.rollback()
    seen = [line for line in _unlike(changed, declared) if "'contexts_select'" in line]
    assert [line.split(":", 1)[0] for line in seen] == ["rules", "store"]  # both sides named


def _load_0035(engine: Engine, revision: str = "0035") -> None:
    """The recorded schema of a store the old chain made, at `revision`."""
    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    done = subprocess.run(
        [str(bin_dir() / "psql"), "-qv", "ON_ERROR_STOP=1", f"--dbname={url}", "-f", RECORDED_0035],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO alembic_version VALUES (:r)"), {"r": revision})


def test_a_store_at_0035_upgrades_to_the_fresh_schema(scratch: Engine, fresh: Engine) -> None:
    _load_0035(scratch)
    migrate.upgrade(scratch, login_role=False)
    assert migrate.current(scratch) == migrate.HEAD
    assert differences(pg_dump(scratch), pg_dump(fresh)) == []
    with scratch.connect() as old, fresh.connect() as new:
        assert _enforced(old) == _enforced(new)


def test_a_store_older_than_0035_is_refused_unchanged(scratch: Engine) -> None:
    _load_0035(scratch, revision="0034")
    before = pg_dump(scratch)
    with pytest.raises(StoreTooOld) as refused:
        migrate.upgrade(scratch, login_role=False)
    assert refused.value.code == "store_too_old"
    assert "0034" in str(refused.value) and "tabane export" in str(refused.value)
    assert migrate.current(scratch) == "0034"
    assert differences(pg_dump(scratch), before) == []
