"""Contexts and groups."""
