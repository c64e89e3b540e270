"""The facade's public surface — every method name and signature that the Python API, HTTP, MCP
and the CLI call — is the one recorded in tabane_surface.txt (recorded before the facade became a
set of delegations, issue 33). A change to the surface is a change to that file, made on purpose."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from tabane.service import Tabane

RECORDED = Path(__file__).with_name("tabane_surface.txt")


# Built by `Tabane.open` and by the tests (`Tabane.build(store, settings, embedder)`), added when
# the facade came to take its components in its constructor.
ADDED = {"build"}


def surface() -> list[str]:
    """`name(signature)` of each public callable of `Tabane`, by name: a default's address and a
    positional-only `self` (the same call for every caller) left out."""
    return [
        re.sub(r" at 0x[0-9a-f]+", "", f"{name}{inspect.signature(getattr(Tabane, name))}").replace(
            "(self, /, ", "(self, "
        )
        for name in sorted(dir(Tabane))
        if not name.startswith("_") and name not in ADDED and callable(getattr(Tabane, name))
    ]


def test_public_surface_is_the_recorded_one() -> None:
    recorded = RECORDED.read_text(encoding="utf-8").splitlines()
    now = surface()
    assert [line for line in now if line not in recorded] == []  # added or changed
    assert [line for line in recorded if line not in now] == []  # removed or changed
    # + rename_group, refresh_embeddings, verify_citations; issue 35: assemble_evidence,
    # retrieve, changes, export_group, import_group, promote, compact, flush; the schema tools
    # and audits (get_schema, put_schema, validate_schema, audit_*, unreachable_edges); watch;
    # decision 0027: compact_all, embeddings, explore_edges, flush_all; Taguru's import and
    # promote: import_batches, promote_sources; Taguru's drift audit: audit_unsourced
    assert len(now) == 113


def test_every_method_reaches_its_component() -> None:
    """Each delegation names a method its component has (a typo would fail only when called)."""
    for name in sorted(dir(Tabane)):
        target = getattr(getattr(Tabane, name), "__wrapped__", None)
        if target is not None:
            assert target.__name__ == name
