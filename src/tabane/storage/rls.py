"""Row-level-security DDL: the one visibility boundary.

A transaction carries the caller's read and write scope sets as `SET LOCAL` settings
(`tabane.read_scopes`, `tabane.write_scopes`, text-array literals). For every scoped table:

- a row is readable when its scope set is inside the read set, or is exactly {public};
- it is insertable, updatable and deletable when its scope set is inside the write set
  (an update must also leave it inside the write set).

The application role owns nothing and has no BYPASSRLS; FORCE makes the policies apply to the
owner too. Migrations call these functions; their output must stay stable for existing tables.
"""

from __future__ import annotations

APP_ROLE = "tabane_app"

FUNCTIONS = """
CREATE OR REPLACE FUNCTION tabane_read_scopes() RETURNS text[] LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT coalesce(nullif(current_setting('tabane.read_scopes', true), ''), '{}')::text[] $$;
CREATE OR REPLACE FUNCTION tabane_write_scopes() RETURNS text[] LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT coalesce(nullif(current_setting('tabane.write_scopes', true), ''), '{}')::text[] $$;
"""


# The caller's scope sets inside a scalar sub-select: PostgreSQL computes them once per statement
# (an InitPlan). Bare, the STABLE functions are inlined and the setting is re-read and parsed for
# every row a scan or a bulk insert visits (about half the BM25 lane's posting scan; migration
# 0006 measured it). Which rows pass is the same either way.
READABLE = "(scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[])"
WRITABLE = "(scopes <@ (SELECT tabane_write_scopes()))"
IN_VISIBLE_CONTEXT = "EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id)"


def scoped_table_sql(table: str) -> str:
    """Enable, force and define the four scope policies on one content table."""
    readable, writable = READABLE, WRITABLE
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
CREATE POLICY {table}_select ON {table} FOR SELECT USING {readable};
CREATE POLICY {table}_insert ON {table} FOR INSERT WITH CHECK {writable};
CREATE POLICY {table}_update ON {table} FOR UPDATE USING {writable} WITH CHECK {writable};
CREATE POLICY {table}_delete ON {table} FOR DELETE USING {writable};
GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {APP_ROLE};
"""


def in_context_sql(table: str, *, drop: bool = False) -> str:
    """Writes to a table of per-context rows also need the context to be visible: a foreign key
    alone would let a caller attach rows to a context it cannot see."""
    writable = WRITABLE
    visible = "" if drop else f" AND {IN_VISIBLE_CONTEXT}"
    return f"""
DROP POLICY {table}_insert ON {table};
DROP POLICY {table}_update ON {table};
CREATE POLICY {table}_insert ON {table} FOR INSERT WITH CHECK ({writable}{visible});
CREATE POLICY {table}_update ON {table} FOR UPDATE USING {writable}
    WITH CHECK ({writable}{visible});
"""


def jobs_sql(*, drop: bool = False) -> str:
    """Jobs hold no content, but a worker runs each with its scope sets: only someone who may
    write `scopes` and read `read_scopes` may queue one, and only they see it. Workers claim and
    finish jobs through the owner's connection."""
    if drop:
        return "DROP POLICY jobs_own ON jobs; ALTER TABLE jobs NO FORCE ROW LEVEL SECURITY;" + (
            " ALTER TABLE jobs DISABLE ROW LEVEL SECURITY;"
        )
    mine = (
        "(scopes <@ (SELECT tabane_write_scopes())"
        " AND read_scopes <@ (SELECT tabane_read_scopes()))"
    )
    return f"""
ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobs FORCE ROW LEVEL SECURITY;
CREATE POLICY jobs_own ON jobs FOR ALL USING {mine} WITH CHECK {mine};
"""


def child_table_sql(table: str, parent: str, key: str) -> str:
    """A table whose rows are visible and changeable to whoever can see the parent row."""
    visible = f"(EXISTS (SELECT 1 FROM {parent} p WHERE p.id = {key}))"
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
CREATE POLICY {table}_all ON {table} FOR ALL USING {visible} WITH CHECK {visible};
GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {APP_ROLE};
"""


def role_sql() -> str:
    return f"""
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
    CREATE ROLE {APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
"""


def reference_table_sql(table: str) -> str:
    return f"GRANT SELECT ON {table} TO {APP_ROLE};\n"


def sequences_sql() -> str:
    return f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE};\n"


def once_per_statement_sql(table: str, *, in_context: bool) -> str:
    """Rewrite an existing table's four scope policies into the once-per-statement form."""
    visible = f" AND {IN_VISIBLE_CONTEXT}" if in_context else ""
    return f"""
ALTER POLICY {table}_select ON {table} USING {READABLE};
ALTER POLICY {table}_insert ON {table} WITH CHECK ({WRITABLE}{visible});
ALTER POLICY {table}_update ON {table} USING {WRITABLE} WITH CHECK ({WRITABLE}{visible});
ALTER POLICY {table}_delete ON {table} USING {WRITABLE};
"""
