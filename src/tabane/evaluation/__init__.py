"""Retrieval evaluation on the dev sets (shared/eval): corpora, metrics and the docs harness."""
