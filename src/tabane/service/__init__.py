"""The service facade."""

from tabane.service.facade import Tabane

__all__ = ["Tabane"]
