"""The graph write tools: add and retract associations, aliases."""

from __future__ import annotations

from tabane.mcp.registry import tool

__all__ = ["tool"]
