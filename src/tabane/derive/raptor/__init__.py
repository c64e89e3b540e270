"""The RAPTOR tree of a context: build, cluster, read, topic lines."""
