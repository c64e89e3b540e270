"""HTTP routes: see docs/http.md (owned by one part of the graph work)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["graph"])
