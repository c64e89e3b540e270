"""HTML: the main text of a page without its chrome, as heading-aware blocks."""
