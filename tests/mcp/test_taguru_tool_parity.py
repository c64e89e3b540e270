"""Taguru's MCP tool list against tabane's, by name (issue 35): every Taguru tool is one of
tabane's under the same name, or protocol.md maps its name to tabane's tool (`name → `tool``)."""

from __future__ import annotations

import re

from tabane.mcp import catalog
from tabane.mcp.resources import protocol_text

# Taguru's tools (its MCP schema's names, Taguru 0.9.3)
TAGURU = [
    "list_contexts",
    "create_context",
    "update_context",
    "delete_context",
    "rename_context",
    "list_groups",
    "create_group",
    "update_group",
    "delete_group",
    "rename_group",
    "add_associations",
    "store_passages",
    "lookup_passages",
    "list_sources",
    "resolve",
    "resolve_label",
    "explain_resolve",
    "explain_resolve_label",
    "describe",
    "query",
    "recall",
    "activate",
    "paths",
    "explore",
    "changes",
    "list_labels",
    "get_aliases",
    "add_aliases",
    "remove_aliases",
    "get_schema",
    "put_schema",
    "promote",
    "retract_source",
    "retract_association",
    "search_passages",
    "search_communities",
    "assemble_evidence",
    "explain_search",
    "cite_passage",
    "retrieve",
    "refresh_embeddings",
    "audit_vocabulary",
    "audit_consolidation",
    "audit_coverage",
    "audit_drift",
    "audit_schema",
    "validate_schema",
    "flush",
    "export_context",
    "export_group",
    "get_context",
    "get_group",
    "compact",
    "import",
    "get_protocol",
]


def mapped() -> dict[str, list[str]]:
    """protocol.md's line of Taguru's names: each name → the tools named after its arrow."""
    (line,) = [ln for ln in protocol_text().splitlines() if ln.startswith("- Taguru's tools")]
    out: dict[str, list[str]] = {}
    pairs = re.findall(r"((?:[a-z_]+, )*[a-z_]+) → ((?:`[a-z_]+`(?:, )?)+)", line)
    for left, right in pairs:
        for name in left.split(", "):
            out[name] = re.findall(r"`([a-z_]+)`", right)
    return out


def test_every_taguru_tool_is_ours_or_mapped() -> None:
    ours = {t.name for t in catalog.all_tools()}
    names = mapped()
    missing = [n for n in TAGURU if n not in ours and n not in names]
    assert missing == [], "a Taguru tool neither served under its name nor mapped in protocol.md"
    for name, tools in names.items():
        assert name not in ours, f"{name} is ours: no mapping needed"
        assert tools and set(tools) <= ours, f"{name} → {tools}: not tabane's tools"
    assert len(TAGURU) == len(set(TAGURU)) == 55
