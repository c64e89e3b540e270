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


def scoped_table_sql(table: str) -> str:
    """Enable, force and define the four scope policies on one content table."""
    readable = "(scopes <@ tabane_read_scopes() OR scopes = ARRAY['public']::text[])"
    writable = "(scopes <@ tabane_write_scopes())"
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
CREATE POLICY {table}_select ON {table} FOR SELECT USING {readable};
CREATE POLICY {table}_insert ON {table} FOR INSERT WITH CHECK {writable};
CREATE POLICY {table}_update ON {table} FOR UPDATE USING {writable} WITH CHECK {writable};
CREATE POLICY {table}_delete ON {table} FOR DELETE USING {writable};
GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {APP_ROLE};
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
