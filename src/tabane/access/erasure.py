"""Erasing a user, and exporting first everything the erasure would remove.

The walk covers every table of the schema's metadata, so a new table cannot be forgotten: each
table's rows of the user are those matching one of these rules (`uncovered` names a table none
applies to, and a test fails on it).

- `users`: the user's row; `scopes`: the personal scope `user:NAME`.
- A table with its own scope set: every row whose set holds {user:NAME} — {user:NAME} alone, or
  with others ({user:NAME, org:team}: the user's private row inside a shared context). A row is
  readable by whoever holds every scope of its set, so only the user (or someone granted their
  personal scope) could read such a row; left behind, it would be nobody's until a new user of
  the same name was granted it. (A table whose scope set is its parent's, through a foreign
  key that includes `scopes`, follows its parent; a job also goes when it runs with the user's
  read scopes.)
- `vocabulary`: also every alias the user added (`written_by`), in any scope set.
- `claims`: also every claim whose `author` is NAME that the user may read or wrote
  (`written_by`: a grant revoked before the erasure does not keep the user's claims in a team's
  context). Its author is the label `write_batch` fills with the acting user's name when the
  writer names no other speaker, so "the claims a user authored" are the claims carrying their
  name as author; a claim the user wrote as another speaker stays, its writer cleared
  (`clear_writer`). Anyone may write a note "said by" NAME in their own private context; that
  row is theirs, not NAME's, and neither leaves with NAME's export nor goes with the erasure.
- A column `user_id`: the user's rows (grants, API keys, sessions, recall traces). Another
  user's API key narrowed to the user's personal scope stays, without that scope
  (`strip_scope`).
- A foreign key with ON DELETE CASCADE: rows pointing at an erased row (a session's turns, a
  private context's sources, a private group's memberships, the grants of the personal scope).
- Derived memory (`DERIVED`: communities, profiles, RAPTOR nodes, and their members through the
  cascade): every row of a context and scope set that read an erased row. A derived row carries
  its context's scope set and is built from the context's rows inside that set, so its summary
  may quote a row of the user even when its own set is wider ({user:NAME, org:team}, or {public}
  for a note the user authored there); it goes whenever the erasure takes a content row of its
  context whose scope set lies inside the derived row's. It is a cache: the next derive job of
  the context rebuilds it from the rows left.

What the erasure leaves to repair in the rows that stay is in access/erasure_repair.py.
Erasure deletes children before parents, so the database cascades nothing behind the counts' back,
and derived rows before the rows they were read from (the derived rule as `plan` states it looks
those up; `settle` writes it out before anything is deleted, and both the export and the erasure
use the settled walk). These run on the owner's session: the erasure sees and deletes across
every scope.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    ARRAY,
    ColumnElement,
    MetaData,
    Table,
    Text,
    and_,
    delete,
    exists,
    false,
    func,
    literal,
    or_,
    select,
    tuple_,
)
from sqlalchemy.orm import Session

from tabane.access import users
from tabane.checks import text_problem
from tabane.errors import Forbidden, Issue, NoUser
from tabane.principal import Principal, personal_scope
from tabane.storage.schema import SCOPED_TABLES, Base, User

# Columns an export leaves out: a key's hash verifies its token and is no use to its holder.
REDACTED = {"api_keys": frozenset({"hash"})}

# Derived memory: rebuilt from a context's rows, carrying the context's scope set (the tables
# with a scope set of their own in storage/schema/derived.py; their members follow them).
DERIVED = frozenset({"communities", "profiles", "raptor_nodes"})


# (context id, scope set) of the content rows an erasure takes (see `settle`)
Read = frozenset[tuple[int, tuple[str, ...]]]


@dataclass(frozen=True)
class Target:
    """The user being exported or erased."""

    name: str
    user_id: int
    scope: str  # user:NAME
    read: frozenset[str] = frozenset()  # the scopes the user may read (their grants)


@dataclass(frozen=True)
class Walk:
    """The tables in foreign-key order (parents first) and, per table, which rows are the
    user's."""

    target: Target
    tables: tuple[Table, ...]
    rows: dict[str, ColumnElement[bool]]


def find(session: Session, name: str) -> Target:
    if not isinstance(name, str) or text_problem(name):
        raise NoUser(f"no user {name!r}", issues=[Issue("user", "unknown")])
    uid = session.scalar(select(User.id).where(User.name == name))
    if uid is None:
        raise NoUser(f"no user {name!r}", issues=[Issue("user", "unknown")])
    read = users.principal(session, name).read
    return Target(name=name, user_id=uid, scope=personal_scope(name), read=read)


def plan(target: Target, metadata: MetaData = Base.metadata, read: Read | None = None) -> Walk:
    """The rows of `target` in every table of `metadata`; with `read` (see `settle`), the
    derived tables' rows are those of these (context, scope set) pairs."""
    memo: dict[str, ColumnElement[bool] | None] = {}

    def rule(table: Table) -> ColumnElement[bool] | None:
        if table.name not in memo:
            found = [
                *_own(table, target),
                *_cascaded(table, rule),
                *_derived(table, metadata, rule, read),
            ]
            memo[table.name] = or_(*found) if found else None
        return memo[table.name]

    tables = _derived_last(metadata)
    rows = {t.name: r for t in tables if (r := rule(t)) is not None}
    return Walk(target=target, tables=tuple(t for t in tables if t.name in rows), rows=rows)


def settle(session: Session, walk: Walk, metadata: MetaData = Base.metadata) -> Walk:
    """The same walk with the derived rule written out: the (context, scope set) pairs of the
    content rows it takes, found once. As `plan` states it, a derived row's rule looks for a
    taken content row of its context inside its scope set, once per derived row: a RAPTOR
    tree of a large corpus has a member for every paragraph, and that took minutes."""
    read: set[tuple[int, tuple[str, ...]]] = set()
    for source in _content(metadata):
        if source.name in walk.rows:
            pairs = select(source.c.context_id, source.c.scopes).where(walk.rows[source.name])
            read |= {(int(c), tuple(sc)) for c, sc in session.execute(pairs.distinct())}
    return plan(walk.target, metadata, frozenset(read))


def uncovered(metadata: MetaData = Base.metadata) -> list[str]:
    """Tables the walk does not reach: each must be added to a rule (or hold no user data)."""
    walk = plan(Target("nobody", 0, personal_scope("nobody")), metadata)
    return sorted(t.name for t in metadata.sorted_tables if t.name not in walk.rows)


def authorize(session: Session, walk: Walk, actor: Principal | None, *, erase: bool) -> None:
    """Only the user themself or an admin may export or erase; `actor` None is the store owner
    (the CLI). Either must hold write on the personal scope (a read-only key of the user may
    not); an admin is anyone else who does. Either must also read every scope the user's rows
    carry (their claims and sessions in shared scopes) to export them, and write every one of
    them to erase them, as deleting any row needs: a key of the user's own may be narrower than
    the user, and must not take away rows it could not write."""
    if actor is None:
        return
    target = walk.target
    if target.scope not in actor.write:
        raise Forbidden(
            f"only {target.name} or an admin may export or erase {target.name}",
            issues=[Issue("user", f"needs write on {target.scope}")],
        )
    carried = carried_scopes(session, walk)
    unwritable = carried - actor.write
    if erase and unwritable:
        raise Forbidden(
            f"only {target.name} or an admin may erase {target.name}, writing every scope "
            "their rows carry",
            issues=[Issue("user", f"their rows carry {len(unwritable)} scope(s) you cannot write")],
        )
    unseen = carried - actor.read
    if unseen:
        raise Forbidden(
            f"only {target.name} or an admin may export or erase {target.name}, reading every "
            "scope their rows carry",
            issues=[Issue("user", f"their rows carry {len(unseen)} scope(s) you cannot read")],
        )


def carried_scopes(session: Session, walk: Walk) -> frozenset[str]:
    """Every scope name on a row of the user (tables with their own scope set)."""
    found: set[str] = set()
    for table in walk.tables:
        if "scopes" in table.c and not _inherits_scopes(table):
            names = select(func.unnest(table.c.scopes)).where(walk.rows[table.name]).distinct()
            found.update(session.scalars(names))
    return frozenset(found)


def export_rows(session: Session, walk: Walk) -> Iterator[dict[str, Any]]:
    """Every row of the user as `{"table", "row"}`, parents first, each table by primary key."""
    for table in walk.tables:
        hidden = REDACTED.get(table.name, frozenset())
        columns = [c for c in table.c if c.name not in hidden]
        stmt = (
            select(*columns)
            .where(walk.rows[table.name])
            .order_by(*table.primary_key.columns)
            .execution_options(yield_per=500)
        )
        for row in session.execute(stmt).mappings():
            yield {"table": table.name, "row": {k: _plain(v) for k, v in row.items()}}


def delete_rows(session: Session, walk: Walk) -> dict[str, int]:
    """Delete the user's rows, children first; returns the rows deleted per table."""
    counts: dict[str, int] = {}
    for table in reversed(walk.tables):
        result = session.execute(delete(table).where(walk.rows[table.name]))
        counts[table.name] = int(result.rowcount)  # type: ignore[attr-defined]
    return dict(sorted(counts.items()))


def _own(table: Table, target: Target) -> list[ColumnElement[bool]]:
    if table.name == "users":
        return [table.c.id == target.user_id]
    if table.name == "scopes":
        return [table.c.name == target.scope]
    found: list[ColumnElement[bool]] = []
    if "scopes" in table.c and not _inherits_scopes(table):
        found.append(holds(table.c.scopes, target.scope))
    if "read_scopes" in table.c and "user_id" not in table.c:  # a job that would run as them
        found.append(holds(table.c.read_scopes, target.scope))
    if "user_id" in table.c:  # (another user's key that reads their scope loses only the scope)
        found.append(table.c.user_id == target.user_id)
    if table.name == "claims":
        readable = or_(
            table.c.scopes.op("<@", is_comparison=True)(literal(sorted(target.read), ARRAY(Text))),
            table.c.scopes == literal(["public"], ARRAY(Text)),
        )
        written = table.c.written_by == target.user_id  # theirs whatever their grants are now
        found.append(and_(table.c.author == target.name, or_(readable, written)))
    elif "written_by" in table.c:  # an alias the user added, wherever it is
        found.append(table.c.written_by == target.user_id)
    return found


def holds(scopes: Any, scope: str) -> ColumnElement[bool]:
    """The scope set holds `scope` (alone or with others)."""
    return holds_all(scopes, (scope,))


def holds_all(scopes: Any, some: tuple[str, ...]) -> ColumnElement[bool]:
    """The scope set holds every scope of `some`."""
    return scopes.op("@>", is_comparison=True)(literal(list(some), ARRAY(Text)))  # type: ignore[no-any-return]


def _cascaded(table: Table, rule: Any) -> list[ColumnElement[bool]]:
    """Rows whose ON DELETE CASCADE foreign key names a row of the user."""
    found: list[ColumnElement[bool]] = []
    for fk in sorted(table.foreign_key_constraints, key=lambda f: str(f.name or "")):
        parent = fk.referred_table
        if (fk.ondelete or "").upper() != "CASCADE" or parent is table:
            continue  # a self-reference stays inside rows already taken (sections' parents)
        parents = rule(parent)
        if parents is None:
            continue
        local = [e.parent for e in fk.elements]
        remote = select(*[e.column for e in fk.elements]).where(parents)
        found.append(tuple_(*local).in_(remote) if len(local) > 1 else local[0].in_(remote))
    return found


def _derived(
    table: Table, metadata: MetaData, rule: Any, read: Read | None
) -> list[ColumnElement[bool]]:
    """Rows of a derived table whose context and scope set read a row the erasure takes: a
    content row (a scoped table with a context and a scope set of its own) of the same context,
    inside the derived row's scope set (with `read`, one of those pairs)."""
    if table.name not in DERIVED:
        return []
    if read is not None:
        return [
            or_(
                false(),
                *(
                    and_(table.c.context_id == c, holds_all(table.c.scopes, sc))
                    for c, sc in sorted(read)
                ),
            )
        ]
    found: list[ColumnElement[bool]] = []
    for source in _content(metadata):
        taken = rule(source)
        if taken is None:
            continue
        found.append(
            exists().where(
                taken,
                source.c.context_id == table.c.context_id,
                source.c.scopes.op("<@", is_comparison=True)(table.c.scopes),
            )
        )
    return found


def _content(metadata: MetaData) -> list[Table]:
    """The tables a derived row may have read: scoped, in a context, with their own scope set
    (a child whose set is its parent's is taken with that parent)."""
    return [
        t
        for t in metadata.sorted_tables
        if t.name in SCOPED_TABLES
        and t.name not in DERIVED
        and "context_id" in t.c
        and "scopes" in t.c
        and not _inherits_scopes(t)
    ]


def _derived_last(metadata: MetaData) -> tuple[Table, ...]:
    """The tables parents first, with the derived tables and their children after every other
    (so, deleting in reverse, a derived row goes while the rows it was read from are still there
    for its rule to find)."""
    tables = metadata.sorted_tables
    late = {t.name for t in tables if t.name in DERIVED}
    for t in tables:  # parents come first, so one pass takes children of children too
        if any(fk.referred_table.name in late for fk in t.foreign_key_constraints):
            late.add(t.name)
    return (*(t for t in tables if t.name not in late), *(t for t in tables if t.name in late))


def _inherits_scopes(table: Table) -> bool:
    """The table's scope set is its parent's (a foreign key over `scopes`)."""
    return any("scopes" in fk.column_keys for fk in table.foreign_key_constraints)


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (bytes, memoryview)):  # packed BM25 postings
        return base64.b64encode(bytes(value)).decode("ascii")
    tolist = getattr(value, "tolist", None)  # pgvector's numpy arrays
    if callable(tolist):
        return tolist()
    return value
