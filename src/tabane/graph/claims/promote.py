"""Promote a claim from a personal perspective (an experience, observation, opinion or
preference, held by one author) to the shared world's: a new `world` claim with the same
triple, weight, statement, attribution and author, which `closes` the personal one (closed as
`superseded`, `closed_by` the new claim, its history kept: graph reads and `explain_recall`
still find it). The personal edge loses its weight and the world edge gains it, in one write."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from tabane.errors import InvalidInput, Issue, NoClaim, TabaneError
from tabane.graph.claims.parse import ClaimInput
from tabane.graph.claims.write import write_batch
from tabane.principal import Principal
from tabane.storage.schema import Claim, Context
from tabane.storage.store import Session


@dataclass(frozen=True)
class Promotion:
    claim: int  # the new world claim
    promoted_from: int  # the personal claim it closed
    kind_was: str
    perspective_was: str
    associations: int  # edges whose weight changed
    scopes: tuple[str, ...]  # the new claim's


def promote(
    session: Session,
    principal: Principal,
    ctx: Context,
    claim_id: int,
    scopes: tuple[str, ...] | None = None,
) -> Promotion:
    """The promotion of open claim `claim_id` (`scopes`: the new claim's, default the old's)."""
    if isinstance(claim_id, bool) or not isinstance(claim_id, int):
        raise InvalidInput("not a claim id", issues=[Issue("claim", f"{claim_id!r}")])
    old = session.scalar(
        select(Claim).where(
            Claim.context_id == ctx.id, Claim.id == claim_id, Claim.closed_at.is_(None)
        )
    )
    if old is None:
        raise NoClaim(
            f"no open claim {claim_id} in context {ctx.name!r}",
            issues=[Issue("claim", "unknown, closed or not visible")],
        )
    if old.kind == "world":
        raise InvalidInput(
            f"claim {claim_id} is already the world's",
            issues=[Issue("claim", "kind world: nothing to promote")],
        )
    new = ClaimInput(
        old.subject,
        old.label,
        old.object,
        old.weight,
        statement=old.statement,
        in_reply_to=old.in_reply_to,
        source=old.source,
        paragraph=old.paragraph,
        author=old.author,
        role=old.role,
        kind="world",
        valid_from=old.valid_from,
        valid_until=old.valid_until,
        closes=(old.id,),
    )
    chosen = tuple(old.scopes) if scopes is None else scopes
    try:
        report = write_batch(session, principal, ctx, [new], chosen)
    except TabaneError as exc:  # the batch's one claim is this call's `claim`
        exc.issues = tuple(
            Issue(i.path.replace("associations[0].closes", "claim"), i.problem) for i in exc.issues
        )
        raise
    return Promotion(
        report.claims[0], old.id, old.kind, old.perspective, report.associations, chosen
    )


__all__ = ["Promotion", "promote"]
