"""`tabane resolve` and `tabane audit`: resolve (or its explain twin) and the vocabulary audit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from tabane.cli.common import emit, handled, service

if TYPE_CHECKING:
    from tabane.graph.vocabulary import Kind

Opt = typer.Option


@handled
def resolve(
    context: Annotated[str, typer.Argument(help="the context to resolve in")],
    cue: Annotated[str, typer.Argument(help="any spelling of the name you mean")],
    label: Annotated[bool, Opt("--label", help="resolve an edge label, not a concept")] = False,
    limit: Annotated[int, Opt(help="lexical candidates (1-100)")] = 10,
    dice_floor: Annotated[float | None, Opt(help="fuzzy (Dice) floor, in [0, 1]")] = None,
    semantic_floor: Annotated[float | None, Opt(help="cosine floor, in [-1, 1]")] = None,
    explain: Annotated[
        str | None, Opt(metavar="EXPECTED", help="explain why this spelling is (not) returned")
    ] = None,
) -> None:
    """Resolve a cue to stored spellings (lexical and semantic tiers, with glosses), or with
    --explain say why an expected spelling is or is not among them.
    Example: tabane resolve notes 東京 --explain 東京都"""
    kind: Kind = "label" if label else "concept"
    with service() as (svc, user):
        if explain is not None:
            emit(
                svc.explain_resolve(
                    user,
                    context,
                    cue,
                    explain,
                    kind=kind,
                    limit=limit,
                    dice_floor=dice_floor,
                    semantic_floor=semantic_floor,
                )
            )
            return
        emit(
            svc.resolve(
                user,
                context,
                cue,
                kind=kind,
                limit=limit,
                dice_floor=dice_floor,
                semantic_floor=semantic_floor,
            )
        )


@handled
def audit(
    context: Annotated[str, typer.Argument(help="the context to audit")],
    kind: Annotated[str | None, Opt(help="concept or label (default: both)")] = None,
    limit: Annotated[int, Opt(help="twin pairs per tier (1-1000)")] = 100,
) -> None:
    """List lexical and semantic twin spellings: candidates for an alias or a 別物 fact.
    Example: tabane audit notes --kind concept"""
    from tabane.graph.vocabulary import check_kind

    with service() as (svc, user):
        checked = None if kind is None else check_kind(kind)
        emit(svc.audit_vocabulary(user, context, kind=checked, limit=limit))
