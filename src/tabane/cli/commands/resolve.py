"""`tabane resolve` and `tabane audit`: resolve (or its explain twin), the semantic floor's
calibration and the vocabulary audit.

`tabane resolve CONTEXT CUE` is the group's default command (`cue`): arguments that do not start
with a subcommand's name go to it, so `tabane resolve calibrate CONTEXT` and the plain form live
side by side (a context named `calibrate` or `cue` is reached as `tabane resolve cue NAME CUE`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from tabane.cli.common import emit, handled, service

if TYPE_CHECKING:
    from tabane.graph.vocabulary import Kind

Opt = typer.Option
DEFAULT = "cue"


class _DefaultCue(TyperGroup):
    """A group whose first argument, when it names no subcommand, belongs to `cue`."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: typer's own click
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [DEFAULT, *args]
        return super().parse_args(ctx, args)


resolve_app = typer.Typer(
    cls=_DefaultCue,
    no_args_is_help=True,
    help="Resolve a cue to stored spellings (`tabane resolve CONTEXT CUE`, the `cue` command), "
    "or calibrate the semantic floor. Example: tabane resolve notes 東京 --explain 東京都",
)


@resolve_app.command(DEFAULT)
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
    from tabane.wire.base import built
    from tabane.wire.resolve import ResolveIn

    kind: Kind = "label" if label else "concept"
    floors = {"dice_floor": dice_floor, "semantic_floor": semantic_floor}
    options = built(ResolveIn, cue=cue, limit=limit, **floors).options()
    with service() as (svc, user):
        if explain is not None:
            emit(svc.explain_resolve(user, context, cue, explain, kind=kind, **options))
            return
        emit(svc.resolve(user, context, cue, kind=kind, **options))


@resolve_app.command("calibrate")
@handled
def calibrate(
    context: Annotated[str, typer.Argument(help="the context whose concepts are the probes")],
) -> None:
    """Propose a semantic floor for resolve from the context's own concepts: each concept,
    described by its facts without its name, is a probe; its own gloss cosine makes the upper
    band, the best other concept's the lower; the floor sits between them (or, where they
    overlap, where the most of the upper and the least of the lower band meet). Set it with
    `tabane contexts update CONTEXT --semantic-floor F` or TABANE_SEMANTIC_FLOOR.
    Example: tabane resolve calibrate notes"""
    with service() as (svc, user):
        emit(svc.calibrate_resolve(user, context))


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
