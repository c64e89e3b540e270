"""`search_catalog` and its explain twin."""
