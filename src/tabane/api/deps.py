"""What every route receives: the service and the principal it acts for.

The principal comes from the resolver given to `create_app` (the authentication seam), never from
a request field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any

from fastapi import Depends, Request

from tabane.archive import records
from tabane.errors import Issue, Unauthorized
from tabane.principal import Principal
from tabane.service import Tabane

PrincipalResolver = Callable[[Request], Principal]
JSON_LINES = "application/jsonl"  # the media type of the routes that stream many rows


def at_header(resolve: PrincipalResolver) -> PrincipalResolver:
    """`resolve`, with every refusal of the credentials named at the header they came in
    (`headers.authorization`), whichever check refused them (the key store, the JWT verifier)."""

    def resolved(request: Request) -> Principal:
        try:
            return resolve(request)
        except Unauthorized as exc:
            exc.issues = tuple(
                i if i.path.startswith("headers.") else Issue("headers.authorization", i.problem)
                for i in exc.issues
            )
            raise

    return resolved


def service(request: Request) -> Tabane:
    svc: Tabane = request.app.state.tabane
    return svc


def current_user(request: Request) -> Principal:
    resolve: PrincipalResolver = request.app.state.principal
    return resolve(request)


Svc = Annotated[Tabane, Depends(service)]
User = Annotated[Principal, Depends(current_user)]


def json_lines(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    """Each row as one line of compact JSON (a streamed export's body)."""
    for row in rows:
        yield records.line_text(row) + "\n"
