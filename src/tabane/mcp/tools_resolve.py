"""The resolve tools: resolve, resolve_label, their explain twins, the vocabulary audit."""

from __future__ import annotations

from tabane.mcp.registry import tool

__all__ = ["tool"]
