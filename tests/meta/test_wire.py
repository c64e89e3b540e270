"""One wire (docs/decisions/0006): every request and answer shape that crosses an entrance is
declared in `tabane.wire`, and a tool's arguments are the HTTP body of the same request."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

from fastapi.routing import APIRoute
from pydantic import BaseModel

from tabane.mcp import catalog
from tabane.wire.base import Request

ROOT = Path(__file__).resolve().parents[2]


def test_http_and_mcp_declare_no_request_or_answer_model_of_their_own() -> None:
    """A pydantic model in `api/` or `mcp/` would be a second home for a wire shape."""
    found = []
    for package in ("api", "mcp"):
        for path in (ROOT / "src" / "tabane" / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
                    if bases & {"BaseModel", "Request", "Response"}:
                        found.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert found == []


def test_every_tool_takes_a_wire_request() -> None:
    for spec in catalog.all_tools():
        assert issubclass(spec.args, Request), spec.name
        assert spec.args.__module__.startswith("tabane.wire."), spec.name


def test_a_tool_and_its_route_share_the_request() -> None:
    """Where HTTP and MCP take the same request, the tool's arguments are the route's body (at
    most extended by what HTTP reads from the path, or what only one entrance answers)."""
    bodies = {}
    for route in _routes():
        for param in route.dependant.body_params:
            model = param.field_info.annotation
            if isinstance(model, type) and issubclass(model, BaseModel):
                bodies[model.__name__] = model
    tools = catalog.by_name()
    for tool, body in {
        "recall": "RecallAsk",
        "explain_recall": "RecallExplainIn",
        "search_passages": "CrossSearchIn",
        "explain_search": "CrossExplainIn",
        "search_catalog": "CatalogIn",
        "explain_catalog": "CatalogExplainIn",
        "resolve": "ResolveIn",
        "resolve_label": "ResolveIn",
        "explain_resolve": "ResolveExplainIn",
        "audit_vocabulary": "AuditIn",
        "create_context": "ContextCreate",
        "update_context": "ContextPatch",
        "rename_context": "ContextRename",
        "create_group": "GroupCreate",
        "change_group": "GroupPatch",
        "rename_group": "ContextRename",
        "search_communities": "CommunitySearchIn",
        "ingest_source": "IngestIn",
        "lookup_source": "LookupIn",
        "retract_source": "RetractIn",
        "cite": "CiteIn",
        "query_graph": "CrossQueryIn",
        "describe_concept": "DescribeIn",
        "activate": "ActivateIn",
        "explore": "ExploreIn",
        "find_paths": "PathsIn",
        "unreachable_from": "UnreachableIn",
        "cite_association": "CitationsIn",
        "add_associations": "AssociationsIn",
        "retract_associations": "RetractAssociationsIn",
        "add_alias": "AliasIn",
        "remove_alias": "AliasDelete",
        "remember": "MemoryIn",
        "add_turn": "TurnIn",
    }.items():
        args = tools[tool].args
        shared = next(c for c in args.__mro__ if c in bodies[body].__mro__)
        assert shared is not Request and shared.__module__.startswith("tabane.wire."), tool
        extra = set(args.model_fields) - set(shared.model_fields)
        assert extra <= {"context", "name", "session", "items", "kind"}, (tool, extra)


def _routes() -> list[APIRoute]:
    """Every route of every router under `tabane.api`."""
    import tabane.api

    routes = []
    for info in pkgutil.walk_packages(tabane.api.__path__, "tabane.api."):
        router = getattr(importlib.import_module(info.name), "router", None)
        routes += [r for r in getattr(router, "routes", ()) if isinstance(r, APIRoute)]
    return routes
