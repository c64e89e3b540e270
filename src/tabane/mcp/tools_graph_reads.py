"""The graph read tools: query, describe, activate, explore, paths, unreachable_from, labels,
citations."""

from __future__ import annotations

from tabane.mcp.registry import tool

__all__ = ["tool"]
