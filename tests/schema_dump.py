"""`pg_dump --schema-only` of a database, split into its objects and normalised for comparison.

Also writes the baseline migration's SQL (run as a script once, when the chain was squashed):

    python tests/schema_dump.py DUMP_OF_A_0035_STORE.sql > \
        src/tabane/storage/migrations/versions/0036_baseline.sql

It keeps pg_dump's tables, sequences, defaults, constraints, indexes and functions, drops what
the baseline states otherwise (the extension and role come first in the migration; row-level
security, policies and table privileges come from the tables' declared rules, `rls.tables_sql`;
Alembic makes its own `alembic_version`), and drops the session settings and comments.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from sqlalchemy import Engine

from tabane.storage.pg_programs import bin_dir

_HEADER = re.compile(r"^--\n-- Name: (?P<name>.*?); Type: (?P<type>[A-Z ]+);.*\n--\n", re.M)
_FROM_RULES = ("POLICY", "ROW SECURITY")


def pg_dump(engine: Engine) -> str:
    """The schema of the engine's database as pg_dump writes it (owners and privileges kept)."""
    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    done = subprocess.run(
        [str(bin_dir() / "pg_dump"), "--schema-only", "--no-owner", f"--dbname={url}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def objects(dump: str) -> dict[str, str]:
    """Each object's statements by '{type} {name}', settings and comments left out."""
    found: dict[str, str] = {}
    heads = list(_HEADER.finditer(dump))
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        end = after.start() if after else len(dump)
        body = "\n".join(
            line
            for line in dump[head.end() : end].splitlines()
            if line.strip() and not line.startswith(("--", "\\", "SET ", "SELECT pg_catalog"))
        )
        found[f"{head['type']} {head['name']}"] = body
    return found


def differences(left: str, right: str) -> list[str]:
    """The objects two dumps do not share, or state differently (an empty list: same schema)."""
    a, b = objects(left), objects(right)
    return sorted(
        f"{key}:\n  {a.get(key, '(absent)')}\n  != {b.get(key, '(absent)')}"
        for key in a.keys() | b.keys()
        if a.get(key) != b.get(key)
    )


def baseline(dump: str) -> str:
    """The baseline's SQL from the dump of a store at the last chained revision."""
    from tabane.storage import rls
    from tabane.storage.schema import rules

    kept = []
    for key, body in objects(dump).items():
        kind = key.split(" ", 1)[0]
        if "alembic_version" in key or kind in ("EXTENSION", "COMMENT", *_FROM_RULES):
            continue
        if kind == "ACL" and "FUNCTION" not in key:
            continue
        body = "\n".join(s for s in body.splitlines() if "ROW LEVEL SECURITY" not in s)
        kept.append(body)
    head = (
        "-- The schema at migration 0035 (from pg_dump --schema-only of a store the old chain\n"
        "-- made; tests/schema_dump.py wrote it), then every table's declared rule.\n"
        "SET LOCAL check_function_bodies = false;\n"
    )
    return head + "\n\n".join(kept) + "\n\n" + rls.tables_sql(rules(), replace=False)


if __name__ == "__main__":
    sys.stdout.write(baseline(Path(sys.argv[1]).read_text()))
