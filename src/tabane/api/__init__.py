"""The HTTP surface (FastAPI)."""

from tabane.api.app import create_app

__all__ = ["create_app"]
