"""The HTTP routes, one module per resource (the same names as mcp/tools/, cli/commands/ and
service/)."""
