"""`tabane associations add|retract` and `tabane aliases add|remove|list`: the graph writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from tabane.cli.common import emit, finish_jobs, graph_jobs, handled, service
from tabane.errors import InvalidInput, Issue

associations_app = typer.Typer(
    help="Claims of a context's graph: add a batch, retract edges.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
aliases_app = typer.Typer(
    help="Aliases: entry-only spellings of a concept or label.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Opt = typer.Option
KindOpt = Annotated[
    Literal["concept", "label"], Opt("--kind", help="whether the spelling is a concept or label")
]


def read_claims(text: str, where: str) -> list[object]:
    """A JSON list of claims, an object with an `associations` list (the HTTP body), or JSON
    Lines (one claim per line); a line that is not JSON is an issue naming the line."""
    stripped = text.strip()
    if not stripped:
        raise InvalidInput(f"{where} is empty", issues=[Issue(where, "empty")])
    broken: json.JSONDecodeError | None = None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        whole, broken = None, exc
    if isinstance(whole, list):
        return whole
    if isinstance(whole, dict):  # the HTTP body, or one claim (pretty-printed or not)
        items: object = whole.get("associations", whole)
        return items if isinstance(items, list) else [items]
    if broken is not None and not _json(stripped.splitlines()[0]):
        # one JSON document over several lines (its first is no JSON alone): its error and place
        problem = f"not JSON: {broken.msg} (line {broken.lineno}, column {broken.colno})"
        raise InvalidInput(f"{where} is not valid JSON", issues=[Issue(where, problem)])
    out: list[object] = []
    issues: list[Issue] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            issues.append(Issue(f"{where}:{number}", f"not JSON: {exc.msg}"))
    if issues:
        raise InvalidInput(f"{where} is neither JSON nor JSON Lines", issues=issues)
    return out


def _json(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


@associations_app.command("add")
@handled
def associations_add(
    context: Annotated[str, typer.Argument(help="context to write into")],
    file: Annotated[str, typer.Argument(help="JSON list or JSON Lines of claims; - for stdin")],
    scope: Annotated[list[str] | None, Opt("--scope", help="scope (repeat for a set)")] = None,
) -> None:
    """Write a batch of claims, all or nothing; prints the report (claim ids, minted spellings).
    Example: tabane associations add notes claims.jsonl"""
    if file == "-":
        text, where = sys.stdin.read(), "stdin"
    else:
        path = Path(file)
        if not path.is_file():
            raise InvalidInput(f"no file {file}", issues=[Issue("file", "not a readable file")])
        try:
            text, where = path.read_text(encoding="utf-8"), file
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(
                f"cannot read {file}",
                issues=[Issue("file", f"not UTF-8 text: {exc.__class__.__name__}")],
            ) from None
    from tabane.graph.claims.parse import parse_claims

    claims = parse_claims(read_claims(text, where), "associations")
    with service() as (svc, user):
        emit(svc.add_claims(user, context, claims, scopes=scope or None))
        finish_jobs(svc, graph_jobs(), (context,))


@associations_app.command("promote")
@handled
def associations_promote(
    context: Annotated[str, typer.Argument(help="context the claim is in")],
    claim: Annotated[int, typer.Argument(help="the personal claim's id")],
    scope: Annotated[list[str] | None, Opt("--scope", help="scope (repeat for a set)")] = None,
) -> None:
    """Make a personal claim (experience, observation, opinion, preference) the world's: a new
    world claim closes it, its history kept.  Example: tabane associations promote notes 42"""
    with service() as (svc, user):
        done = svc.promote(user, context, claim, scopes=scope)
        emit(done, said=f"claim {claim} promoted: world claim {done.claim}")


@associations_app.command("retract")
@handled
def associations_retract(
    context: Annotated[str, typer.Argument(help="context the edge is in")],
    subject: Annotated[str, Opt("--subject", "-s")],
    label: Annotated[str, Opt("--label", "-l")],
    object_: Annotated[str, Opt("--object", "-o")],
    perspective: Annotated[str | None, Opt(help="only this partition ('' = world)")] = None,
    source: Annotated[str | None, Opt(help="only claims attributed to this source")] = None,
    dry_run: Annotated[bool, Opt("--dry-run", help="only count what would close")] = False,
) -> None:
    """Close the live claims of one edge (weights drop; the edge stays).
    Example: tabane associations retract notes -s stress -l causes -o insomnia --dry-run"""
    with service() as (svc, user):
        edge = (subject, label, object_, perspective, source)
        emit(svc.retract_associations(user, context, [edge], dry_run=dry_run))


@aliases_app.command("add")
@handled
def aliases_add(
    context: Annotated[str, typer.Argument(help="context of the spelling")],
    alias: Annotated[str, typer.Argument(help="the new entry-only spelling")],
    target: Annotated[str, typer.Argument(help="the existing canonical spelling")],
    kind: KindOpt = "concept",
    scope: Annotated[list[str] | None, Opt("--scope", help="scope (repeat for a set)")] = None,
) -> None:
    """Make ALIAS an entry spelling of TARGET.  Example: tabane aliases add notes NYC 'New York'"""
    with service() as (svc, user):
        info, created = svc.add_alias(user, context, alias, target, kind=kind, scopes=scope)
        emit({"alias": info, "created": created})


@aliases_app.command("remove")
@handled
def aliases_remove(
    context: Annotated[str, typer.Argument(help="context of the alias")],
    alias: Annotated[str, typer.Argument(help="the alias to retract")],
    kind: KindOpt = "concept",
) -> None:
    """Retract one alias.  Example: tabane aliases remove notes NYC"""
    with service() as (svc, user):
        removed = svc.remove_alias(user, context, alias, kind=kind)
        emit({"alias": alias, "kind": kind, "removed": removed})


@aliases_app.command("list")
@handled
def aliases_list(
    context: Annotated[str, typer.Argument(help="context to list")],
    kind: Annotated[
        Literal["concept", "label"] | None, Opt("--kind", help="only this kind")
    ] = None,
) -> None:
    """List a context's aliases.  Example: tabane aliases list notes --kind concept"""
    with service() as (svc, user):
        emit({"aliases": svc.list_aliases(user, context, kind=kind)})
