"""The resolve tools: resolve, resolve_label, their explain twin, the vocabulary audit."""

from __future__ import annotations

from tabane.graph.audit import Audit
from tabane.graph.resolve.explain import ResolveExplanation
from tabane.graph.resolve.resolver import Resolution
from tabane.mcp.registry import tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.resolve import AuditArgs, ExplainResolveArgs, ResolveArgs


@tool("read")
def resolve(svc: Tabane, user: Principal, a: ResolveArgs) -> Resolution:
    """RESOLVE BEFORE YOU MINT: map any spelling (typo, width or kana variant, camelCase or
    snake_case) to the concepts already stored, and reuse an existing spelling instead of
    writing a new one. `candidates` is the lexical tier: exact or alias (the cue IS a stored
    spelling; nothing else is scored), variant (the cue in other kanji forms, 高崎 for 髙﨑, is
    a stored spelling), containment, fuzzy. A containment or fuzzy candidate can
    be a look-alike (京都 is inside 東京都): read its `gloss` (the name with its heaviest facts)
    and its `warnings` before adopting it; never adopt on score alone. `semantic` (only when the
    lexical best is under 0.5) holds paraphrase matches by gloss cosine: a different ruler, never
    compare it with lexical scores. Case twins (Frame, frame) both come back at 1.0: they are
    different concepts. On a miss, ask `explain_resolve` instead of retrying with other floors."""
    return svc.resolve(
        user,
        a.context,
        a.cue,
        **a.options(),
    )


@tool("read")
def resolve_label(svc: Tabane, user: Principal, a: ResolveArgs) -> Resolution:
    """Resolve an edge label before coining one: label vocabularies fork silently (創業年 vs
    設立年) and a query pinned to one label then misses the other's facts. Reuse the existing
    spelling when one fits."""
    return svc.resolve_label(
        user,
        a.context,
        a.cue,
        **a.options(),
    )


@tool("read")
def explain_resolve(svc: Tabane, user: Principal, a: ExplainResolveArgs) -> ResolveExplanation:
    """Why `resolve` (kind concept) or `resolve_label` (kind label) did or did not return
    `expected` for `cue` — one call instead of bisecting floors. Verdicts: not_in_vocabulary
    (with the nearest stored spellings: maybe add an alias), eclipsed_by_exact (the cue is
    another stored spelling), below_floor (with the dice_floor that would admit it),
    cut_by_limit (with a verified limit), semantic_never_ran (why), semantic_below_floor (the
    cosine and floor), or served."""
    return svc.explain_resolve(
        user,
        a.context,
        a.cue,
        a.expected,
        kind=a.kind,
        **a.options(),
    )


@tool("read")
def audit_vocabulary(svc: Tabane, user: Principal, a: AuditArgs) -> Audit:
    """At milestones, list spellings that may be one referent split in two: lexical twins
    (Dice ≥ 0.6) and semantic twins (gloss cosine). Candidates, not verdicts: the same referent
    → keep one canonical and add the other as an alias; genuinely different → write
    (a, 別物, b, 1.0) so both spellings warn at resolve time (such pairs come back `distinct`)."""
    return svc.audit_vocabulary(user, a.context, kind=a.kind, limit=a.limit)
