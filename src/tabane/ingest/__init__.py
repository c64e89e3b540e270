"""tabane.ingest"""
