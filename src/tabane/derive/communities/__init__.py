"""Communities of a context's association graph: build, read, search; detection and summaries;
embeddings."""
