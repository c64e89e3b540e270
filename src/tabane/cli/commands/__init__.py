"""The `tabane` commands, one module per resource (the same names as api/routes/, mcp/tools/ and
service/)."""
