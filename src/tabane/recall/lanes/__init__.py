"""The lanes of recall's one statement: paragraphs and titles (recall/lanes/lanes.py), catalog,
derived memory,
memory (claims, turns, notes) and the graph walk."""
