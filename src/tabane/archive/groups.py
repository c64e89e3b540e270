"""A group as an archive: one header line with the group and every group under it (name,
description, member contexts, child groups), then the archive of each context they reach, one
after the other, each exactly as `export` writes a context's (records.py):

    {"tabane_group_archive": 1, "exported_at": …, "exported_by": …, "group": "g",
     "groups": [{"name", "description", "contexts": […], "groups": […]}, …]}
    {"tabane_archive": 1, …, "context": {…}} … {"end": {…}}     each context reached

What the exporter cannot see is not in it (a hidden member is left out of its group's list).
The import (service/archive.py) checks every context's archive and the header first, then
writes the contexts and the groups, leaves first, in one transaction; `prefix` names the new
contexts and groups apart from the ones the store already has."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tabane.archive import export
from tabane.archive.restore import ImportReport
from tabane.contexts import contexts, groups
from tabane.errors import InvalidInput, Issue, TabaneError
from tabane.principal import Principal
from tabane.storage.store import Session, now

VERSION = 1
_CONTEXT_HEADER = '{"tabane_archive"'
_GROUP_FIELDS = {"name", "description", "contexts", "groups"}


@dataclass(frozen=True)
class GroupRecord:
    name: str
    description: str
    contexts: tuple[str, ...]
    groups: tuple[str, ...]


@dataclass(frozen=True)
class GroupImportReport:
    group: str  # the imported top group's name (prefixed)
    groups: tuple[str, ...]  # every group created, leaves first
    contexts: tuple[ImportReport, ...]  # each context's import, in the archive's order


def archive(session: Session, principal: Principal, name: str) -> Iterator[dict[str, Any]]:
    """The group archive's lines as objects: the header, then each reached context's lines."""
    found = _under(session, name)
    yield {
        "tabane_group_archive": VERSION,
        "exported_at": now(session).isoformat(),
        "exported_by": principal.name,
        "group": name,
        "groups": [
            {
                "name": g.name,
                "description": g.description,
                "contexts": list(g.contexts),
                "groups": list(g.groups),
            }
            for g in found
        ],
    }
    for cname in dict.fromkeys(c for g in found for c in g.contexts):
        yield from export.archive(session, principal, contexts.resolve(session, cname))


def _under(session: Session, name: str) -> list[groups.GroupInfo]:
    """The group and every group under it, each once, the top first."""
    found: dict[str, groups.GroupInfo] = {}
    todo = [name]
    while todo:
        g = groups.get(session, todo.pop(0))
        if g.name not in found:
            found[g.name] = g
            todo += [c for c in g.groups if c not in found]
    return list(found.values())


def split(lines: Sequence[str]) -> tuple[list[GroupRecord], str, list[tuple[int, list[str]]]]:
    """The header's groups (checked), the top group's name and each context's archive with the
    number of its first line in the whole; a problem is `invalid_input` at `line N.…`."""
    rows = [line for line in lines]
    while rows and not rows[-1].strip():
        rows.pop()
    if not rows:
        raise InvalidInput("an empty group archive", issues=[Issue("line 1", "empty")])
    top, records = _header(rows[0])
    parts: list[tuple[int, list[str]]] = []
    for n, line in enumerate(rows[1:], 2):
        if line.lstrip().startswith(_CONTEXT_HEADER):
            parts.append((n, [line]))
        elif not parts:
            raise InvalidInput(
                "not a group archive", issues=[Issue(f"line {n}", "a context's header expected")]
            )
        else:
            parts[-1][1].append(line)
    return records, top, parts


def _header(line: str) -> tuple[str, list[GroupRecord]]:
    def bad(path: str, problem: str) -> InvalidInput:
        return InvalidInput("not a group archive", issues=[Issue(f"line 1{path}", problem)])

    try:
        head = json.loads(line)
    except ValueError:
        raise bad("", "not JSON") from None
    if not isinstance(head, dict) or head.get("tabane_group_archive") != VERSION:
        raise bad(".tabane_group_archive", f"not {VERSION}: not a group archive of this version")
    top, listed = head.get("group"), head.get("groups")
    if not isinstance(listed, list) or not listed:
        raise bad(".groups", "a list of the groups expected")
    records = []
    for i, g in enumerate(listed):
        at = f".groups[{i}]"
        if not isinstance(g, dict) or set(g) != _GROUP_FIELDS:
            raise bad(at, f"an object of exactly {sorted(_GROUP_FIELDS)}")
        for key in ("contexts", "groups"):
            if not isinstance(g[key], list) or not all(isinstance(x, str) for x in g[key]):
                raise bad(f"{at}.{key}", "a list of names")
        if not isinstance(g["name"], str) or not isinstance(g["description"], str):
            raise bad(at, "name and description are text")
        records.append(
            GroupRecord(g["name"], g["description"], tuple(g["contexts"]), tuple(g["groups"]))
        )
    if top != records[0].name:
        raise bad(".group", "the first of `groups` expected")
    return top, records


def relined(exc: InvalidInput, first: int) -> InvalidInput:
    """A context archive's problem, its `line N` counted in the whole group archive."""
    exc.issues = tuple(
        Issue(re.sub(r"^line (\d+)", lambda m: f"line {int(m[1]) + first - 1}", i.path), i.problem)
        for i in exc.issues
    )
    return exc


def leaves_first(records: list[GroupRecord]) -> list[GroupRecord]:
    """The groups in an order where each comes after every group it holds."""
    by_name = {g.name: g for g in records}
    done: dict[str, GroupRecord] = {}

    def visit(g: GroupRecord, depth: int) -> None:
        if g.name in done or depth > len(records):
            return
        for child in g.groups:
            if child in by_name:
                visit(by_name[child], depth + 1)
        done[g.name] = g

    for g in records:
        visit(g, 0)
    return list(done.values())


def create_groups(
    session: Session,
    principal: Principal,
    found: list[GroupRecord],
    prefix: str,
    imported: Sequence[ImportReport],
) -> tuple[str, ...]:
    """The archive's groups, leaves first, over the contexts just imported; their names."""
    contexts_in = {r.context for r in imported}
    names = {g.name for g in found}
    made = []
    for g in leaves_first(found):
        groups.create(
            session,
            principal,
            prefix + g.name,
            description=g.description,
            contexts=[prefix + c for c in g.contexts if prefix + c in contexts_in],
            groups=[prefix + c for c in g.groups if c in names],
        )
        made.append(prefix + g.name)
    return tuple(made)


@contextmanager
def at_prefix() -> Iterator[None]:
    """A new context's or group's refused name is the caller's `prefix` to change."""
    try:
        yield
    except TabaneError as exc:
        exc.issues = tuple(
            Issue("prefix", f"{i.path}: {i.problem}") if i.path in {"context", "name"} else i
            for i in exc.issues
        )
        raise
