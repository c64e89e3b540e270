"""What every route receives: the service and the principal it acts for.

The principal comes from the resolver given to `create_app` (the authentication seam), never from
a request field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request

from tabane.service import Tabane
from tabane.types import Principal

PrincipalResolver = Callable[[Request], Principal]


def service(request: Request) -> Tabane:
    svc: Tabane = request.app.state.tabane
    return svc


def current_user(request: Request) -> Principal:
    resolve: PrincipalResolver = request.app.state.principal
    return resolve(request)


Svc = Annotated[Tabane, Depends(service)]
User = Annotated[Principal, Depends(current_user)]
