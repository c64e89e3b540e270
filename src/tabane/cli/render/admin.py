"""The store's things for a person: contexts, groups, sources, users, scopes, keys, sessions as
tables (one of them as its fields), and the jobs and an ingest's summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from tabane.access.keys import KeyInfo, NewKey
from tabane.access.users import ScopeInfo, UserInfo
from tabane.cli.render import fields, renders, row, table, text
from tabane.contexts.changes import Change, ChangePage
from tabane.contexts.contexts import ContextInfo
from tabane.contexts.groups import GroupInfo
from tabane.memory.sessions import SessionInfo
from tabane.sources.read import SourceInfo, SourcePage
from tabane.wire.memory import SessionList


@row(ContextInfo)
def context_row(c: ContextInfo) -> Mapping[str, object]:
    return {
        "name": c.name,
        "sources": c.stats.sources,
        "paragraphs": c.stats.paragraphs,
        "scopes": c.scopes,
        "description": c.description,
        "created": c.created_at,
    }


@row(GroupInfo)
def group_row(g: GroupInfo) -> Mapping[str, object]:
    return {
        "name": g.name,
        "contexts": g.contexts,
        "groups": g.groups,
        "scopes": g.scopes,
        "description": g.description,
    }


@row(SourceInfo)
def source_row(s: SourceInfo) -> Mapping[str, object]:
    return {
        "source": s.source_id,
        "title": s.title,
        "paragraphs": s.paragraphs,
        "area": s.area,
        "state": s.state,
        "tags": s.tags,
        "stored": s.stored_at,
    }


@renders(SourcePage)
def source_page(page: SourcePage) -> list[RenderableType]:
    if not page.sources:
        return [Text("no sources")]
    out: list[RenderableType] = [table([source_row(s) for s in page.sources])]
    if page.next_after:
        out.append(Text(f"more: --after {text(page.next_after)}", style="dim"))
    return out


@row(Change)
def change_row(c: Change) -> Mapping[str, object]:
    triple = " ".join(x for x in (c.subject, c.label, c.object) if x is not None)
    return {
        "at": c.at,
        "kind": c.kind,
        "what": triple or c.statement,
        "source": c.source,
        "claim": c.claim,
        "reason": c.reason,
    }


@renders(ChangePage)
def change_page(page: ChangePage) -> list[RenderableType]:
    out: list[RenderableType] = [
        table([change_row(c) for c in page.changes]) if page.changes else Text("no changes")
    ]
    more = "more now" if page.more else "next"
    out.append(Text(f"{more}: --since {text(page.next)}", style="dim"))
    return out


@row(UserInfo)
def user_row(u: UserInfo) -> Mapping[str, object]:
    return {"name": u.name, "read": u.read, "write": u.write}


@row(ScopeInfo)
def scope_row(s: ScopeInfo) -> Mapping[str, object]:
    return {"name": s.name, "users": s.users, "description": s.description}


@row(KeyInfo)
def key_row(k: KeyInfo) -> Mapping[str, object]:
    return {
        "prefix": k.prefix,
        "user": k.user,
        "read": k.read if k.read is not None else "(user's)",
        "write": k.write if k.write is not None else "(user's)",
        "created": k.created_at,
        "last used": k.last_used_at,
        "expires": k.expires_at,
        "revoked": k.revoked_at,
    }


@renders(NewKey)
def new_key(created: NewKey) -> list[RenderableType]:
    return [
        Text(f"created key {created.key.prefix} for {text(created.key.user)}"),
        Text(created.token, style="bold"),
        Text("the token is shown this once: store it now", style="dim"),
    ]


@row(SessionInfo)
def session_row(s: SessionInfo) -> Mapping[str, object]:
    return {"name": s.name, "turns": s.turns, "scopes": s.scopes, "updated": s.updated_at}


@renders(SessionList)
def sessions(value: SessionList) -> RenderableType:
    listed = value.sessions
    return table([session_row(s) for s in listed]) if listed else Text("no sessions")


@renders("jobs")
def jobs(value: Mapping[str, Any]) -> list[RenderableType]:
    """The jobs, each with its progress as `done/total` and a percentage."""
    rows = [
        {
            "id": j["id"],
            "kind": j["kind"],
            "state": j["state"],
            "progress": progress(j["done"], j["total"]),
            "attempts": j["attempts"],
            "updated": j["updated_at"],
            "last error": j["last_error"],
        }
        for j in value["jobs"]
    ]
    out: list[RenderableType] = [table(rows)] if rows else [Text("no jobs")]
    out.append(Text(f"{value['active']} active (queued or running)", style="dim"))
    return out


def progress(done: int, total: int) -> str:
    if total <= 0:
        return f"{done}"
    return f"{done}/{total} ({100 * done // total}%)"


@renders("ingest")
def ingest(value: Mapping[str, Any]) -> list[RenderableType]:
    """An ingest's or sync's summary: files by outcome, paragraphs stored, then each error and
    warning on a line of its own."""
    counts = ", ".join(f"{n} {outcome}" for outcome, n in value["counts"].items()) or "no files"
    out: list[RenderableType] = [Text(f"{counts}; {value['paragraphs']} paragraph(s) stored")]
    for e in value["errors"]:
        error = e["error"]
        out.append(Text(f"error {text(e['path'])}: [{error['code']}] {text(error['message'])}"))
    for w in value["warnings"]:
        out.append(Text(f"warning {text(w['path'])}: {text(w['field'])}: {text(w['problem'])}"))
    return out


@renders("fields")
def plain_fields(value: Mapping[str, Any]) -> RenderableType:
    """A small dict of scalars (a write's counts, a migration's revision) as its fields."""
    return fields(value)
