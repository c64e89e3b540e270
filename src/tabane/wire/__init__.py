"""The wire: one pydantic module per resource, the one home of every request and response shape
that crosses an entrance. HTTP routes (`api/`) take these models as bodies and answer with them;
MCP tools (`mcp/`) take them as arguments (their JSON schemas are the tools' input schemas); the
CLI builds them from its options. A request model turns itself into the service's value with one
method (`to_request`, `to_document`, …), so a field is added once. See docs/decisions/0006."""
