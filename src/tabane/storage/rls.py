"""Row-level security: the one visibility boundary, as rules that each table declares.

A transaction carries the caller's read and write scope sets as `SET LOCAL` settings
(`tabane.read_scopes`, `tabane.write_scopes`, text-array literals). Every table names its rule
beside its columns (`__rls__` on the mapped class; `Scoped` tables get `SCOPED` unless they say
otherwise). The rules:

- `SCOPED`: a row is readable when its scope set is inside the read set, or is exactly {public};
  insertable, updatable and deletable when its scope set is inside the write set (an update must
  also leave it inside the write set). `SCOPED_IN_CONTEXT` adds, for writes, that the row's
  context be visible: a foreign key alone would let a caller attach rows to a context it cannot
  see.
- `child(parent, key)`: visible and changeable to whoever can see the parent row.
- `JOBS`: jobs hold no content, but a worker runs each with its scope sets: only someone who may
  write `scopes` and read `read_scopes` may queue one, and only they see it. Workers claim and
  finish jobs through the owner's connection.
- `REFERENCE`: no row-level security; the application role may only read.

The application role owns nothing and has no BYPASSRLS; FORCE makes the policies apply to the
owner too. `table_sql` is the one form a migration applies (the baseline's policy section was
written by it; a later migration that changes a rule runs `table_sql` for that table), and
tests/storage/test_policies.py compares the rules to `pg_policies` on a freshly migrated store.
"""

from __future__ import annotations

from dataclasses import dataclass

APP_ROLE = "tabane_app"

# `tabane_read_scopes()` and `tabane_write_scopes()` (made by the baseline migration) read the
# settings, '{}' when unset. The caller's scope sets inside a scalar sub-select: PostgreSQL
# computes them once per statement (an InitPlan). Bare, the STABLE functions are inlined and the
# setting is re-read and parsed for every row a scan or a bulk insert visits (about half the BM25
# lane's posting scan). Which rows pass is the same either way.
READABLE = "(scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[])"
WRITABLE = "(scopes <@ (SELECT tabane_write_scopes()))"
IN_VISIBLE_CONTEXT = "EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id)"
_MINE = (
    "(scopes <@ (SELECT tabane_write_scopes()) AND read_scopes <@ (SELECT tabane_read_scopes()))"
)

ALL_WRITES = "SELECT, INSERT, UPDATE, DELETE"
# Every name a rule gives a policy: `table_sql` drops these before it creates the rule's own.
POLICY_SUFFIXES = ("select", "insert", "update", "delete", "all", "own")


@dataclass(frozen=True)
class Policy:
    """One `CREATE POLICY {table}_{suffix} ON {table} FOR {command}` of a rule."""

    suffix: str
    command: str
    using: str | None = None
    check: str | None = None


@dataclass(frozen=True)
class Rule:
    """A table's row-level security: its policies (none: RLS stays off) and the application
    role's table privileges."""

    policies: tuple[Policy, ...]
    grant: str

    def policy_sql(self, table: str) -> str:
        lines = []
        for p in self.policies:
            using = f" USING {p.using}" if p.using else ""
            check = f" WITH CHECK {p.check}" if p.check else ""
            create = f"CREATE POLICY {table}_{p.suffix} ON {table} FOR {p.command}"
            lines.append(f"{create}{using}{check};")
        return "\n".join(lines)


def _scoped(write_check: str) -> Rule:
    return Rule(
        (
            Policy("select", "SELECT", using=READABLE),
            Policy("insert", "INSERT", check=write_check),
            Policy("update", "UPDATE", using=WRITABLE, check=write_check),
            Policy("delete", "DELETE", using=WRITABLE),
        ),
        ALL_WRITES,
    )


SCOPED = _scoped(WRITABLE)
SCOPED_IN_CONTEXT = _scoped(f"({WRITABLE} AND {IN_VISIBLE_CONTEXT})")
JOBS = Rule((Policy("own", "ALL", using=_MINE, check=_MINE),), ALL_WRITES)
REFERENCE = Rule((), "SELECT")


def child(parent: str, key: str) -> Rule:
    visible = f"(EXISTS (SELECT 1 FROM {parent} p WHERE p.id = {key}))"
    return Rule((Policy("all", "ALL", using=visible, check=visible),), ALL_WRITES)


def table_sql(table: str, rule: Rule, *, replace: bool = True) -> str:
    """Bring one existing table to its rule: whatever policies it had under a rule's names are
    dropped (`replace`), RLS is enabled and forced (or turned off), the role's privileges set."""
    names = POLICY_SUFFIXES if replace else ()
    drops = "\n".join(f"DROP POLICY IF EXISTS {table}_{s} ON {table};" for s in names)
    if rule.policies:
        flags = (
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;\n"
            f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY;"
        )
    else:
        flags = (
            f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY;\n"
            f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY;"
        )
    return f"""{drops}
{flags}
{rule.policy_sql(table)}
REVOKE ALL ON {table} FROM {APP_ROLE};
GRANT {rule.grant} ON {table} TO {APP_ROLE};
"""


def tables_sql(rules: dict[str, Rule], *, replace: bool = True) -> str:
    """Every table's rule, then the sequences the role draws ids from."""
    body = "".join(table_sql(t, rules[t], replace=replace) for t in sorted(rules))
    return body + sequences_sql()


def role_sql() -> str:
    return f"""
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
    CREATE ROLE {APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
"""


def sequences_sql() -> str:
    return f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE};\n"
