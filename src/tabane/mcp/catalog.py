"""Every MCP tool: importing the tool modules registers them (see registry.py)."""

from __future__ import annotations

from collections.abc import Mapping

from tabane.mcp import (
    tools,
    tools_graph,
    tools_graph_reads,
    tools_memory,
    tools_recall,
    tools_resolve,
)
from tabane.mcp.registry import ToolSpec, registered

MODULES = (tools, tools_recall, tools_graph, tools_resolve, tools_graph_reads, tools_memory)


def all_tools() -> tuple[ToolSpec, ...]:
    """Every tool, in registration order."""
    return registered()


def by_name() -> Mapping[str, ToolSpec]:
    return {t.name: t for t in all_tools()}
