"""Graph reads: query by pattern (pattern.py), describe and labels, and the citations of one
association."""
