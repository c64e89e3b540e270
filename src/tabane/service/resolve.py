"""The service's resolve operations: resolve, resolve_label, their explain twins, audits."""

from __future__ import annotations

from tabane.service.base import ServiceBase


class ResolveService(ServiceBase):
    pass
