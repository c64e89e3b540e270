"""Claims: parsing a batch from the wire, writing and netting it, the sources it cites, its
embeddings, and restoring it from an archive."""
