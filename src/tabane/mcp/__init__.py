"""tabane.mcp"""
