"""The service's graph reads: query, describe, activate, explore, paths, unreachable_from,
labels, citations."""

from __future__ import annotations

from tabane.service.base import ServiceBase


class GraphReadService(ServiceBase):
    pass
