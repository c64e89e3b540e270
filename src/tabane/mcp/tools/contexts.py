"""The MCP tools for contexts and groups: each a thin shell over the `Tabane` facade,
registered with `registry.tool` (see registry.py for what a tool is)."""

from __future__ import annotations

from tabane.contexts.contexts import ContextInfo
from tabane.contexts.groups import GroupInfo
from tabane.mcp.registry import tool as _tool
from tabane.mcp.resources import protocol_text
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.base import NoArgs
from tabane.wire.contexts import (
    ChangeGroupArgs,
    ChangePage,
    ChangesArgs,
    CompactArgs,
    Compaction,
    ContextCreate,
    ContextDeletedResult,
    ContextListResult,
    Flush,
    FlushArgs,
    GroupCreate,
    GroupDeletedResult,
    GroupList,
    NameArgs,
    ProtocolText,
    RenameArgs,
    UpdateContextArgs,
)


@_tool("read")
def list_contexts(svc: Tabane, user: Principal, a: NoArgs) -> ContextListResult:
    """Start here. Lists every context you can see with its description, stats (sources,
    paragraphs, sections) and usage. Choose the context whose description fits the task; a context
    is one frame of meaning (one spelling, one referent)."""
    return ContextListResult(svc.list_contexts(user))


@_tool("read")
def get_context(svc: Tabane, user: Principal, a: NameArgs) -> ContextInfo:
    """One context's description, settings, scopes, stats and usage."""
    return svc.get_context(user, a.name)


@_tool("write")
def create_context(svc: Tabane, user: Principal, a: ContextCreate) -> ContextInfo:
    """Create a context: a frame of meaning where one spelling names one referent ('Apple' the
    fruit and the company belong in different contexts). Check `list_contexts` first; write a
    description a later reader can choose by."""
    return svc.create_context(user, a.name, **a.model_dump(exclude_unset=True, exclude={"name"}))


@_tool("update")
def update_context(svc: Tabane, user: Principal, a: UpdateContextArgs) -> ContextInfo:
    """Change a context's description or floors. Only the fields you pass change."""
    return svc.update_context(user, a.name, a.changes())


@_tool("update")
def rename_context(svc: Tabane, user: Principal, a: RenameArgs) -> ContextInfo:
    """Rename a context; everything in it stays."""
    return svc.rename_context(user, a.name, a.new_name)


@_tool("destroy")
def delete_context(svc: Tabane, user: Principal, a: NameArgs) -> ContextDeletedResult:
    """Delete a context with every source in it (irreversible: ask the user first). Returns what
    was removed."""
    return ContextDeletedResult(a.name, svc.delete_context(user, a.name))


@_tool("read")
def changes(svc: Tabane, user: Principal, a: ChangesArgs) -> ChangePage:
    """What was written in `context` since your cursor (`since`: the `next` of your last page;
    omitted: from the first event), as far as you may see: sources stored or retracted, claims
    recorded or closed (with their triple), aliases added; `more: true`: call again at once.
    `tail: true` gives only a cursor for what comes from now on. Poll it to keep a copy or a
    summary current instead of re-reading the context."""
    return svc.changes(user, a.context, since=a.since, limit=a.limit, tail=a.tail)


@_tool("update")
def compact(svc: Tabane, user: Principal, a: CompactArgs) -> Compaction:
    """Compact a context you may write, now: fold its fresh BM25 packs and masks into the
    merged rows and pack its vocabulary bigrams (the background merges do it when due). Not
    VACUUM (whole tables: the operator's). Content is unchanged; reads get cheaper."""
    return svc.compact(user, a.context)


@_tool("read")
def flush(svc: Tabane, user: Principal, a: FlushArgs) -> Flush:
    """Wait (at most `timeout` seconds) for the jobs queued for `context` after writes: the
    embedding of new paragraphs and claims, merges, derived rebuilds. `left` 0: all done (the
    vector lanes see everything written). Writes are durable when they return; this only waits."""
    return svc.flush(user, a.context, a.timeout)


@_tool("read")
def list_groups(svc: Tabane, user: Principal, a: NoArgs) -> GroupList:
    """List groups: named bundles of contexts and child groups, for reading several contexts at
    once."""
    return GroupList(svc.list_groups(user))


@_tool("read")
def get_group(svc: Tabane, user: Principal, a: NameArgs) -> GroupInfo:
    """One group with its member contexts and child groups."""
    return svc.get_group(user, a.name)


@_tool("write")
def create_group(svc: Tabane, user: Principal, a: GroupCreate) -> GroupInfo:
    """Create a group of existing contexts and child groups (a DAG at most 3 groups tall)."""
    return svc.create_group(user, a.name, **a.model_dump(exclude_unset=True, exclude={"name"}))


@_tool("update")
def change_group(svc: Tabane, user: Principal, a: ChangeGroupArgs) -> GroupInfo:
    """Change a group by deltas: add_contexts, remove_contexts, add_groups, remove_groups (and
    optionally its description). Members must exist; cycles are refused."""
    return svc.change_group(user, a.name, **a.model_dump(exclude={"name"}))


@_tool("update")
def rename_group(svc: Tabane, user: Principal, a: RenameArgs) -> GroupInfo:
    """Rename a group; its member contexts, child groups and the groups that hold it stay."""
    return svc.rename_group(user, a.name, a.new_name)


@_tool("destroy")
def delete_group(svc: Tabane, user: Principal, a: NameArgs) -> GroupDeletedResult:
    """Delete a group; its contexts and child groups stay."""
    svc.delete_group(user, a.name)
    return GroupDeletedResult(a.name)


@_tool("read")
def get_protocol(svc: Tabane, user: Principal, a: NoArgs) -> ProtocolText:
    """The protocol: how to use tabane's tools (the same text as the server's instructions and
    the `tabane://protocol` resource). Read it when your client did not show you those."""
    return ProtocolText(protocol_text())
