"""A context's entry-only aliases: adding, listing and removing one, and reading them whole as an
archive carries them. An alias points at a stored spelling of the same kind; it is an entry point
for resolve, never a concept of its own."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, exists, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session, aliased

from tabane.errors import AliasConflict, Forbidden, InvalidInput, Issue, NoConcept, NotFound
from tabane.graph import readings, vocabulary, vocabulary_stats
from tabane.graph.vocabulary import Kind
from tabane.principal import PUBLIC, Principal
from tabane.storage.schema import Context, VocabEntry
from tabane.text.spelling import char_grams, spelling_key
from tabane.text.tokenize import normalize


def pointing(session: Session, context_id: int) -> Iterator[VocabEntry]:
    """Every alias row of the context the caller can see whose target spelling it can see too
    (an alias of a spelling the caller cannot see points nowhere), by kind, name and row id."""
    target = aliased(VocabEntry)
    stmt = (
        select(VocabEntry)
        .where(
            VocabEntry.context_id == context_id,
            VocabEntry.alias_of.is_not(None),
            exists().where(
                target.context_id == context_id,
                target.kind == VocabEntry.kind,
                target.name == VocabEntry.alias_of,
                target.alias_of.is_(None),
            ),
        )
        .order_by(VocabEntry.kind, VocabEntry.name, VocabEntry.id)
    )
    yield from session.scalars(stmt)


@dataclass(frozen=True)
class AliasInfo:
    alias: str
    target: str
    kind: str
    scopes: tuple[str, ...]


def add_alias(
    session: Session,
    principal: Principal,
    ctx: Context,
    kind: Kind,
    alias: str,
    target: str,
    scopes: Sequence[str] | None,
) -> tuple[AliasInfo, bool]:
    """Register `alias` as an entry spelling of the existing `target`; (info, created). Without
    `scopes` the alias is read where its target is (see `_alias_scopes`)."""
    if alias == target:
        raise InvalidInput("an alias must differ from its target", issues=[Issue("alias", "same")])
    target = vocabulary.canonical(session, ctx.id, kind, [target]).get(target, target)
    if not vocabulary.exists(session, ctx.id, kind, target):
        raise NoConcept(
            f"no {kind} {target!r} in context {ctx.name!r}",
            issues=[Issue("target", f"not a {kind} of this context; write it first")],
        )
    scopes = _alias_scopes(session, ctx, kind, target, scopes)
    if not principal.can_write(tuple(scopes)):
        raise Forbidden("you may not write these scopes", issues=[Issue("scopes", "not writable")])
    if vocabulary.exists(session, ctx.id, kind, alias):
        raise AliasConflict(
            f"{alias!r} is already a {kind}: an alias cannot join two existing {kind}s",
            issues=[Issue("alias", f"an existing {kind}; merging is not an alias")],
        )
    current = vocabulary.canonical(session, ctx.id, kind, [alias]).get(alias)
    if current is not None and current != target:
        raise AliasConflict(
            f"{alias!r} is already an alias of {current!r}",
            issues=[Issue("alias", f"points at {current!r}; delete that alias first")],
        )
    stmt = (
        insert(VocabEntry)
        .values(
            context_id=ctx.id,
            kind=kind,
            name=alias,
            norm=normalize(alias),
            key=spelling_key(alias),
            grams=len(char_grams(spelling_key(alias))),
            alias_of=target,
            scopes=list(scopes),
            written_by=principal.user_id,
        )
        .on_conflict_do_nothing(index_elements=["context_id", "kind", "name", "scopes"])
        .returning(VocabEntry.id, VocabEntry.key)
    )
    row = session.execute(stmt).first()
    if row is None:  # the spelling is stored under these scopes: as this alias, or made since
        _same_alias(session, ctx, kind, alias, target, scopes)
        return AliasInfo(alias, target, kind, tuple(scopes)), False
    vocabulary.index_grams(session, ctx.id, kind, scopes, [(row.id, row.key)])
    readings.index(session, ctx.id, kind, scopes, [(row.id, alias)])
    return AliasInfo(alias, target, kind, tuple(scopes)), True


def _alias_scopes(
    session: Session, ctx: Context, kind: Kind, target: str, scopes: Sequence[str] | None
) -> tuple[str, ...]:
    """The alias's scope set: the one given (an explicit wider set publishes the target's name
    to its readers, the writer's choice), else the context's when every reader of the context
    may read the target, else the target's own (the fewest scopes of its rows): a default
    alias never shows a private concept's name to readers who cannot resolve it."""
    if scopes is not None:
        return tuple(scopes)
    rows = session.scalars(
        select(VocabEntry.scopes).where(
            VocabEntry.context_id == ctx.id,
            VocabEntry.kind == kind,
            VocabEntry.name == target,
            VocabEntry.alias_of.is_(None),
        )
    ).all()
    if any(set(r) - {PUBLIC} <= set(ctx.scopes) for r in rows):
        return tuple(ctx.scopes)
    return min((tuple(sorted(r)) for r in rows), key=lambda r: (len(r), r))


def _same_alias(
    session: Session, ctx: Context, kind: Kind, alias: str, target: str, scopes: Sequence[str]
) -> None:
    """AliasConflict unless the stored row of `alias` under `scopes` is this very alias (a
    concurrent writer may have made it a concept, or an alias of another target, after the
    checks above read)."""
    stored = session.execute(
        select(VocabEntry.alias_of).where(
            VocabEntry.context_id == ctx.id,
            VocabEntry.kind == kind,
            VocabEntry.name == alias,
            VocabEntry.scopes == list(scopes),
        )
    ).first()
    if stored is None or stored.alias_of == target:
        return
    what = f"an alias of {stored.alias_of!r}" if stored.alias_of else f"a {kind}"
    raise AliasConflict(
        f"{alias!r} became {what} meanwhile", issues=[Issue("alias", f"now {what}")]
    )


def remove_alias(
    session: Session, principal: Principal, ctx: Context, kind: Kind, alias: str
) -> int:
    """Retract an alias (every row of it the caller may write); NotFound when there is none."""
    rows = session.execute(
        select(VocabEntry.id, VocabEntry.scopes).where(
            VocabEntry.context_id == ctx.id,
            VocabEntry.kind == kind,
            VocabEntry.name == alias,
            VocabEntry.alias_of.is_not(None),
        )
    ).all()
    if not rows:
        raise NotFound(f"no alias {alias!r}", issues=[Issue("alias", "not an alias here")])
    mine = [row.id for row in rows if principal.can_write(tuple(row.scopes))]
    if not mine:
        raise Forbidden(
            f"you may not retract alias {alias!r}", issues=[Issue("alias", "scopes not writable")]
        )
    vocabulary_stats.unbump_entries(session, mine)
    session.execute(delete(VocabEntry).where(VocabEntry.id.in_(mine)))
    return len(mine)


def list_aliases(
    session: Session, context_id: int, kind: Kind | None = None, target: str | None = None
) -> list[AliasInfo]:
    stmt = select(VocabEntry).where(
        VocabEntry.context_id == context_id, VocabEntry.alias_of.is_not(None)
    )
    if kind is not None:
        stmt = stmt.where(VocabEntry.kind == kind)
    if target is not None:
        stmt = stmt.where(VocabEntry.alias_of == target)
    rows = session.scalars(stmt.order_by(VocabEntry.kind, *vocabulary.narrowest_first()))
    # every alias row the caller can see: one spelling may point at different targets under
    # different scope sets, and the first listed is the one that wins (`canonical`)
    return [AliasInfo(r.name, r.alias_of or "", r.kind, tuple(r.scopes)) for r in rows]
