"""The MCP tools, one module per resource (the same names as api/routes/, cli/commands/ and
service/)."""
