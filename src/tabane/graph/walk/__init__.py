"""Walks over the association graph: activate and explore (walk.py), paths and unreachable_from, and
the batched neighbour fetches under them."""
