"""Every MCP tool: importing the tool modules registers them (see registry.py)."""

from __future__ import annotations

from collections.abc import Mapping

from tabane.mcp.registry import ToolSpec, registered
from tabane.mcp.tools import (
    archive,
    contexts,
    search,
    sources,
)
from tabane.mcp.tools import (
    graph_read as tools_graph_reads,
)
from tabane.mcp.tools import (
    graph_write as tools_graph,
)
from tabane.mcp.tools import (
    memory as tools_memory,
)
from tabane.mcp.tools import (
    recall as tools_recall,
)
from tabane.mcp.tools import (
    resolve as tools_resolve,
)
from tabane.mcp.tools import (
    schema as tools_schema,
)

# The order tools/list serves: by module as listed here, then as each module defines them —
# never the order the modules happen to be imported in (which sorting imports would change).
MODULES = (
    contexts,
    sources,
    search,
    tools_graph,
    tools_graph_reads,
    tools_memory,
    tools_recall,
    tools_resolve,
    tools_schema,
    archive,
)


def all_tools() -> tuple[ToolSpec, ...]:
    """Every tool, module by module in MODULES' order."""
    rank = {m.__name__: i for i, m in enumerate(MODULES)}
    return tuple(sorted(registered(), key=lambda t: rank[t.run.__module__]))


def by_name() -> Mapping[str, ToolSpec]:
    return {t.name: t for t in all_tools()}
