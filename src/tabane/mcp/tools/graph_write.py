"""The graph write tools: add and retract associations, aliases. Each is a thin shell over the
`Tabane` facade; the claims go through the service's `parse_claims`, so the issues match HTTP's."""

from __future__ import annotations

from tabane.graph.claims.write import CloseReport, WriteReport
from tabane.mcp.registry import tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.graph_write import (
    AddAliasArgs,
    AddAssociationsArgs,
    AliasList,
    AliasRemoved,
    AliasWrittenResult,
    ListAliasesArgs,
    PromoteArgs,
    Promotion,
    RemoveAliasArgs,
    RetractAssociationsArgs,
)


@tool("write")
def add_associations(svc: Tabane, user: Principal, a: AddAssociationsArgs) -> WriteReport:
    """Write claims (subject, label, object, weight) into a context's graph, up to 10,000 at
    once, all or nothing; a rejected batch names each problem (associations[3].weight) and writes
    nothing. RESOLVE BEFORE YOU MINT: call `resolve` (and `resolve_label`) for every name first
    and reuse the existing spelling; the report lists minted_concepts and minted_labels, so check
    that each is really new. Attribute every edge to its `source` and `paragraph`. Procedures:
    one edge from the procedure to its first step (first_step), one per step to the next
    (next_step), and a membership edge from each step to the procedure (part_of). Causality: a
    negative weight means 'does not cause'; 'prevents' is its own label; a correlation stays a
    correlation label, never 'causes'. Source code: identifiers as short exact names (the symbol,
    not a sentence) with a small label vocabulary: kind, defined_in, calls, field, variant,
    returns, invariant, purpose. Weights add up: writing the same claim twice doubles it, so
    retract a source's claims (`retract_associations` with source, or `retract_source`) before
    re-ingesting it. A correction lists the claim ids it replaces in `closes`."""
    return svc.add_claims(user, a.context, a.claims(), scopes=a.scopes)


@tool("destroy")
def retract_associations(svc: Tabane, user: Principal, a: RetractAssociationsArgs) -> CloseReport:
    """Close the live claims of each (subject, label, object) edge, optionally only those of one
    `perspective` or attributed to one `source`: the weights drop, the concepts and edges stay
    (history is kept, nothing is overwritten). Run with dry_run=true first to see how many claims
    would close. Retract what a withdrawn or changed source claimed before writing it again."""
    return svc.retract_associations(user, a.context, a.edges(), dry_run=a.dry_run)


@tool("update")
def promote(svc: Tabane, user: Principal, a: PromoteArgs) -> Promotion:
    """Make a personal claim (an `experience`, `observation`, `opinion` or `preference` held by
    its author) the shared world's: a new `world` claim with the same triple, weight, statement
    and attribution closes it (`superseded`; its history stays, `closed_by` the new one). Do it
    when the holder's view turned out to be a fact for everyone, not to overwrite a dispute."""
    return svc.promote(user, a.context, a.claim, scopes=a.scopes)


@tool("write")
def add_alias(svc: Tabane, user: Principal, a: AddAliasArgs) -> AliasWrittenResult:
    """Make `alias` an entry-only spelling of the existing concept (or label) `target`: writes
    and resolve accept it, every read answers the canonical spelling. Use it for abbreviations,
    transliterations and old names of the SAME thing. An alias cannot join two existing concepts
    (alias_conflict): a look-alike that is a different thing is not an alias; record it as
    distinct instead (a 'distinct_from' claim). Idempotent: created=false when it already was."""
    info, created = svc.add_alias(user, a.context, a.alias, a.target, kind=a.kind, scopes=a.scopes)
    return AliasWrittenResult(info, created)


@tool("destroy")
def remove_alias(svc: Tabane, user: Principal, a: RemoveAliasArgs) -> AliasRemoved:
    """Retract one alias; the canonical spelling and its edges stay."""
    removed = svc.remove_alias(user, a.context, a.alias, kind=a.kind)
    return AliasRemoved(a.alias, a.kind, removed)


@tool("read")
def list_aliases(svc: Tabane, user: Principal, a: ListAliasesArgs) -> AliasList:
    """A context's aliases with their canonical targets (optionally one kind)."""
    return AliasList(svc.list_aliases(user, a.context, kind=a.kind))
