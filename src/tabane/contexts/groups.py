"""Groups: named bundles of contexts and child groups, a DAG at most three groups tall.

Membership changes by deltas; members must exist; deleting a context or group removes it from every
group (foreign keys cascade). Membership rows carry their group's scope set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.checks import check_name, text_problem
from tabane.contexts.contexts import check_description, writable_scopes
from tabane.contexts.contexts import resolve as resolve_context
from tabane.errors import (
    Forbidden,
    GroupCycle,
    GroupTooDeep,
    InvalidInput,
    Issue,
    NameTaken,
    NoGroup,
)
from tabane.principal import Principal
from tabane.storage.schema import Context, Group, GroupChild, GroupContext

MAX_HEIGHT = 3  # groups in the longest parent→child chain
GROUP_GRAPH_LOCK = 0x7461_6261_6E65_0001  # pg_advisory_xact_lock key: "tabane", group graph


@dataclass(frozen=True)
class GroupInfo:
    name: str
    description: str
    scopes: tuple[str, ...]
    contexts: tuple[str, ...]
    groups: tuple[str, ...]


def resolve(session: Session, name: str, path: str = "group") -> Group:
    if isinstance(name, str) and (problem := text_problem(name)):  # no stored name has it
        raise InvalidInput(f"invalid group name: {problem}", issues=[Issue(path, problem)])
    group = session.scalar(select(Group).where(Group.name == name))
    if group is None:
        raise NoGroup(f"no group {name!r}", issues=[Issue(path, "unknown or not visible")])
    return group


def create(
    session: Session,
    principal: Principal,
    name: str,
    *,
    description: str = "",
    contexts: Sequence[str] = (),
    groups: Sequence[str] = (),
    scopes: object | None = None,
    structure: Callable[[], Iterable[tuple[int, int]]] | None = None,
) -> GroupInfo:
    name = check_name(name, "name", "group name")
    try:
        with session.begin_nested():
            group = Group(
                name=name,
                description=check_description(description),
                scopes=writable_scopes(principal, scopes),
            )
            session.add(group)
            session.flush()
    except IntegrityError:
        raise NameTaken(f"group {name!r} exists", issues=[Issue("name", "taken")]) from None
    return change(
        session,
        principal,
        name,
        add_contexts=contexts,
        add_groups=groups,
        structure=structure,
        named=("contexts", "groups"),
    )


def change(
    session: Session,
    principal: Principal,
    name: str,
    *,
    description: str | None = None,
    add_contexts: Iterable[str] = (),
    remove_contexts: Iterable[str] = (),
    add_groups: Iterable[str] = (),
    remove_groups: Iterable[str] = (),
    structure: Callable[[], Iterable[tuple[int, int]]] | None = None,
    named: tuple[str, str] = ("add_contexts", "add_groups"),
) -> GroupInfo:
    """Apply the deltas. `structure` gives every (parent, child) edge of the store, the ones the
    caller cannot see included (the service reads them as the owner): a cycle or a chain too tall
    through an invisible group must be refused too. Without it only visible edges are checked.
    Changes to the group graph take turns (`_one_at_a_time`): two that each look fine alone
    (x contains y, y contains x) cannot both pass the check. `named` are the caller's field
    names for the contexts and groups added, for issue paths."""
    _one_at_a_time(session)
    group = resolve(session, name)
    _require_writable(principal, group)
    if description is not None:
        group.description = check_description(description)
    scopes = list(group.scopes)
    for i, cname in enumerate(add_contexts):
        ctx = resolve_context(session, cname, f"{named[0]}[{i}]")
        session.execute(
            insert(GroupContext)
            .values(group_id=group.id, context_id=ctx.id, scopes=scopes)
            .on_conflict_do_nothing()
        )
    for i, cname in enumerate(remove_contexts):
        ctx = resolve_context(session, cname, f"remove_contexts[{i}]")
        session.execute(
            delete(GroupContext).where(
                GroupContext.group_id == group.id, GroupContext.context_id == ctx.id
            )
        )
    for i, gname in enumerate(remove_groups):
        child = resolve(session, gname, f"remove_groups[{i}]")
        session.execute(
            delete(GroupChild).where(
                GroupChild.parent_id == group.id, GroupChild.child_id == child.id
            )
        )
    for i, gname in enumerate(add_groups):
        child = resolve(session, gname, f"{named[1]}[{i}]")
        _check_edge(session, group, child, f"{named[1]}[{i}]", structure)
        session.execute(
            insert(GroupChild)
            .values(parent_id=group.id, child_id=child.id, scopes=scopes)
            .on_conflict_do_nothing()
        )
    session.flush()
    return info(session, group)


def delete_group(session: Session, principal: Principal, name: str) -> None:
    _one_at_a_time(session)
    group = resolve(session, name)
    _require_writable(principal, group)
    session.delete(group)
    session.flush()


def rename(session: Session, principal: Principal, name: str, new_name: str) -> GroupInfo:
    """Rename a group; its members, its parents' links to it and its scopes stay."""
    _one_at_a_time(session)
    group = resolve(session, name)
    _require_writable(principal, group)
    new_name = check_name(new_name, "new_name", "group name")
    try:
        with session.begin_nested():
            group.name = new_name
            session.flush()
    except IntegrityError:
        raise NameTaken(f"group {new_name!r} exists", issues=[Issue("new_name", "taken")]) from None
    return info(session, group)


def get(session: Session, name: str) -> GroupInfo:
    return info(session, resolve(session, name))


def list_all(session: Session) -> list[GroupInfo]:
    return [info(session, g) for g in session.scalars(select(Group).order_by(Group.name))]


def expand(session: Session, contexts: Sequence[str], groups: Sequence[str]) -> list[Context]:
    """Every context named or reached through the groups (children included), deduplicated,
    in first-reached order."""
    seen: dict[int, Context] = {}
    for i, cname in enumerate(contexts):
        ctx = resolve_context(session, cname, f"contexts[{i}]")
        seen.setdefault(ctx.id, ctx)
    for i, gname in enumerate(groups):
        root = resolve(session, gname, f"groups[{i}]")
        for gid in _descendants(_children(session), root.id):
            rows = session.scalars(
                select(Context)
                .join(GroupContext, GroupContext.context_id == Context.id)
                .where(GroupContext.group_id == gid)
                .order_by(Context.name)
            )
            for ctx in rows:
                seen.setdefault(ctx.id, ctx)
    return list(seen.values())


def info(session: Session, group: Group) -> GroupInfo:
    contexts = session.scalars(
        select(Context.name)
        .join(GroupContext, GroupContext.context_id == Context.id)
        .where(GroupContext.group_id == group.id)
        .order_by(Context.name)
    ).all()
    children = session.scalars(
        select(Group.name)
        .join(GroupChild, GroupChild.child_id == Group.id)
        .where(GroupChild.parent_id == group.id)
        .order_by(Group.name)
    ).all()
    return GroupInfo(
        group.name, group.description, tuple(group.scopes), tuple(contexts), tuple(children)
    )


def _one_at_a_time(session: Session) -> None:
    """Serialise changes to the group graph until this transaction ends (a transaction-level
    advisory lock): each change then checks cycles and heights against the graph the previous
    one committed, and a group deleted meanwhile is not found rather than half-written."""
    session.execute(select(func.pg_advisory_xact_lock(GROUP_GRAPH_LOCK)))


def _require_writable(principal: Principal, group: Group) -> None:
    if not principal.can_write(tuple(group.scopes)):
        raise Forbidden(
            f"you may not change group {group.name!r}",
            issues=[Issue("group", f"scopes {sorted(group.scopes)} are not all writable")],
        )


def _edges(session: Session) -> list[tuple[int, int]]:
    return [(p, c) for p, c in session.execute(select(GroupChild.parent_id, GroupChild.child_id))]


def _children(session: Session) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for p, c in _edges(session):
        children.setdefault(p, []).append(c)
    return children


def _descendants(children: dict[int, list[int]], root: int) -> list[int]:
    order, stack, seen = [], [root], {root}
    while stack:
        gid = stack.pop(0)
        order.append(gid)
        for c in sorted(children.get(gid, [])):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return order


def _check_edge(
    session: Session,
    parent: Group,
    child: Group,
    path: str,
    structure: Callable[[], Iterable[tuple[int, int]]] | None = None,
) -> None:
    """Refuse an edge that closes a cycle or makes a chain taller than MAX_HEIGHT groups.
    The edges are this transaction's visible ones plus, when given, the whole store's."""
    edges = set(_edges(session)) | set(structure() if structure is not None else ())
    down: dict[int, list[int]] = {}
    up: dict[int, list[int]] = {}
    for p, c in edges:
        down.setdefault(p, []).append(c)
        up.setdefault(c, []).append(p)
    if parent.id == child.id or parent.id in _descendants(down, child.id):
        raise GroupCycle(
            f"adding {child.name!r} under {parent.name!r} would make a cycle",
            issues=[Issue(path, "cycle")],
        )

    def height(node: int, links: dict[int, list[int]]) -> int:
        return 1 + max((height(n, links) for n in links.get(node, [])), default=0)

    tall = height(parent.id, up) + height(child.id, down)
    if tall > MAX_HEIGHT:
        raise GroupTooDeep(
            f"adding {child.name!r} under {parent.name!r} makes a chain of {tall} groups",
            issues=[Issue(path, f"at most {MAX_HEIGHT} groups tall")],
        )


def all_edges(session: Session) -> list[tuple[int, int]]:
    """Every (parent, child) membership edge; call it in the owner's session, where the
    integrity check must see the groups its caller cannot."""
    return _edges(session)
